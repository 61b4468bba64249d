"""Installer: every browser on the Linux and macOS tables in a temporary HOME, Windows through a fake
winreg; uninstall removes exactly what install wrote and nothing else; doctor talks to the real host."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from native_host.install import Env, InstallError, doctor, install, uninstall, write_host_manifest
from native_host.install.installer import EMBEDDED_TEMPLATE, TEMPLATE_PATH
from native_host.install.locations import BROWSERS

ORIGIN = "chrome-extension://folfajlldbfkhgchaeijigmkgemmkfnl/"
GECKO = "fantasma@fantasma-project.org"

# Written out independently of locations.py, so a typo there fails here.
EXPECTED_USER = {
    "linux": {
        "chrome": ".config/google-chrome/NativeMessagingHosts",
        "chromium": ".config/chromium/NativeMessagingHosts",
        "brave": ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        "edge": ".config/microsoft-edge/NativeMessagingHosts",
        "vivaldi": ".config/vivaldi/NativeMessagingHosts",
        "firefox": ".mozilla/native-messaging-hosts",
        "librewolf": ".librewolf/native-messaging-hosts",
    },
    "darwin": {
        "chrome": "Library/Application Support/Google/Chrome/NativeMessagingHosts",
        "chromium": "Library/Application Support/Chromium/NativeMessagingHosts",
        "brave": "Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        "edge": "Library/Application Support/Microsoft Edge/NativeMessagingHosts",
        "vivaldi": "Library/Application Support/Vivaldi/NativeMessagingHosts",
        "firefox": "Library/Application Support/Mozilla/NativeMessagingHosts",
        "librewolf": "Library/Application Support/LibreWolf/NativeMessagingHosts",
    },
}
EXPECTED_SYSTEM = {
    "linux": {
        "chrome": "etc/opt/chrome/native-messaging-hosts",
        "chromium": "etc/chromium/native-messaging-hosts",
        "brave": "etc/opt/chrome/native-messaging-hosts",
        "edge": "etc/opt/edge/native-messaging-hosts",
        "vivaldi": "etc/opt/vivaldi/native-messaging-hosts",
        "firefox": "usr/lib/mozilla/native-messaging-hosts",
        "librewolf": "usr/lib/librewolf/native-messaging-hosts",
    },
    "darwin": {
        "chrome": "Library/Google/Chrome/NativeMessagingHosts",
        "chromium": "Library/Application Support/Chromium/NativeMessagingHosts",
        "brave": "Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        "edge": "Library/Microsoft/Edge/NativeMessagingHosts",
        "vivaldi": "Library/Application Support/Vivaldi/NativeMessagingHosts",
        "firefox": "Library/Application Support/Mozilla/NativeMessagingHosts",
        "librewolf": "Library/Application Support/LibreWolf/NativeMessagingHosts",
    },
}
# The key each browser reads first, from the browsers' own sources (docs/host.md "Windows registry"):
# Chromium's native_process_launcher_win.cc (Chrome's key; Chromium's, then Chrome's), Microsoft's Edge
# docs, Firefox's NativeManifests (Mozilla's key); Brave, Vivaldi and LibreWolf have no key of their own
# (KeePassXC's installer registers them under Chrome's and Mozilla's).
EXPECTED_WINDOWS_KEYS = {
    "chrome": r"Software\Google\Chrome\NativeMessagingHosts\org.fantasma.host",
    "chromium": r"Software\Chromium\NativeMessagingHosts\org.fantasma.host",
    "brave": r"Software\Google\Chrome\NativeMessagingHosts\org.fantasma.host",
    "edge": r"Software\Microsoft\Edge\NativeMessagingHosts\org.fantasma.host",
    "vivaldi": r"Software\Google\Chrome\NativeMessagingHosts\org.fantasma.host",
    "firefox": r"Software\Mozilla\NativeMessagingHosts\org.fantasma.host",
    "librewolf": r"Software\Mozilla\NativeMessagingHosts\org.fantasma.host",
}
FORMS = {b.name: b.form for b in BROWSERS}


class FakeWinreg:
    """The slice of `winreg` the installer uses, over a dict {(hive, key): default value}."""

    HKEY_CURRENT_USER = "HKCU"
    HKEY_LOCAL_MACHINE = "HKLM"
    KEY_WRITE = 0x20006
    KEY_READ = 0x20019
    REG_SZ = 1

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], str | None] = {}

    def CreateKeyEx(self, hive, key, reserved, access):
        self.values.setdefault((hive, key), None)
        return (hive, key)

    def OpenKey(self, hive, key, reserved, access):
        if (hive, key) not in self.values:
            raise FileNotFoundError(key)
        return (hive, key)

    def SetValueEx(self, handle, name, reserved, kind, value):
        assert name == "" and kind == self.REG_SZ
        self.values[handle] = value

    def QueryValueEx(self, handle, name):
        value = self.values[handle]
        if value is None:
            raise FileNotFoundError(name)
        return value, self.REG_SZ

    def DeleteKey(self, hive, key):
        if (hive, key) not in self.values:
            raise FileNotFoundError(key)
        del self.values[(hive, key)]

    def CloseKey(self, handle):
        pass


def snapshot(*roots: Path) -> dict[str, bytes | None]:
    """Every file (with content) and directory under the roots."""
    out: dict[str, bytes | None] = {}
    for root in roots:
        for path in root.rglob("*"):
            out[str(path)] = path.read_bytes() if path.is_file() else None
    return out


def make_env(tmp_path: Path, os_name: str, **kwargs) -> Env:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return Env(os_name=os_name, home=home, base=tmp_path / "base", interpreter=sys.executable, **kwargs)


def check_manifest(path: Path, form: str, launcher: Path) -> None:
    manifest = json.loads(path.read_text())
    assert manifest["name"] == "org.fantasma.host" and manifest["type"] == "stdio"
    assert manifest["path"] == str(launcher)
    if form == "chromium":
        assert manifest["allowed_origins"] == [ORIGIN] and "allowed_extensions" not in manifest
    else:
        assert manifest["allowed_extensions"] == [GECKO] and "allowed_origins" not in manifest


@pytest.mark.parametrize("os_name", ["linux", "darwin"])
@pytest.mark.parametrize("browser", [b.name for b in BROWSERS])
def test_user_install_for_each_browser_then_uninstall_restores_the_tree(tmp_path, os_name, browser):
    env = make_env(tmp_path, os_name)
    # Something of the user's that must survive: an existing dir with another host's manifest.
    other_dir = env.home / EXPECTED_USER[os_name]["chrome"]
    other_dir.mkdir(parents=True)
    (other_dir / "com.example.other.json").write_text("{}")
    before = snapshot(tmp_path)

    install(env, [browser])
    manifest = env.home / EXPECTED_USER[os_name][browser] / "org.fantasma.host.json"
    launcher = tmp_path / "base" / "bin" / "fantasma-host"
    check_manifest(manifest, FORMS[browser], launcher)
    assert os.access(launcher, os.X_OK)
    assert f"{sys.executable} -P -m native_host" in launcher.read_text()

    uninstall(env)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("os_name", ["linux", "darwin"])
def test_system_install_uses_system_dirs_and_uninstalls_cleanly(tmp_path, os_name):
    prefix = tmp_path / "root"
    prefix.mkdir()
    env = make_env(tmp_path, os_name, system=True, is_root=True, prefix=prefix)
    before = snapshot(tmp_path)
    install(env, ["all"])
    for browser, directory in EXPECTED_SYSTEM[os_name].items():
        check_manifest(
            prefix / directory / "org.fantasma.host.json", FORMS[browser], env.base / "bin" / "fantasma-host"
        )
    assert not any(env.home.iterdir()), "a --system install writes nothing into HOME"
    uninstall(env)
    assert snapshot(tmp_path) == before


def test_system_install_without_root_is_refused(tmp_path):
    env = make_env(tmp_path, "linux", system=True, is_root=False, prefix=tmp_path / "root")
    with pytest.raises(InstallError, match="sudo"):
        install(env, ["firefox"])


def test_root_without_system_warns_about_roots_home(tmp_path):
    env = make_env(tmp_path, "linux", is_root=True)
    install(env, ["firefox"])
    assert any("root's home" in line for line in env.out)


def test_all_installs_only_detected_browsers_and_refuses_when_none(tmp_path):
    env = make_env(tmp_path, "linux")
    with pytest.raises(InstallError, match="--browser"):
        install(env, ["all"])
    (env.home / ".mozilla").mkdir()
    (env.home / ".config/chromium").mkdir(parents=True)
    done = install(env, None)
    assert sorted(p.browser.name for p in done) == ["chromium", "firefox"]
    assert not (env.home / ".config/google-chrome").exists()


def test_flatpak_and_snap_browsers_get_a_note(tmp_path):
    env = make_env(tmp_path, "linux", prefix=tmp_path / "root")
    (env.home / ".var/app/org.chromium.Chromium").mkdir(parents=True)
    (tmp_path / "root/snap/firefox").mkdir(parents=True)
    install(env, ["chromium", "firefox"])
    notes = [line for line in env.out if line.startswith("note:")]
    assert any("Flatpak" in n and "chromium" in n for n in notes)
    assert any("Snap" in n and "firefox" in n for n in notes)


@pytest.mark.parametrize("system", [False, True])
def test_windows_registry_keys_point_at_manifests_and_uninstall_deletes_them(tmp_path, system):
    reg = FakeWinreg()
    reg.values[("HKCU", r"Software\Other\NativeMessagingHosts\com.example")] = "C:\\other.json"
    env = make_env(tmp_path, "windows", system=system, winreg=reg)
    before_files = snapshot(tmp_path)
    install(env, ["all"])
    hive = "HKLM" if system else "HKCU"
    for browser, key in EXPECTED_WINDOWS_KEYS.items():
        manifest = Path(reg.values[(hive, key)])
        check_manifest(manifest, FORMS[browser], env.base / "bin" / "fantasma-host.bat")
    launcher = (env.base / "bin" / "fantasma-host.bat").read_text()
    assert f'"{sys.executable}" -P -m native_host %*' in launcher
    uninstall(env)
    assert reg.values == {("HKCU", r"Software\Other\NativeMessagingHosts\com.example"): "C:\\other.json"}
    assert snapshot(tmp_path) == before_files


def test_reinstall_then_one_uninstall_removes_everything(tmp_path):
    env = make_env(tmp_path, "linux")
    before = snapshot(tmp_path)
    install(env, ["chrome"])
    install(env, ["firefox"])
    install(env, ["chrome"])
    uninstall(env)
    assert snapshot(tmp_path) == before
    assert uninstall(env) == []  # nothing left to do; says so


def test_root_manifest_template_matches_the_embedded_copy():
    assert json.loads(TEMPLATE_PATH.read_text()) == EMBEDDED_TEMPLATE


def test_write_host_manifest_for_custom_profile_dirs(tmp_path):
    path = write_host_manifest(tmp_path / "NativeMessagingHosts", "chromium", Path("/opt/launcher"))
    check_manifest(path, "chromium", Path("/opt/launcher"))
    with pytest.raises(ValueError):
        write_host_manifest(tmp_path, "safari", Path("/opt/launcher"))


def test_doctor_checks_manifests_and_does_a_real_hello(tmp_path, isolated_home):
    env = make_env(tmp_path, "linux", fantasma_home=str(isolated_home))
    assert doctor(env) == 1 and "no browser is registered" in "\n".join(env.out)
    install(env, ["chromium", "firefox"])
    env.out.clear()
    assert doctor(env) == 0, env.out
    report = "\n".join(env.out)
    assert "chromium: ok" in report and "firefox: ok" in report
    assert "hello via" in report and ": ok: fantasma" in report and "protocol 1" in report
    # A manifest pointing at a missing launcher is reported.
    broken = env.home / EXPECTED_USER["linux"]["firefox"] / "org.fantasma.host.json"
    manifest = json.loads(broken.read_text())
    manifest["path"] = str(tmp_path / "missing")
    broken.write_text(json.dumps(manifest))
    env.out.clear()
    assert doctor(env) == 1
    assert any("firefox: PROBLEM" in line and "does not exist" in line for line in env.out)


def test_cli_install_doctor_uninstall_in_a_temporary_home(tmp_path, isolated_home):
    home = tmp_path / "home"
    (home / ".config/chromium").mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "FANTASMA_HOME": str(isolated_home)}
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "native_host", *args], env=env, capture_output=True, text=True, timeout=90
    )
    installed = run("install")
    assert installed.returncode == 0, installed.stderr
    assert (home / ".config/chromium/NativeMessagingHosts/org.fantasma.host.json").exists()
    checked = run("doctor")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    removed = run("uninstall")
    assert removed.returncode == 0
    assert not (home / ".config/chromium/NativeMessagingHosts").exists()
    bad = run("install", "--browser", "safari")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_doctor_reports_telemetry_off_and_deletes_a_queue_on_request(tmp_path, isolated_home, monkeypatch):
    from native_host.install import telemetry

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    env = make_env(tmp_path, "linux", fantasma_home=str(isolated_home))
    install(env, ["chromium"])
    queue = env.home / ".cache/Microsoft/DeveloperTools/.onnxruntime"
    queue.mkdir(parents=True)
    (queue / "deviceid").write_text("3f1c0000-0000-0000-0000-000000000000")
    (queue / "onnxruntime.db").write_bytes(b"\0" * 100)
    neighbour = queue.parent / "other-tool.json"  # not ours to delete
    neighbour.write_text("{}")

    env.out.clear()
    assert doctor(env) == 0, env.out  # a leftover queue is reported, not a failure of this install
    report = "\n".join(env.out)
    assert "telemetry: off: onnxruntime" in report and "ORT_DISABLE_TELEMETRY=1" in report, report
    assert f"queue at {queue} (2 files, 136 bytes)" in report and "--delete-telemetry-queue" in report
    assert queue.is_dir()

    env.out.clear()
    assert doctor(env, delete_telemetry_queue=True) == 0, env.out
    assert any(line.startswith("telemetry: deleted the onnxruntime telemetry queue") for line in env.out)
    assert not queue.exists() and neighbour.read_text() == "{}"
    with pytest.raises(ValueError):
        telemetry.delete_queue(neighbour.parent)
    assert (
        "--delete-telemetry-queue"
        in subprocess.run(
            [sys.executable, "-m", "native_host", "doctor", "--help"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    )


@pytest.mark.parametrize("ci_marker", [None, "CI", "GITHUB_ACTIONS"])
def test_telemetry_probe_catches_an_onnxruntime_imported_without_the_package(monkeypatch, ci_marker):
    """The probe's detector: onnxruntime imported on its own (telemetry on) leaves a queue, and the
    probe says so; imported after native_host it leaves none. Also on a CI machine, where onnxruntime
    keeps quiet by itself (a green CI once hid that the probe could not see anything there)."""
    from native_host.install import telemetry

    if ci_marker:
        monkeypatch.setenv(ci_marker, "true")

    off, detail = telemetry.probe()
    assert off, detail
    monkeypatch.setattr(telemetry, "PROBE_CODE", "import onnxruntime\nprint('', onnxruntime.__version__)\n")
    off, detail = telemetry.probe()
    assert not off and "still created a telemetry queue" in detail, detail


def test_windows_doctor_finds_each_browser_where_it_really_looks(tmp_path, monkeypatch):
    doctor_module = importlib.import_module("native_host.install.doctor")
    from native_host.install.installer import registry_lookup

    monkeypatch.setattr(
        doctor_module, "hello_roundtrip", lambda command: (True, "not run (Windows launcher)")
    )
    reg = FakeWinreg()
    env = make_env(tmp_path, "windows", winreg=reg)
    install(env, ["brave"])
    assert set(reg.values) == {("HKCU", EXPECTED_WINDOWS_KEYS["brave"])}  # Chrome's key
    by_name = {b.name: b for b in BROWSERS}
    chrome_key = "HKCU\\" + EXPECTED_WINDOWS_KEYS["chrome"]
    # Chrome, Brave and Vivaldi read that key; Chromium and Edge fall back to it; Firefox's family not.
    for name in ("chrome", "brave", "vivaldi", "chromium", "edge"):
        found = registry_lookup(env, by_name[name])
        assert found is not None and found[0] == chrome_key, (name, found)
    assert registry_lookup(env, by_name["firefox"]) is None
    env.out.clear()
    assert doctor(env) == 0, env.out
    report = "\n".join(env.out)
    assert f"    brave: ok ({chrome_key} -> " in report and f"     edge: ok ({chrome_key} -> " in report
    assert "librewolf: not registered" in report

    # A key in HKLM only is found after HKCU (a --system install, seen from a user's doctor).
    system_reg = FakeWinreg()
    (tmp_path / "sys").mkdir()
    system_env = make_env(tmp_path / "sys", "windows", system=True, winreg=system_reg)
    install(system_env, ["librewolf"])
    user_env = make_env(tmp_path / "sys", "windows", winreg=system_reg)
    found = registry_lookup(user_env, by_name["firefox"])
    assert found is not None and found[0] == "HKLM\\" + EXPECTED_WINDOWS_KEYS["firefox"]


def test_windows_doctor_points_out_a_key_the_browser_never_reads(tmp_path, monkeypatch):
    doctor_module = importlib.import_module("native_host.install.doctor")

    monkeypatch.setattr(doctor_module, "hello_roundtrip", lambda command: (True, "not run"))
    reg = FakeWinreg()
    env = make_env(tmp_path, "windows", winreg=reg)
    install(env, ["chromium"])
    old_brave = r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\org.fantasma.host"
    reg.values[("HKCU", old_brave)] = str(tmp_path / "old.json")  # what an earlier version wrote
    env.out.clear()
    doctor(env)
    line = next(line for line in env.out if line.strip().startswith("brave:"))
    assert "not registered" in line and "does not read that key" in line, line


def test_bat_launcher_escapes_percent_and_refuses_quotes(tmp_path):
    from native_host.install import write_launcher

    launcher = write_launcher(
        tmp_path, r"C:\Users\100%\py%PATH%\python.exe", "windows", fantasma_home=r"D:\fan%USERNAME%"
    )
    text = launcher.read_bytes().decode("utf-8")
    assert text.split("\r\n") == [
        "@echo off",
        r'set "FANTASMA_HOME=D:\fan%%USERNAME%%"',
        r'"C:\Users\100%%\py%%PATH%%\python.exe" -P -m native_host %*',
        "",
    ]
    with pytest.raises(InstallError):
        write_launcher(tmp_path, 'C:\\odd"name\\python.exe', "windows")


def test_launcher_never_imports_a_native_host_folder_in_the_browsers_working_dir(tmp_path):
    """Browsers start the launcher in their own working directory; a folder named native_host there
    (a user's checkout, a download) must not stand in for the installed host."""
    import struct

    from native_host.install.installer import write_launcher

    launcher = write_launcher(tmp_path / "bin", sys.executable, "linux", str(tmp_path / "home"))
    decoy = tmp_path / "cwd" / "native_host"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("raise SystemExit('the decoy was imported')\n")
    (decoy / "__main__.py").write_text("raise SystemExit('the decoy was imported')\n")
    body = json.dumps({"id": "1", "type": "hello", "params": {}}).encode()
    done = subprocess.run(
        [str(launcher)],
        input=struct.pack("=I", len(body)) + body,
        capture_output=True,
        cwd=tmp_path / "cwd",
        timeout=120,
    )
    assert b"decoy" not in done.stderr, done.stderr
    (n,) = struct.unpack("=I", done.stdout[:4])
    reply = json.loads(done.stdout[4 : 4 + n])
    assert reply["type"] == "result" and reply["result"]["app"] == "fantasma", reply

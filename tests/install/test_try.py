"""`fantasma try` from the wheel: it starts a real Chromium headless, serves the demo page, and when it
ends nothing of it is left (profile dir, host registration, page server, browser processes). Then the
demo's promise, driven through try's own launcher: Send on the page posts the rewritten text."""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.harness import CHROMIUM, SAMPLE, host_reply

from .conftest import ROOT, Installed

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def chromium_processes_using(path: Path) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(path) in cmdline:
            out.append(int(entry.name))
    return out


def test_try_starts_serves_its_page_and_leaves_nothing(installed: Installed) -> None:
    proc = subprocess.Popen(
        [installed.bin("fantasma"), "try", "--headless", "--timeout", "15", "--browser", CHROMIUM],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=installed.env(),
        cwd=installed.home,
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not any(line.startswith("demo page: ") for line in lines):
            line = proc.stdout.readline()
            assert line, f"try ended early: {lines} {proc.stderr.read() if proc.stderr else ''}"
            lines.append(line.strip())
        url = lines[-1].removeprefix("demo page: ")
        profile = Path(re.search(r"throw-away profile (\S+)", "\n".join(lines)).group(1))  # type: ignore[union-attr]
        manifest = profile / "NativeMessagingHosts" / "org.fantasma.host.json"
        assert json.loads(manifest.read_text())["path"].startswith(str(profile.parent))  # this profile only
        assert any("extension: folfajlldbfkhgchaeijigmkgemmkfnl from " in line for line in lines), lines
        assert chromium_processes_using(profile), "no browser runs with the throw-away profile"
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert 'id="field"' in page and 'id="send"' in page and "Rewrite before posting" in page
        rest, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "ended (timeout)" in rest and f"removed {profile.parent}" in rest, rest
    assert not profile.parent.exists()
    assert not chromium_processes_using(profile)
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=5)


# try's host registration and extension folder, made by the wheel's own code (the installed venv's
# python, outside the checkout): the launcher Chromium starts is the wheel's, and so is the extension.
WHEEL_PIECES = """
import json, sys
from pathlib import Path
import native_host
from native_host.commands import try_
scratch, profile = Path(sys.argv[1]), Path(sys.argv[2])
manifest = try_.register_host(scratch, profile)
print(json.dumps({"manifest": str(manifest), "extension": str(try_.extension_dir(scratch)),
                  "package": native_host.__file__}))
"""


def parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def host_processes(python: str, started_by: int) -> list[int]:
    """The hosts running now as the wheel's launcher runs them (`python -P -m native_host`), started by
    process `started_by` or one of its children (the browser and its helpers)."""
    wanted = [python, "-P", "-m", "native_host"]
    out = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if not entry.name.isdigit() or argv[:4] != wanted:
            continue
        pid = ancestor = int(entry.name)
        while ancestor > 1 and ancestor != started_by:
            ancestor = parent(ancestor)
        if ancestor == started_by:
            out.append(pid)
    return out


def test_the_demo_page_sends_the_rewritten_text(installed: Installed, tmp_path: Path, monkeypatch) -> None:
    """try's own pieces (launch, open_demo, the demo server) with a real click on Send: "Rewrite before
    posting" is on for the page, so the server receives what the host makes of the text. The host and
    the extension are the wheel's: registered by the installed code, started by Chromium through the
    installed launcher, nothing of the checkout on its path."""
    from native_host.commands import try_

    monkeypatch.setenv("FANTASMA_HOME", str(installed.fantasma_home))  # the models setup exported
    monkeypatch.delenv("PYTHONPATH", raising=False)  # Chromium passes its environment to the host
    monkeypatch.chdir(tmp_path)
    profile = tmp_path / "profile"
    made = installed.run(installed.bin("python"), "-c", WHEEL_PIECES, str(tmp_path), str(profile))
    assert made.returncode == 0, made.stderr
    pieces = json.loads(made.stdout)
    assert Path(pieces["package"]).is_relative_to(installed.venv), pieces  # the wheel's, not the checkout's
    assert not Path(pieces["extension"]).is_relative_to(ROOT), pieces  # unpacked from the wheel's bundle
    launcher = json.loads(Path(pieces["manifest"]).read_text())["path"]
    wheel_python = installed.bin("python")
    assert f"exec {wheel_python} -P -m native_host" in Path(launcher).read_text()
    oracle = host_reply([launcher], installed.env(), tmp_path, "rewrite", {"text": SAMPLE})
    assert oracle["type"] == "result", oracle
    hosts: set[int] = set()
    with try_.DemoServer() as server:
        proc, devtools = try_.launch(Path(CHROMIUM), profile, headless=True)
        try:
            try_.open_demo(devtools, Path(pieces["extension"]), server.url)
            deadline = time.monotonic() + 20
            while not (pages := [t for t in devtools.targets() if t["url"] == server.url]):
                assert time.monotonic() < deadline, devtools.targets()
                time.sleep(0.1)
            page = pages[0]
            session = devtools.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})[
                "sessionId"
            ]

            def evaluate(expression: str):
                reply = devtools.call(
                    "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session
                )
                return reply["result"].get("value")

            deadline = time.monotonic() + 20  # the target's url is set before its document is there
            while evaluate("document.getElementById('field')?.value") is None:
                assert time.monotonic() < deadline, "the demo page did not load"
                time.sleep(0.1)
            assert evaluate("document.getElementById('field').value") == SAMPLE
            box = evaluate("JSON.stringify(document.getElementById('send').getBoundingClientRect())")
            x, y = (lambda b: (b["x"] + b["width"] / 2, b["y"] + b["height"] / 2))(json.loads(box))
            for kind in ("mousePressed", "mouseReleased"):  # a trusted click, as a person's
                devtools.call(
                    "Input.dispatchMouseEvent",
                    {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
                    session,
                )
            deadline = time.monotonic() + 120
            while not server.received and time.monotonic() < deadline:
                hosts.update(host_processes(wheel_python, proc.pid))  # the host Chromium started
                time.sleep(0.1)
        finally:
            try_.stop(proc, devtools)
    assert server.received == [oracle["result"]["text"]]
    assert hosts, "Chromium started no host through the wheel's launcher while the page was rewritten"

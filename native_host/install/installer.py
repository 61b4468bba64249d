"""Registers the host with browsers: a launcher script, one manifest per browser, an install record.

Everything that differs per browser and OS is in `locations.BROWSERS`; `placements()` is the one
function that walks it. `uninstall()` removes exactly what the record says install wrote.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from native_host import paths
from native_host.install.locations import (
    BROWSERS,
    BY_NAME,
    CHROMIUM_ORIGIN,
    GECKO_ID,
    HOST_NAME,
    Browser,
    OSName,
    current_os,
    manifest_dir,
)

MANIFEST_FILE = f"{HOST_NAME}.json"
RECORD_FILE = "install-record.json"
TEMPLATE_PATH = Path(__file__).resolve().parents[2] / "manifest.json"
# The same as the repo-root manifest.json (a test keeps them equal); used when installed without the repo.
EMBEDDED_TEMPLATE: dict[str, Any] = {
    "name": HOST_NAME,
    "description": "Fantasma: finds and rewrites the writing habits that identify you, on this machine",
    "path": "@LAUNCHER_PATH@",
    "type": "stdio",
    "allowed_origins": [CHROMIUM_ORIGIN],
    "allowed_extensions": [GECKO_ID],
}


class InstallError(Exception):
    """A problem the user can fix; the message says how. Exit status 2."""


# --- manifests and launcher ---------------------------------------------------------------------------


def manifest_template() -> dict[str, Any]:
    if TEMPLATE_PATH.is_file():
        return json.loads(TEMPLATE_PATH.read_text(encoding="utf-8"))
    return json.loads(json.dumps(EMBEDDED_TEMPLATE))


def manifest_for(browser_form: str, launcher: Path) -> dict[str, Any]:
    """The template filled in: `path` set, only the allow-list key this browser family reads."""
    manifest = manifest_template()
    manifest["path"] = str(launcher)
    if browser_form == "chromium":
        manifest.pop("allowed_extensions", None)
    elif browser_form == "firefox":
        manifest.pop("allowed_origins", None)
    else:
        raise ValueError(f"unknown manifest form {browser_form!r} (chromium or firefox)")
    return manifest


def write_host_manifest(directory: Path, browser_form: str, launcher: Path) -> Path:
    """Write `org.fantasma.host.json` for `browser_form` ("chromium"|"firefox") into `directory`.

    For tests and custom profiles (e.g. Chromium's `<user-data-dir>/NativeMessagingHosts`).
    """
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / MANIFEST_FILE
    target.write_text(json.dumps(manifest_for(browser_form, launcher), indent=2) + "\n", encoding="utf-8")
    return target


def launcher_name(os_name: OSName) -> str:
    return "fantasma-host.bat" if os_name == "windows" else "fantasma-host"


def write_launcher(
    directory: Path, interpreter: str, os_name: OSName, fantasma_home: str | None = None
) -> Path:
    """A script that starts the host with an absolute interpreter path (browsers start hosts with a
    minimal environment and no shell PATH). FANTASMA_HOME is pinned when set at install time."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / launcher_name(os_name)
    if os_name == "windows":
        lines = ["@echo off"]
        if fantasma_home:
            lines.append(f'set "FANTASMA_HOME={_bat_literal(fantasma_home)}"')
        lines.append(f'"{_bat_literal(interpreter)}" -P -m native_host %*')
        target.write_text("\r\n".join(lines) + "\r\n", encoding="utf-8")
        return target
    lines = ["#!/bin/sh", "# Written by `fantasma-host install`: starts the Fantasma native-messaging host."]
    if fantasma_home:
        lines.append(f"FANTASMA_HOME={shlex.quote(fantasma_home)}; export FANTASMA_HOME")
    # -P: the browser's working directory is not put on sys.path, so a folder named native_host there
    # can never stand in for the installed host (Python >= 3.11, which Fantasma requires).
    lines.append(f'exec {shlex.quote(interpreter)} -P -m native_host "$@"')
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return target


def _bat_literal(value: str) -> str:
    """`value` inside double quotes in a .bat file: cmd expands %NAME% even there, so `%` is doubled
    (`^`, `&`, `|`, `<`, `>` are literal inside quotes; `!` is too, delayed expansion being off by
    default). A quote or a line break cannot be written safely; Windows paths never hold them."""
    if any(c in value for c in '"\r\n'):
        raise InstallError(
            f"cannot write a launcher for a path containing a quote or a line break: {value!r}"
        )
    return value.replace("%", "%%")


# --- the environment an install runs in (injectable for tests) ---------------------------------------


@dataclass
class Env:
    os_name: OSName
    home: Path
    system: bool = False
    is_root: bool = False
    prefix: Path = Path("/")  # root of system paths (tests point it at a temp dir)
    base: Path | None = None  # launcher, Windows manifests and the install record live here
    interpreter: str = sys.executable
    fantasma_home: str | None = None
    winreg: ModuleType | Any = None
    out: list[str] = field(default_factory=list)  # messages for the user, printed by the CLI

    def __post_init__(self) -> None:
        if self.base is None:
            self.base = self._default_base()

    @classmethod
    def current(cls, system: bool = False, winreg: Any = None) -> Env:
        os_name = current_os()
        if os_name == "windows" and winreg is None:
            import winreg as real_winreg

            winreg = real_winreg
        is_root = os_name != "windows" and hasattr(os, "geteuid") and os.geteuid() == 0
        return cls(
            os_name=os_name,
            home=Path.home(),
            system=system,
            is_root=is_root,
            fantasma_home=os.environ.get("FANTASMA_HOME"),
            winreg=winreg,
        )

    def _default_base(self) -> Path:
        if not self.system:
            return paths.data_dir() / "native-host"
        if self.os_name == "windows":
            return Path(os.environ.get("PROGRAMDATA", r"C:\ProgramData")) / "Fantasma"
        if self.os_name == "darwin":
            return self.prefix / "Library/Application Support/Fantasma"
        return self.prefix / "usr/local/lib/fantasma"

    @property
    def record_path(self) -> Path:
        assert self.base is not None
        return self.base / RECORD_FILE

    @property
    def hive_name(self) -> str:
        return "HKLM" if self.system else "HKCU"

    def hive(self) -> Any:
        return self.winreg.HKEY_LOCAL_MACHINE if self.system else self.winreg.HKEY_CURRENT_USER


@dataclass(frozen=True)
class Placement:
    """Where one browser's manifest goes (and, on Windows, the registry key that points at it)."""

    browser: Browser
    manifest_path: Path
    registry_key: str | None = None


def placements(env: Env, browsers: list[Browser]) -> list[Placement]:
    """Walk the table for this OS and scope; browsers sharing a directory (or, on Windows, a registry
    key: Chrome, Brave and Vivaldi; Firefox and LibreWolf) share one manifest."""
    out: list[Placement] = []
    seen: set[Path] = set()
    seen_keys: set[str] = set()
    for browser in browsers:
        if env.os_name == "windows":
            assert env.base is not None
            key = f"{browser.windows_key}\\{HOST_NAME}"
            if key in seen_keys:
                continue
            seen_keys.add(key)
            path = env.base / "manifests" / browser.name / MANIFEST_FILE
            out.append(Placement(browser, path, key))
            continue
        directory = manifest_dir(browser, env.os_name, env.system)
        root = env.prefix if env.system else env.home
        path = root / directory.lstrip("/") / MANIFEST_FILE
        if path in seen:
            continue
        seen.add(path)
        out.append(Placement(browser, path))
    return out


def detected_browsers(env: Env) -> list[Browser]:
    """Browsers with a profile under HOME (Linux/macOS user scope); everything otherwise."""
    if env.system or env.os_name == "windows":
        return list(BROWSERS)
    return [b for b in BROWSERS if (env.home / b.profile_root[env.os_name]).is_dir()]


def sandbox_notes(env: Env) -> list[str]:
    """Flatpak and Snap browsers run confined; say what that means for native messaging."""
    if env.os_name != "linux":
        return []
    notes = []
    for browser in BROWSERS:
        if browser.flatpak_id and (env.home / ".var/app" / browser.flatpak_id).is_dir():
            notes.append(
                f"note: {browser.name} is installed as a Flatpak ({browser.flatpak_id}); Flatpak browsers "
                "cannot start programs outside their sandbox, so Fantasma will not connect there. "
                "Use the distribution's package of the browser, or the extension's rules-only mode."
            )
        if browser.snap_name and (env.prefix / "snap" / browser.snap_name).is_dir():
            if browser.form == "firefox":
                notes.append(
                    f"note: {browser.name} is a Snap; it reaches native hosts through the WebExtensions "
                    "portal (xdg-desktop-portal 1.16+), which asks you once to allow Fantasma."
                )
            else:
                notes.append(
                    f"note: {browser.name} is a Snap; its confinement blocks native messaging hosts, so "
                    "Fantasma will not connect there. Use a non-Snap build of the browser."
                )
    return notes


# --- install / uninstall ------------------------------------------------------------------------------


def _load_record(env: Env) -> dict[str, Any]:
    try:
        record = json.loads(env.record_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = None
    if not isinstance(record, dict):
        record = {}
    return {
        "version": 1,
        "files": list(record.get("files", [])),
        "dirs": list(record.get("dirs", [])),
        "registry": list(record.get("registry", [])),
    }


def _save_record(env: Env, record: dict[str, Any]) -> None:
    env.record_path.parent.mkdir(parents=True, exist_ok=True)
    env.record_path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def _mkdirs(directory: Path, record: dict[str, Any]) -> None:
    """mkdir -p, remembering each directory that did not exist so uninstall can remove it if empty."""
    missing = []
    for candidate in (directory, *directory.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    directory.mkdir(parents=True, exist_ok=True)
    for created in reversed(missing):
        if str(created) not in record["dirs"]:
            record["dirs"].append(str(created))


def _add(record: dict[str, Any], key: str, value: Any) -> None:
    if value not in record[key]:
        record[key].append(value)


def check_scope(env: Env) -> None:
    """Refuse or warn about root/--system combinations that would not do what the user wants."""
    if env.os_name == "windows":
        return
    if env.system and not env.is_root:
        raise InstallError("--system writes to system directories; run it with sudo (or drop --system)")
    if env.is_root and not env.system:
        env.out.append(
            f"warning: running as root without --system: the manifests go to root's home ({env.home}), "
            "where browsers you run as yourself will not look. Run without sudo, or add --system."
        )
    if env.system and any(env.interpreter.startswith(p) for p in ("/home/", "/root/", "/Users/")):
        env.out.append(
            f"warning: the interpreter {env.interpreter} is inside a home directory; other users may not "
            "be allowed to run it. Install Fantasma into a system location for a --system install."
        )


def resolve_browsers(env: Env, names: list[str]) -> list[Browser]:
    if names and "all" not in names:
        return [BY_NAME[name] for name in names]
    found = detected_browsers(env)
    if not found:
        raise InstallError(
            f"no supported browser profile found under {env.home}; pass --browser NAME to install anyway "
            f"({', '.join(BY_NAME)})"
        )
    skipped = [b.name for b in BROWSERS if b not in found]
    if skipped:
        env.out.append(f"skipped (no profile found; use --browser NAME to force): {', '.join(skipped)}")
    return found


def install(env: Env, names: list[str] | None = None) -> list[Placement]:
    """Write the launcher and a manifest per browser; returns where the manifests went."""
    check_scope(env)
    browsers = resolve_browsers(env, names or ["all"])
    assert env.base is not None
    record = _load_record(env)
    try:
        _mkdirs(env.base, record)
        _mkdirs(env.base / "bin", record)
        launcher = write_launcher(env.base / "bin", env.interpreter, env.os_name, env.fantasma_home)
        _add(record, "files", str(launcher))
        env.out.append(f"launcher: {launcher}")
        done = placements(env, browsers)
        placed = {p.browser.name for p in done}
        for browser in browsers:
            if browser.name not in placed:
                shared = next(p for p in done if _same_place(env, p, browser))
                env.out.append(f"{browser.name:>9}: reads the same registration as {shared.browser.name}")
        for placement in done:
            _mkdirs(placement.manifest_path.parent, record)
            write_host_manifest(placement.manifest_path.parent, placement.browser.form, launcher)
            _add(record, "files", str(placement.manifest_path))
            where = str(placement.manifest_path)
            if placement.registry_key is not None:
                _set_registry(env, placement.registry_key, where)
                _add(record, "registry", {"hive": env.hive_name, "key": placement.registry_key})
                where = f"{env.hive_name}\\{placement.registry_key} -> {where}"
            env.out.append(f"{placement.browser.name:>9}: {where}")
    except PermissionError as exc:
        raise InstallError(
            f"permission denied writing {exc.filename or 'the registry'}; {_permission_hint(env)}"
        ) from exc
    finally:
        _save_record(env, record)
    env.out.extend(sandbox_notes(env))
    env.out.append("done; restart the browser, then run `fantasma-host doctor` to check")
    return done


def _same_place(env: Env, placement: Placement, browser: Browser) -> bool:
    other = placements(env, [browser])[0]
    if other.registry_key is not None:
        return other.registry_key == placement.registry_key
    return other.manifest_path == placement.manifest_path


def uninstall(env: Env) -> list[str]:
    """Remove what the install record lists (files, registry keys, then directories we created if
    they are empty now), then the record itself. Returns what was removed."""
    if not env.record_path.exists():
        env.out.append(f"nothing to uninstall (no install record at {env.record_path})")
        return []
    record = _load_record(env)
    removed: list[str] = []
    try:
        for entry in record["registry"]:
            if _delete_registry(env, entry["key"]):
                removed.append(f"{entry['hive']}\\{entry['key']}")
        for name in record["files"]:
            path = Path(name)
            if path.is_file() or path.is_symlink():
                path.unlink()
                removed.append(name)
        env.record_path.unlink()
        removed.append(str(env.record_path))
        for name in sorted(record["dirs"], key=len, reverse=True):
            path = Path(name)
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()
                removed.append(name + os.sep)
    except PermissionError as exc:
        raise InstallError(f"permission denied removing {exc.filename}; {_permission_hint(env)}") from exc
    env.out.extend(f"removed {item}" for item in removed)
    return removed


def _permission_hint(env: Env) -> str:
    if env.system:
        return "run it as administrator" if env.os_name == "windows" else "run it with sudo"
    return "check the directory's owner and permissions"


# --- Windows registry (the module is injectable: tests pass a fake) ---------------------------------


def _set_registry(env: Env, key: str, manifest_path: str) -> None:
    reg = env.winreg
    handle = reg.CreateKeyEx(env.hive(), key, 0, reg.KEY_WRITE)
    try:
        reg.SetValueEx(handle, "", 0, reg.REG_SZ, manifest_path)
    finally:
        reg.CloseKey(handle)


def _delete_registry(env: Env, key: str) -> bool:
    try:
        env.winreg.DeleteKey(env.hive(), key)
    except FileNotFoundError:
        return False
    return True


def read_registry(env: Env, key: str) -> str | None:
    reg = env.winreg
    try:
        handle = reg.OpenKey(env.hive(), key, 0, reg.KEY_READ)
    except FileNotFoundError:
        return None
    try:
        value, _ = reg.QueryValueEx(handle, "")
    except FileNotFoundError:
        return None
    finally:
        reg.CloseKey(handle)
    return str(value)


def registry_lookup(env: Env, browser: Browser) -> tuple[str, str] | None:
    """(where, manifest path) the way `browser` finds its host on Windows: each of its keys in its own
    order, HKCU before HKLM (only HKLM for --system); None when no key it reads is set."""
    hives = [True] if env.system else [False, True]
    for system in hives:
        probe = dataclasses.replace(env, system=system, out=[])
        for base in browser.windows_keys:
            key = f"{base}\\{HOST_NAME}"
            value = read_registry(probe, key)
            if value:
                return f"{probe.hive_name}\\{key}", value
    return None


def registered_manifests(env: Env) -> list[tuple[Browser, Path | None]]:
    """For every browser in the table: the manifest it would read (None when not registered)."""
    out: list[tuple[Browser, Path | None]] = []
    if env.os_name == "windows":
        for browser in BROWSERS:
            found = registry_lookup(env, browser)
            out.append((browser, Path(found[1]) if found else None))
        return out
    for browser in BROWSERS:  # every browser, including those sharing a directory
        path = placements(env, [browser])[0].manifest_path
        out.append((browser, path if path.exists() else None))
    return out

"""`fantasma-host doctor`: every registered manifest is well-formed and points at a launcher that
starts and answers a real framed `hello`; onnxruntime's telemetry is off and no queue of it is left;
and, for each browser with a profile here, whether the extension is installed to stay and what is
missing (install/extension.py; reported, not counted as a problem of the host's registration)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from native_host.host import framing
from native_host.install import extension, telemetry
from native_host.install.installer import (
    Env,
    read_registry,
    registered_manifests,
    registry_lookup,
    sandbox_notes,
)
from native_host.install.locations import CHROMIUM_ORIGIN, GECKO_ID, HOST_NAME, Browser

# Keys earlier versions wrote that no browser reads (Brave, Vivaldi and LibreWolf read Chrome's and
# Mozilla's; see locations.py): doctor points them out.
UNREAD_WINDOWS_KEYS = {
    "brave": r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts",
    "vivaldi": r"Software\Vivaldi\NativeMessagingHosts",
    "librewolf": r"Software\LibreWolf\NativeMessagingHosts",
}

HELLO_TIMEOUT_S = 60.0


def check_manifest(path: Path, browser: Browser) -> list[str]:
    """Problems with one manifest file (empty list = fine)."""
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"cannot read {path}: {exc}"]
    if not isinstance(manifest, dict):
        return [f"{path} is not a JSON object"]
    problems = []
    if manifest.get("name") != HOST_NAME:
        problems.append(f"name is {manifest.get('name')!r}, expected {HOST_NAME!r}")
    if manifest.get("type") != "stdio":
        problems.append("type must be 'stdio'")
    if browser.form == "chromium" and CHROMIUM_ORIGIN not in (manifest.get("allowed_origins") or []):
        problems.append(f"allowed_origins lacks {CHROMIUM_ORIGIN}")
    if browser.form == "firefox" and GECKO_ID not in (manifest.get("allowed_extensions") or []):
        problems.append(f"allowed_extensions lacks {GECKO_ID}")
    launcher = manifest.get("path")
    if not isinstance(launcher, str) or not Path(launcher).is_absolute():
        problems.append("path must be an absolute path to the launcher")
    elif not Path(launcher).is_file():
        problems.append(f"launcher {launcher} does not exist (reinstall: fantasma-host install)")
    return problems


def hello_roundtrip(command: list[str], timeout: float = HELLO_TIMEOUT_S) -> tuple[bool, str]:
    """Start the host, send one framed hello, close stdin; expect one result frame and exit 0."""
    frame = framing.encode_frame(framing.dumps({"id": "doctor", "type": "hello"}).encode())
    try:
        proc = subprocess.run(command, input=frame, capture_output=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"could not run {command[0]}: {exc}"
    messages = _frames(proc.stdout)
    if messages is None:
        return (
            False,
            f"stdout is not clean frames (first bytes {proc.stdout[:40]!r}); stderr: {_tail(proc.stderr)}",
        )
    replies = [m for m in messages if m.get("id") == "doctor"]
    if not replies or replies[0].get("type") != "result":
        return False, f"no hello result (exit {proc.returncode}); stderr: {_tail(proc.stderr)}"
    if proc.returncode != 0:
        return False, f"host exited with status {proc.returncode} after EOF; stderr: {_tail(proc.stderr)}"
    result: dict[str, Any] = replies[0]["result"]
    model = result.get("model", {})
    return True, (
        f"fantasma {result.get('version')}, protocol {result.get('protocol')}, "
        f"rewrite path {result.get('rewrite_path')}, model {model.get('state', '?')}"
    )


def _frames(data: bytes) -> list[dict[str, Any]] | None:
    out, pos = [], 0
    while pos < len(data):
        if pos + 4 > len(data):
            return None
        (length,) = framing.HEADER.unpack(data[pos : pos + 4])
        body = data[pos + 4 : pos + 4 + length]
        if len(body) != length:
            return None
        try:
            out.append(json.loads(body))
        except ValueError:
            return None
        pos += 4 + length
    return out


def _unread_key_note(env: Env, browser: Browser) -> str:
    base = UNREAD_WINDOWS_KEYS.get(browser.name)
    if env.os_name != "windows" or base is None:
        return ""
    key = f"{base}\\{HOST_NAME}"
    if read_registry(env, key) is None:
        return ""
    return (
        f" ({env.hive_name}\\{key} is set, but {browser.name} does not read that key; "
        f"it reads {browser.windows_key}: run fantasma-host install)"
    )


def _tail(data: bytes) -> str:
    return data.decode("utf-8", "replace").strip()[-400:] or "(empty)"


def telemetry_report(env: Env, delete_queue: bool = False) -> int:
    """Lines about onnxruntime's telemetry into env.out; returns the number of problems (a queue left
    on disk is reported, and deleted on request, but is not a problem of this install)."""
    off, detail = telemetry.probe(env.interpreter)
    env.out.append(f"telemetry: {'off' if off else 'PROBLEM'}: {detail}")
    for queue in telemetry.existing_queues(env.home):
        files, size = telemetry.queue_size(queue)
        what = f"onnxruntime telemetry queue at {queue} ({files} files, {size} bytes)"
        if delete_queue:
            try:
                telemetry.delete_queue(queue)
            except OSError as exc:
                env.out.append(f"telemetry: PROBLEM: cannot delete the {what}: {exc}")
                return (0 if off else 1) + 1
            env.out.append(f"telemetry: deleted the {what}")
        else:
            env.out.append(
                f"telemetry: found an {what}, left by an earlier run or another onnxruntime program; "
                "delete it with: fantasma-host doctor --delete-telemetry-queue"
            )
    return 0 if off else 1


def doctor(env: Env, delete_telemetry_queue: bool = False) -> int:
    """Prints a report into env.out; 0 when at least one browser is registered and everything works."""
    failures = telemetry_report(env, delete_telemetry_queue)
    launchers: dict[str, list[str]] = {}
    registered = 0
    for browser, manifest_path in registered_manifests(env):
        if manifest_path is None:
            env.out.append(f"{browser.name:>9}: not registered{_unread_key_note(env, browser)}")
            continue
        registered += 1
        where = str(manifest_path)
        if env.os_name == "windows":  # the key this browser really reads, found the way it looks
            found = registry_lookup(env, browser)
            where = f"{found[0] if found else '?'} -> {manifest_path}"
        problems = check_manifest(manifest_path, browser)
        if problems:
            failures += 1
            env.out.append(f"{browser.name:>9}: PROBLEM in {where}: {'; '.join(problems)}")
            continue
        env.out.append(f"{browser.name:>9}: ok ({where})")
        launcher = json.loads(manifest_path.read_text(encoding="utf-8"))["path"]
        launchers.setdefault(launcher, []).append(browser.name)
    if not registered:
        env.out.append("no browser is registered; run: fantasma-host install")
        failures += 1
    for launcher, names in launchers.items():
        ok, detail = hello_roundtrip([launcher])
        status = "ok" if ok else "FAILED"
        env.out.append(f"hello via {launcher} ({', '.join(names)}): {status}: {detail}")
        failures += 0 if ok else 1
    env.out.extend(extension.report(env))
    env.out.extend(sandbox_notes(env))
    env.out.append("all good" if not failures else f"{failures} problem(s) found")
    return 0 if not failures else 1

"""`fantasma try` from the wheel: it starts a real Chromium headless, serves the demo page, and when it
ends nothing of it is left (profile dir, host registration, page server, browser processes). Then the
demo's promise, driven through try's own launcher: Send on the page posts the rewritten text."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.harness import CHROMIUM, SAMPLE, host_reply

from .conftest import Installed

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


def test_the_demo_page_sends_the_rewritten_text(installed: Installed, tmp_path: Path, monkeypatch) -> None:
    """try's own pieces (launch, open_demo, the demo server) with a real click on Send: "Rewrite before
    posting" is on for the page, so the server receives what the host makes of the text."""
    from native_host.commands import try_

    monkeypatch.setenv("FANTASMA_HOME", str(installed.fantasma_home))  # the models setup exported
    monkeypatch.chdir(tmp_path)
    profile = tmp_path / "profile"
    manifest = try_.register_host(tmp_path, profile)
    launcher = json.loads(manifest.read_text())["path"]
    oracle = host_reply([launcher], dict(os.environ), tmp_path, "rewrite", {"text": SAMPLE})
    assert oracle["type"] == "result", oracle
    with try_.DemoServer() as server:
        proc, devtools = try_.launch(Path(CHROMIUM), profile, headless=True)
        try:
            try_.open_demo(devtools, try_.extension_dir(tmp_path), server.url)
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
                time.sleep(0.1)
        finally:
            try_.stop(proc, devtools)
    assert server.received == [oracle["result"]["text"]]

"""PROTOCOL.md: "the host opens no network connection, ever". Enforced, not assumed: the real host over
real pipes under `strace -f -e trace=network`, through hello, analyze, an LLM rewrite with the real
default model and a linger, must make no network system call at all (no inet socket, no DNS lookup).

Without ORT_DISABLE_TELEMETRY, onnxruntime 1.32 creates an event queue when it is imported and looks up
mobile.events.data.microsoft.com a few seconds after a session runs (observed: DNS queries to port 53
within 18 s of the first rewrite, 2026-11-30). Its cache (HOME, XDG_CACHE_HOME) is pointed at an empty
dir, so a queue written at import is caught even if the upload would only come later.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from native_host.host.client import HostProcess, host_env
from native_host.install import telemetry
from tests.host.test_host_llm import LLM_TEXTS

LINGER_S = 15.0  # the host stays open the way a browser keeps its port
# Any network syscall counts except socketpair(AF_UNIX) (a local pipe pair). The host makes none
# at all today; an AF_UNIX connect would be nscd/resolved (a DNS lookup by another road).
ALLOWED = re.compile(r"\bsocketpair\(AF_UNIX\b")
NOT_A_CALL = re.compile(r"^\d+\s+(?:\+\+\+|---) ")  # exit and signal notes


def strace_path() -> str:
    path = shutil.which("strace")
    if path is None:
        pytest.fail("strace is not installed: run scripts/install-system-deps.sh")
    return path


def network_calls(trace: Path) -> list[str]:
    lines = trace.read_text(encoding="utf-8", errors="replace").splitlines()
    return [
        line for line in lines if line.strip() and not ALLOWED.search(line) and not NOT_A_CALL.match(line)
    ]


def traced(argv: list[str], trace: Path) -> list[str]:
    return [strace_path(), "-f", "-qq", "-e", "trace=network", "-o", str(trace), *argv]


def test_strace_sees_an_inet_socket(tmp_path):
    """The detector itself: a process that opens one UDP socket is caught."""
    trace = tmp_path / "control.strace"
    code = "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()"
    subprocess.run(traced([sys.executable, "-c", code], trace), check=True, timeout=60)
    calls = network_calls(trace)
    assert any("socket(AF_INET," in line for line in calls), calls


@pytest.mark.slow
def test_host_makes_no_network_call(tmp_path, models_installed):
    cache = tmp_path / "cache"
    cache.mkdir()
    env = host_env(HOME=str(cache), XDG_CACHE_HOME=str(cache))
    for name in ("ORT_DISABLE_TELEMETRY", "HF_HUB_DISABLE_TELEMETRY", "HF_HUB_OFFLINE", "DO_NOT_TRACK"):
        env.pop(name, None)  # the host must turn these off itself
    env = telemetry.as_a_user_runs_it(env)  # on a CI machine onnxruntime would stay quiet by itself
    trace = tmp_path / "host.strace"
    with HostProcess(argv=traced([sys.executable, "-m", "native_host"], trace), env=env) as host:
        assert host.result("hello", timeout=120)["model"]["state"] == "available"
        analysis = host.result("analyze", {"text": LLM_TEXTS[0]}, timeout=120)
        assert analysis["words"] > 0
        paths = []
        for text in LLM_TEXTS:
            result = host.result("rewrite", {"text": text, "options": {"strength": "strong"}}, timeout=300)
            paths.append(result["path"])
            if result["path"] == "llm":
                break
        assert paths[-1] == "llm", paths  # onnxruntime loaded and ran a generation
        time.sleep(LINGER_S)
        assert host.result("hello")["model"]["state"] == "ready"
        assert host.close() == 0
    assert not host.violations
    calls = network_calls(trace)
    assert not calls, "the host made network system calls:\n" + "\n".join(calls[:20])
    written = sorted(str(p.relative_to(cache)) for p in cache.rglob("*"))
    assert not written, f"files appeared in the host's cache dir (telemetry queue?): {written}"
    assert os.environ.get("FANTASMA_HOME")  # models came from the test's home, not the user's

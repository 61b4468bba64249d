"""Native-messaging host speed: hello round-trip latency and start-to-ready time.

    .venv/bin/python bench/bench_host.py [--hellos 500] [--starts 10]

Start-to-ready = from spawning `python -m native_host` to the first `hello` result (no model).
With the model = from spawning to the first `rewrite` result on the LLM path (the model is loaded
lazily by that request), measured only when native_host.rewrite and the default model dir exist.
No peer: the figures are the host's own, compared run to run (current ones in docs/results.md). Goal: the
framing and the job loop add well under a millisecond to a request, and nothing but the model's load
makes the first rewrite slow.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from native_host.host.client import HostProcess, host_env  # noqa: E402

# Markers the neutralizer cannot remove (pet phrases), so the rewrite takes the LLM path.
LLM_TEXT = (
    "To be fair, I reckon at the end of the day it's grand, innit. "
    "To be fair, I reckon we should just go, at the end of the day."
)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def hello_latency(count: int, env: dict[str, str]) -> list[float]:
    with HostProcess(env=env) as host:
        host.assert_alive()  # warm-up (imports)
        times = []
        for _ in range(count):
            started = time.perf_counter()
            host.result("hello")
            times.append((time.perf_counter() - started) * 1000)
        assert host.close() == 0
    return times


def start_to_ready(count: int, env: dict[str, str]) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        with HostProcess(env=env) as host:
            host.result("hello")
            times.append((time.perf_counter() - started) * 1000)
            assert host.close() == 0
    return times


def start_to_first_llm_rewrite(env: dict[str, str]) -> tuple[float, dict]:
    started = time.perf_counter()
    with HostProcess(env=env) as host:
        result = host.result("rewrite", {"text": LLM_TEXT, "options": {"strength": "strong"}}, timeout=600)
        elapsed = (time.perf_counter() - started) * 1000
        result["model_state"] = host.result("hello")["model"].get("state")
        # Cancel latency with the model warm: cancel once generation streams progress.
        job = host.send("rewrite", {"text": LLM_TEXT * 3, "options": {"strength": "strong"}})
        stages = []
        while len(stages) < 50:
            message = host.recv(120)
            if message.get("id") != job or message["type"] != "progress":
                break
            stages.append(message["stage"])
            if message["stage"] not in ("queued", "analyze", "neutralize", "load", "load_model"):
                break
        cancel_sent = time.perf_counter()
        host.send("cancel", {"target": job})
        reply, _ = host.final(job, 300)
        result["cancel_ms"] = (time.perf_counter() - cancel_sent) * 1000
        result["cancel_reply"] = reply.get("error", {}).get("name", reply["type"])
        result["cancel_stage"] = stages[-1] if stages else None
        assert host.close() == 0
    return elapsed, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hellos", type=int, default=500)
    parser.add_argument("--starts", type=int, default=10)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as home:
        env = host_env(FANTASMA_HOME=home)
        env.pop("FANTASMA_HOST_DEBUG")
        lat = hello_latency(args.hellos, env)
        print(
            f"hello round trip over pipes (n={len(lat)}): median {statistics.median(lat):.3f} ms, "
            f"p95 {percentile(lat, 0.95):.3f} ms, max {max(lat):.3f} ms"
        )
        ready = start_to_ready(args.starts, env)
        print(
            f"start-to-ready, no model (spawn -> first hello result, n={len(ready)}): "
            f"median {statistics.median(ready):.0f} ms, p95 {percentile(ready, 0.95):.0f} ms"
        )
    # With the model: the user's real data dirs (where `fantasma setup` put the default model).
    real_env = host_env()
    real_env.pop("FANTASMA_HOME", None)
    real_env.pop("FANTASMA_HOST_DEBUG")
    probe = subprocess.run(
        [sys.executable, "-c", "import native_host.rewrite as r, native_host.paths as p;"
         "print(hasattr(r, 'rewrite'), p.default_model_dir(), p.default_model_dir().is_dir())"],
        capture_output=True, text=True, env=real_env, cwd=REPO,
    )  # fmt: skip
    fields = probe.stdout.split()
    if probe.returncode != 0 or len(fields) < 3 or fields[0] != "True" or fields[-1] != "True":
        where = fields[1] if len(fields) > 1 else "?"
        print(
            f"start-to-ready with the model: not measured (native_host.rewrite or the model dir {where} is missing)"
        )
        return 0
    elapsed, result = start_to_first_llm_rewrite(real_env)
    print(
        f"start-to-ready with the model (spawn -> first rewrite result, model loaded lazily): {elapsed:.0f} ms "
        f"(path {result.get('path')}, model state after: {result.get('model_state')}, reason {result.get('reason')!r})"
    )
    print(f"  rewrite timings: {result.get('timings')}")
    print(
        f"cancel during an LLM rewrite (model warm, cancelled at stage {result['cancel_stage']!r}): "
        f"{result['cancel_ms']:.0f} ms to the final reply ({result['cancel_reply']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

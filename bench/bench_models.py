"""A `medium` rewrite with the hybrid Qwen3.5-0.8B shape next to the embedded model, in the same run.

    nice .venv/bin/python bench/bench_models.py [--repeats 2] [--threads N]

What it measures, for each model, in a fresh process of its own (what the host is when it starts):
- first rewrite after start: from spawning the process to the first `medium` rewrite's result (Python
  start-up, imports, loading the model and the embedder, warming the prompt prefix, the rewrite);
- warm `medium` time per 100 words: the same text rewritten `--repeats` more times in that process
  (other seeds), seconds per 100 words of input, median;
- peak RSS of that process (VmHWM) over all of it.
Against what: the embedded model (SmolLM2-135M-Instruct int4 with the shipped adapter, as `fantasma setup`
installs it) in the same run, so the two see the same machine load; the figures are printed side by side
with hybrid / embedded ratios. Each model runs with the pipeline's defaults for it: the embedded model
scores the search's fluency guard and writes no windows (`llm_windows` off for small models), the hybrid
model, above the size threshold, also writes the restructuring windows that join the search's pool
(docs/rewrite.md, "Models above the size threshold").

The hybrid is a random-weight checkpoint of the exact Qwen3.5-0.8B text shape (bench/bench_qwen35_vs_genai.py
builds it, cached under bench/out/; exported here with our int4 exporter when the export is older than
export/*.py). Random weights never write eos, so each window's candidates run to the pipeline's token
budget (1.6 × the window's tokens + 12) and every candidate is refused by the guards: the hybrid's time is
an upper bound of what a trained 0.8B model costs on the same text, and its output equals the search's
rule edits. The embedded model is installed with `fantasma setup` into bench/out/home (FANTASMA_HOME)
when it is not there yet; both runs read that home, with the profile off (typicality), so no user data
is read.

Goal (issue 27): a user who picks the 0.8B hybrid knows what a rewrite costs next to the default; the
README's "Use a stronger model" quotes the time per 100 words. Current figures: docs/results.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
HOME = OUT / "home"

# ~140 words of forum prose with markers the neutralizer leaves (pet phrases, British words, hedges,
# long and short sentences), so medium has sentences to restructure and rule edits to choose from.
TEXT = (
    "To be fair, I reckon the new parking policy is a bit of a shambles, and at the end of the day "
    "nobody on the committee seems to have actually read the survey we sent round in the spring. "
    "Honestly, the whole thing was decided in one meeting that ran for ten minutes. "
    "The car park behind the library used to be free after six, which suited the evening classes, "
    "whereas now everyone pays the same rate all night, regardless of whether they stay for an hour. "
    "I have asked twice for the figures behind the change and have had no answer at all. "
    "If the council wants people to come into town in the evenings, it should not make it harder "
    "for them, to be fair. "
    "Anyway, I will raise it again at the residents' meeting on the fourth, and I would be glad of "
    "a few more voices there."
)


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(model_dir: Path, repeats: int, threads: int | None) -> dict:
    """In the child: the first rewrite, then `repeats` warm ones; prints one JSON line."""
    from native_host.rewrite import RewriteOptions, rewrite

    def once(seed: int) -> tuple[float, dict]:
        options = RewriteOptions(
            strength="medium", model_dir=model_dir, use_profile=False, seed=seed, threads=threads
        )
        started = time.perf_counter()
        result = rewrite(TEXT, options)
        return time.perf_counter() - started, result.to_json()

    first_s, first = once(0)
    first_done = time.time()
    warm = [once(seed)[0] for seed in range(1, repeats + 1)]
    from native_host.rewrite import models

    engine = models.get_engine(model_dir, threads)
    return {
        "first_done_at": first_done,
        "first_rewrite_s": first_s,
        "warm_s": warm,
        "peak_rss_mb": peak_rss_mb(),
        "windows": len(first["windows"]),
        "candidates": sum(w["candidates"] for w in first["windows"]),
        "windows_passed": sum(1 for w in first["windows"] if w["path"] == "llm"),
        "applied_edits": len((first.get("search") or {}).get("applied", [])),
        "path": first["path"],
        "timings": first["timings"],
        "threads": getattr(engine, "threads", None),
    }


def run_child(model_dir: Path, repeats: int, threads: int | None) -> dict:
    env = {**os.environ, "FANTASMA_HOME": str(HOME), "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, __file__, "--child", str(model_dir), "--repeats", str(repeats)]
    if threads:
        cmd += ["--threads", str(threads)]
    spawned = time.time()
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    row = json.loads(done.stdout.strip().splitlines()[-1])
    row["start_to_first_s"] = row.pop("first_done_at") - spawned
    return row


def embedded_dir() -> Path:
    """The embedded model dir in bench/out/home, installed by `fantasma setup` when missing."""
    env = {**os.environ, "FANTASMA_HOME": str(HOME)}
    probe = "from native_host import paths; print(paths.default_model_dir())"
    found = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, env=env)
    where = Path(found.stdout.strip())
    if not (where / "fantasma_model.json").is_file():
        print(f"installing the embedded model into {HOME} (fantasma setup) ...", flush=True)
        subprocess.run([sys.executable, "-m", "native_host.cli", "setup"], check=True, env=env)
    return where


def hybrid_dir(threads: int | None) -> Path:
    sys.path.insert(0, str(REPO / "bench"))
    from bench_qwen35_vs_genai import CKPT, OURS, build_checkpoint, export_is_current, export_ours

    OUT.mkdir(parents=True, exist_ok=True)
    if not (CKPT / "text_params.json").is_file():
        build_checkpoint()
    if not export_is_current(OURS):
        print(f"exporting the 0.8B-shape hybrid (int4) to {OURS} ...", flush=True)
        export_ours(OURS)
        from native_host.engine import Engine

        Engine.prepare(OURS, threads=threads)  # what `fantasma setup` runs after its export
    return OURS


def words() -> int:
    return len(TEXT.split())


def machine() -> str:
    """The commit (and whether the tree has uncommitted changes), the CPU and its core count."""

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True).stdout.strip()

    cpus = [line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")]
    cpu = cpus[0].split(":", 1)[1].strip() if cpus else platform.processor()
    dirty = " (+ uncommitted changes)" if git("status", "--porcelain") else ""
    return f"commit {git('rev-parse', '--short', 'HEAD')}{dirty}; {cpu}, {os.cpu_count()} cores"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=2, help="warm rewrites after the first (default 2)")
    parser.add_argument("--threads", type=int, help="intra-op threads (default: the pipeline's own)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.repeats, args.threads)))
        return 0

    models = {"embedded": embedded_dir(), "hybrid-0.8B": hybrid_dir(args.threads)}
    print(f"{machine()}; text {words()} words; {args.repeats} warm repeats", flush=True)
    rows = {}
    for name, model_dir in models.items():
        print(f"measuring {name} ({model_dir}) ...", flush=True)
        rows[name] = run_child(model_dir, args.repeats, args.threads)
        print(f"  {json.dumps(rows[name])}", flush=True)

    def per_100(row: dict) -> float:
        return statistics.median(row["warm_s"]) / words() * 100

    header = f"{'':<28}" + "".join(f"{name:>14}" for name in rows) + f"{'ratio':>10}"
    print(header)
    lines = [
        ("medium s / 100 words (warm)", per_100),
        ("first rewrite after start s", lambda r: r["start_to_first_s"]),
        ("peak RSS MB", lambda r: r["peak_rss_mb"]),
        ("LLM windows (first run)", lambda r: r["windows"]),
        ("window candidates", lambda r: r["candidates"]),
        ("edits applied", lambda r: r["applied_edits"]),
    ]
    embedded, hybrid = rows["embedded"], rows["hybrid-0.8B"]
    for label, value in lines:
        a, b = value(embedded), value(hybrid)
        ratio = f"{b / a:>9.2f}x" if a else f"{'-':>10}"
        print(f"{label:<28}{a:>14.2f}{b:>14.2f}{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

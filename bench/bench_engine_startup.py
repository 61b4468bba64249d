"""Engine start-up: where the time from a fresh process to the first token goes.

    .venv/bin/python bench/bench_engine_startup.py [--model DIR] [--rounds 5] [--against REV]

Each start is a fresh Python process (what the host pays on the first rewrite of a browser session):
import the engine, `Engine.load`, then the first token of a short prompt. Variants, interleaved round
by round so load from other processes hits them alike; best and median of `--rounds`:
- `cold`: the checks cache bypassed (FANTASMA_NO_CHECK_CACHE=1): op check + three load-time checks;
- `warm`: the checks read from the per-user cache (every start after the first for this model);
- `REV` (with --against): the engine of that git revision of this repository (a temporary worktree).
Per step (from `Engine.load_timings`): session (graph optimization + weight prepacking, + the op check
when cold), checks, tokenizer (read in parallel with the session).
Goal: a warm start pays nothing for the checks and is not slower than REV (the start-up a user waits for
on the first rewrite of a browser session; current figures in docs/results.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
started = time.perf_counter()
from native_host.engine import Engine, GenerationOptions
imported = time.perf_counter()
engine = Engine.load(sys.argv[1])
loaded = time.perf_counter()
ids = engine.encode("The lighthouse keeper climbed the stairs")
engine.generate(ids, GenerationOptions(max_new_tokens=1, speculative=False, reuse_prefix=False))
done = time.perf_counter()
print(json.dumps({"import_s": imported - started, "load_s": loaded - imported,
                  "first_token_s": done - loaded, "total_s": done - started,
                  "steps": getattr(engine, "load_timings", {})}))
"""


def run_child(tree: Path, model: Path, env: dict[str, str]) -> dict:
    env = {**env, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(model)],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def default_model() -> Path:
    sys.path.insert(0, str(REPO))
    from native_host import paths

    return paths.default_model_dir()


def summary(runs: list[dict], key: str) -> str:
    values = [run[key] if key in run else run["steps"].get(key, float("nan")) for run in runs]
    return f"{min(values):6.2f} / {statistics.median(values):6.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", help="a git revision whose engine to compare with (e.g. main~3)")
    args = parser.parse_args()
    model = args.model or default_model()
    base_env = {k: v for k, v in os.environ.items() if k != "FANTASMA_NO_CHECK_CACHE"}
    with tempfile.TemporaryDirectory() as tmp:
        variants: dict[str, tuple[Path, dict[str, str]]] = {
            "cold": (REPO, {**base_env, "FANTASMA_NO_CHECK_CACHE": "1"}),
            "warm": (REPO, base_env),
        }
        against_tree = Path(tmp) / "against"
        if args.against:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "add", "--detach", str(against_tree), args.against],
                check=True,
                capture_output=True,
            )
            variants[args.against] = (against_tree, base_env)
        try:
            run_child(REPO, model, base_env)  # fills the checks cache and the page cache
            runs: dict[str, list[dict]] = {name: [] for name in variants}
            names = list(variants)
            for round_index in range(args.rounds):
                shift = round_index % len(names)
                for name in names[shift:] + names[:shift]:
                    tree, env = variants[name]
                    runs[name].append(run_child(tree, model, env))
                print(f"  round {round_index + 1}/{args.rounds} done", file=sys.stderr, flush=True)
        finally:
            if args.against:  # only the temporary worktree made above
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(against_tree)],
                    capture_output=True,
                )
    print(f"model {model}, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs; best / median s")
    keys = ["import_s", "load_s", "session_s", "checks_s", "tokenizer_s", "first_token_s", "total_s"]
    print(f"{'step':<16}" + "".join(f"{name:>18}" for name in runs))
    for key in keys:
        print(f"{key:<16}" + "".join(f"{summary(values, key):>18}" for values in runs.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

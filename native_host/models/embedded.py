"""One atomic setup step: a complete dir written into a staging sibling, renamed into place at the end,
so a crash or Ctrl-C never leaves a half-written model where the engine would find it. Used by `fantasma
setup` (the embedded models) and by `fantasma setup --model` (another model, and the embedder it needs).
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from native_host import paths


@dataclass(frozen=True)
class SetupStep:
    name: str  # what the user reads
    target: Callable[[], Path]  # where the finished dir lives (a paths.* function)
    build: Callable[[Path], None]  # writes a complete dir at the given (staging) path
    ready: Callable[[Path], bool]  # is the target already complete?
    # run on the finished dir after the rename (warms caches keyed by its final path); a failure there
    # costs only the work the first load then does itself, so it does not fail the setup
    after: Callable[[Path], None] | None = None


def _export_embedder(out_dir: Path) -> None:
    from export.bert import export_embedder
    from native_host.assets import minilm_dir

    export_embedder(minilm_dir(), out_dir)


def _embedder_ready(path: Path) -> bool:
    from export.bert import embedder_ready

    return embedder_ready(path)


EMBEDDER_STEP = SetupStep(
    "meaning embedder all-MiniLM-L6-v2 (fp32)",
    paths.embedder_dir,
    _export_embedder,
    _embedder_ready,
)


def _size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def run_step(step: SetupStep, force: bool) -> str:
    """Do one step atomically; returns the line to print."""
    target = step.target()
    if step.ready(target) and not force:
        return f"{step.name}: already set up in {target} ({_size_mb(target):.1f} MB)"
    target.parent.mkdir(parents=True, exist_ok=True)
    for stale in target.parent.glob(f".*{target.name}.*"):  # left by a crashed earlier run
        shutil.rmtree(stale, ignore_errors=True)
    staging = target.with_name(f".{target.name}.staging")
    started = time.perf_counter()
    try:
        step.build(staging)
        if not step.ready(staging):
            raise RuntimeError(f"{step.name}: the export finished but {staging} is incomplete")
        retired = target.with_name(f".{target.name}.retired")
        if target.exists():
            target.rename(retired)
        staging.rename(target)
        shutil.rmtree(retired, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if step.after is not None:
        # only a cache: on failure the first load does the same work and reports what is wrong
        with contextlib.suppress(Exception):
            step.after(target)
    seconds = time.perf_counter() - started
    return f"{step.name}: exported to {target} ({_size_mb(target):.1f} MB) in {seconds:.1f} s"

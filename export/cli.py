"""`fantasma-export SOURCE OUT [--precision int4|fp32] [--block-size 32] [--head-block-size N] [--accuracy-level 4] [--force]`

SOURCE is a Hugging Face checkpoint dir, a .gguf file, or a hub id (`owner/name`, `owner/name/file.gguf`).
`export_model()` is the library entry point (`fantasma setup` uses it): it writes into a temporary
sibling of OUT and renames it into place, so OUT is either absent, the old model, or a complete new one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from export.graph import Precision
from export.registry import ExportOptions, ProgressFn, detect_architecture, exporter_for

ACCURACY_LEVELS = (0, 1, 2, 3, 4)  # MatMulNBits: 0 = unset, 1 fp32, 2 fp16, 3 bf16, 4 int8 activations


@dataclass(frozen=True)
class ExportSummary:
    architecture: str
    out_dir: Path
    size_bytes: int
    seconds: float


class ExportError(Exception):
    """A user-facing export failure; the message is printed as is."""


def resolve_source(source: str) -> tuple[Path, str]:
    """(local path, label for fantasma_model.json); hub ids are downloaded."""
    from export.hub import HubError, fetch, looks_like_hub_id

    path = Path(source).expanduser()
    if path.exists():
        return path, str(path.resolve())
    if looks_like_hub_id(source):
        try:
            return fetch(source), source
        except HubError as exc:
            raise ExportError(str(exc)) from None
    raise ExportError(f"{source}: no such file or directory, and not a hub id (owner/name)")


def _replace_dir(new: Path, target: Path) -> None:
    """Move the finished `new` into `target`; an existing target is swapped out first, then removed."""
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists():
        target.rename(old)
    new.rename(target)
    if old.is_dir():
        shutil.rmtree(old, ignore_errors=True)
    else:
        old.unlink(missing_ok=True)


def export_model(
    source: str | Path,
    out_dir: Path,
    options: ExportOptions,
    progress: ProgressFn | None = None,
) -> ExportSummary:
    """Export SOURCE into OUT atomically; raises ExportError with a user-facing message."""
    from export.gguf_source import GGUFError
    from export.hf_source import CheckpointError
    from export.modeldir import ModelDirError, dir_size_bytes
    from export.registry import UnsupportedCheckpoint

    started = time.perf_counter()
    path, label = resolve_source(str(source))
    out_dir = Path(out_dir)
    if out_dir.resolve() == path.resolve() or out_dir.resolve() in path.resolve().parents:
        raise ExportError(f"{out_dir}: would replace the source {path}; choose another output dir")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = out_dir.with_name(f".{out_dir.name}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        architecture = detect_architecture(path)
        exporter = exporter_for(architecture)
        exporter(path, staging, ExportOptions(options.precision, options.source_label or label), progress)
        _replace_dir(staging, out_dir)
    except (UnsupportedCheckpoint, CheckpointError, GGUFError, ModelDirError, FileNotFoundError) as exc:
        raise ExportError(str(exc)) from None
    except (KeyError, ValueError) as exc:  # a checkpoint missing a tensor or config field we need
        raise ExportError(
            f"{path}: unexpected checkpoint contents ({exc.__class__.__name__}: {exc})"
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ExportSummary(architecture, out_dir, dir_size_bytes(out_dir), time.perf_counter() - started)


def _block_size(text: str) -> int:
    value = int(text)
    if value < 16 or value & (value - 1):
        raise argparse.ArgumentTypeError(f"must be a power of two >= 16, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fantasma-export",
        description="Export a checkpoint (HF dir, .gguf file or hub id) to a Fantasma model dir (ONNX).",
    )
    parser.add_argument("source", metavar="SOURCE", help="checkpoint dir, .gguf file, or hub id owner/name")
    parser.add_argument("out", metavar="OUT", type=Path, help="model dir to write")
    parser.add_argument("--precision", choices=("int4", "fp32"), default="int4")
    parser.add_argument("--block-size", type=_block_size, default=32, help="int4 block size (default 32)")
    parser.add_argument(
        "--head-block-size",
        type=_block_size,
        default=None,
        help="int4 block size of the lm_head and a tied embedding (default: --block-size)",
    )
    parser.add_argument(
        "--accuracy-level",
        type=int,
        choices=ACCURACY_LEVELS,
        default=4,
        help="MatMulNBits compute type; 4 = int8 activations, fastest on CPU (default 4)",
    )
    parser.add_argument("--force", action="store_true", help="replace OUT if it already exists")
    return parser


def options_from_args(args: argparse.Namespace) -> ExportOptions:
    return ExportOptions(
        Precision(args.precision, args.block_size, args.accuracy_level, args.head_block_size)
    )


class TqdmProgress:
    """A progress bar on stderr, opened on the exporter's first report (errors before that print alone)."""

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, done: int, total: int, what: str) -> None:
        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(
                total=total, unit="step", file=sys.stderr, dynamic_ncols=True, leave=False, disable=None
            )
        self.bar.total = total
        self.bar.set_description(what)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    options = options_from_args(args)
    occupied = args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir()))
    if occupied and not args.force:
        print(
            f"fantasma-export: error: {args.out} already exists (use --force to replace it)", file=sys.stderr
        )
        return 2
    progress = TqdmProgress()
    try:
        summary = export_model(args.source, args.out, options, progress)
    except ExportError as exc:
        progress.close()
        print(f"fantasma-export: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        progress.close()
        print("fantasma-export: interrupted; OUT was left as it was", file=sys.stderr)
        return 130
    progress.close()
    precision = options.precision
    detail = f"int4, block {precision.block_size}" if precision.quantized else "fp32"
    if precision.quantized and precision.head_block_size is not None:
        detail += f", lm_head block {precision.head_block_size}"
    print(
        f"exported {summary.architecture} ({detail}) to {summary.out_dir}: "
        f"{summary.size_bytes / 1e6:.1f} MB in {summary.seconds:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

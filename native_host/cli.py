"""The `fantasma` command. Each sub-command lives in its own module under `native_host.commands`
and exposes `register(subparsers)`; this file only discovers them, so rooms never edit a shared list.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from native_host import __version__, commands, paths
from native_host.commands._io import InputError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fantasma", description="Find and remove the writing habits that identify you."
    )
    parser.add_argument("--version", action="version", version=f"fantasma {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except InputError as exc:  # a bad FILE or stdin (commands/_io.py): one line, nothing else printed
        print(f"fantasma {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a write no command wrapped (commands/_io.py `storage`): still one line
        reason = paths.storage_failure(exc)
        if reason is None:
            raise
        where = exc.filename or "a file of yours"
        print(f"fantasma {args.command}: cannot use {where}: {reason}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

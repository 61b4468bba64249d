"""`fantasma-host install|uninstall|doctor` (the bare command serves the browser; see native_host.host)."""

from __future__ import annotations

import argparse
import sys

from native_host import __version__
from native_host.install.doctor import doctor
from native_host.install.installer import Env, InstallError, install, uninstall
from native_host.install.locations import BY_NAME


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fantasma-host",
        description="Fantasma's native-messaging host. Without a command it serves a browser on stdin/stdout.",
    )
    parser.add_argument("--version", action="version", version=f"fantasma-host {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    inst = sub.add_parser("install", help="register the host with your browsers")
    inst.add_argument(
        "--browser",
        action="append",
        choices=[*BY_NAME, "all"],
        help="browser to register (repeatable); default: every browser with a profile in your home",
    )
    inst.add_argument(
        "--system", action="store_true", help="register for every user (needs root/administrator)"
    )
    uninst = sub.add_parser("uninstall", help="remove exactly what install wrote")
    uninst.add_argument("--system", action="store_true", help="undo a --system install")
    doc = sub.add_parser("doctor", help="check the registration and talk to the host once")
    doc.add_argument("--system", action="store_true", help="check the --system registration")
    doc.add_argument(
        "--delete-telemetry-queue",
        action="store_true",
        help="delete onnxruntime's telemetry queue (~/.cache/Microsoft/DeveloperTools/.onnxruntime) if found",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    env = Env.current(system=args.system)
    try:
        if args.command == "install":
            install(env, args.browser)
            status = 0
        elif args.command == "uninstall":
            uninstall(env)
            status = 0
        else:
            status = doctor(env, delete_telemetry_queue=args.delete_telemetry_queue)
    except InstallError as exc:
        for line in env.out:
            print(line)
        print(f"fantasma-host {args.command}: {exc}", file=sys.stderr)
        return 2
    for line in env.out:
        print(line)
    return status

"""The native-messaging host (`fantasma-host`): stdio frames in, jobs, frames out. See PROTOCOL.md.

`fantasma-host` with no arguments (or with the arguments a browser passes: the caller's origin,
`--parent-window=`, a manifest path) serves one port; `install`, `uninstall`, `doctor` manage the
browser registration (native_host.install).
"""

from __future__ import annotations

import sys

INSTALLER_COMMANDS = ("install", "uninstall", "doctor", "-h", "--help", "--version")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in INSTALLER_COMMANDS:
        from native_host.install.cli import main as installer_main

        return installer_main(args)
    from native_host.host.stdio import serve_stdio

    return serve_stdio()

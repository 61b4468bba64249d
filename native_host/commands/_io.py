"""Shared input handling for commands that read a text: FILE or '-' (stdin)."""

from __future__ import annotations

import sys
from pathlib import Path


class InputError(Exception):
    """A user-facing problem with the input; cli.main prints the message as is, exit status 2."""


def read_text(source: str) -> str:
    if source == "-":
        data = sys.stdin.buffer.read()
        name = "standard input"
    else:
        path = Path(source)
        if not path.exists():
            raise InputError(f"{source}: no such file")
        if path.is_dir():
            raise InputError(f"{source}: is a directory, expected a text file")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"{source}: cannot read ({exc.strerror})") from exc
        name = source
    if b"\x00" in data[:8192]:
        raise InputError(f"{name}: looks like a binary file (contains NUL bytes); expected UTF-8 text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{name}: not valid UTF-8 (byte {exc.start}: 0x{data[exc.start]:02x}); save it as UTF-8 and retry"
        ) from exc
    if not text.strip():
        raise InputError(f"{name}: is empty; nothing to analyze")
    return text

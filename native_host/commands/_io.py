"""Shared input and output handling for commands: the text they read (FILE or '-', stdin), and the
user's files they write, whose failures (a full disk, a read-only file system, no permission) are one
line, never a traceback."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

from native_host import paths


class InputError(Exception):
    """A user-facing problem with the input; cli.main prints the message as is, exit status 2."""


class StorageError(InputError):
    """Writing the user's files failed; the message says what and why. Every write is atomic
    (paths.write_private, the setup steps' staging dirs), so what was there is left as it was."""


@contextlib.contextmanager
def storage(doing: str) -> Iterator[None]:
    """Any OSError inside is a failed write: StorageError "cannot `doing`: why" (cli.main prints it
    as one line, exit status 2)."""
    try:
        yield
    except OSError as exc:
        raise StorageError(f"cannot {doing}: {paths.storage_reason(exc)}") from exc


def storage_error(doing: str, exc: BaseException) -> StorageError | None:
    """StorageError for `exc` when it is a storage failure (full disk, read-only, no permission),
    else None: for the places where an OSError may also be something else (a missing input file)."""
    reason = paths.storage_failure(exc)
    return None if reason is None else StorageError(f"cannot {doing}: {reason}")


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

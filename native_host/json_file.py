"""Reading a file that holds one JSON object, with the reason in words when it does not.

The one home of "read JSON and explain the error": export/modeldir.py (`read_meta`, which turns the
reason into a ModelDirError) and native_host/models/ (the registry's provenance files, the cost file,
which read a bad file as empty) both read through here. A leaf: the standard library only, so export/
may import it without loading anything of the host.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class JsonFileError(ValueError):
    """The file is not UTF-8, not JSON, or not an object; the message says which, with the path."""


def read_object(path: Path) -> dict[str, Any]:
    """The JSON object in `path`; JsonFileError when it is not one. A file that cannot be read at all
    (missing, no permission) raises the OSError as it is: only the caller knows what a missing file means."""
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JsonFileError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise JsonFileError(f"{path}: expected a JSON object")
    return value


def read_object_or_empty(path: Path) -> dict[str, Any]:
    """The JSON object in `path`, or {} when there is none to read (missing, unreadable, not an object):
    for state files whose absence or damage only means "nothing recorded"."""
    try:
        return read_object(path)
    except (OSError, ValueError):
        return {}

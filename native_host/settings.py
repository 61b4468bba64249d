"""User settings, one JSON file at `native_host.paths.settings_path()`.

One table (`SETTINGS`) names every key with its default and validator; PROTOCOL.md's settings table
mirrors it, and says which request params override which key. The host reads the file at the start of
every job (`load_settings`), so a `settings.set` applies from the next job on. Writes are atomic and
private (`paths.write_private`: 0600, fsync, rename) so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from native_host import paths

log = logging.getLogger(__name__)

STRENGTHS = ("light", "medium", "strong")
# The name of an installed model dir (native_host/models/registry.py); what `fantasma setup --model --name` allows.
MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# What an identifiability report (and a rewrite's reason) says when `use_profile` is off.
PROFILE_OFF = "the profile is off (use_profile); scored by typicality, without your profile or samples"


class SettingsError(ValueError):
    """A key or value the user (or extension) gave is not acceptable; the message says why."""


class SettingsStorageError(OSError):
    """The settings file could not be written."""


@dataclass(frozen=True)
class Setting:
    default: Any
    check: Callable[[Any], bool]
    expected: str  # human description for the error message


def _is_int_in(low: int, high: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


SETTINGS: dict[str, Setting] = {
    "default_strength": Setting("medium", lambda v: v in STRENGTHS, "one of light, medium, strong"),
    "candidates": Setting(3, _is_int_in(1, 8), "an integer from 1 to 8"),
    "protected_terms": Setting(
        [],
        lambda v: isinstance(v, list) and all(isinstance(t, str) and 0 < len(t) <= 200 for t in v),
        "a list of non-empty strings (at most 200 characters each)",
    ),
    "use_profile": Setting(True, lambda v: isinstance(v, bool), "true or false"),
    "threads": Setting(None, lambda v: v is None or _is_int_in(1, 64)(v), "null or an integer from 1 to 64"),
    # The model that rewrites: null = the embedded default; a name = an installed model (`fantasma models`).
    # Whether that name is installed is checked where it is set (models/registry.py `use`); one removed since
    # then falls back to the embedded default with the reason (`active`).
    "model": Setting(
        None,
        lambda v: v is None or (isinstance(v, str) and bool(MODEL_NAME.match(v))),
        "null (the embedded model) or the name of an installed model (fantasma models)",
    ),
}


def defaults() -> dict[str, Any]:
    return {key: json.loads(json.dumps(s.default)) for key, s in SETTINGS.items()}


def validate(changes: Any) -> dict[str, Any]:
    if not isinstance(changes, dict):
        raise SettingsError("settings must be an object")
    for key, value in changes.items():
        setting = SETTINGS.get(key)
        if setting is None:
            raise SettingsError(f"unknown setting '{key}' (known: {', '.join(SETTINGS)})")
        if not setting.check(value):
            raise SettingsError(f"setting '{key}' must be {setting.expected}")
    return dict(changes)


def load_settings() -> dict[str, Any]:
    """Every key, defaults filled in. A missing or unreadable file gives the defaults (logged)."""
    merged = defaults()
    path = paths.settings_path()
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return merged
    except (OSError, ValueError) as exc:
        log.warning("settings file %s unreadable (%s); using defaults", path, exc)
        return merged
    if isinstance(stored, dict):
        for key, value in stored.items():
            setting = SETTINGS.get(key)
            if setting is not None and setting.check(value):
                merged[key] = value
    return merged


def merge_terms(*lists: Any) -> tuple[str, ...]:
    """Protected terms from several sources (the settings' first, then the request's), each once."""
    return tuple(dict.fromkeys(term for terms in lists for term in terms))


def update_settings(changes: Any) -> dict[str, Any]:
    """Validate all changes first, then write them; nothing is written if any change is bad."""
    valid = validate(changes)
    merged = load_settings()
    merged.update(valid)
    path = paths.settings_path()
    try:
        paths.write_private(path, (json.dumps(merged, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    except OSError as exc:
        raise SettingsStorageError(f"cannot write settings to {path}: {paths.storage_reason(exc)}") from exc
    return merged

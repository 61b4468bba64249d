"""What every handler gets and may raise, and the few helpers more than one request family uses.

A handler takes (params, ctx) and returns the `result` object, or raises ProtocolError; a job that sees
its cancel event set raises `Cancelled` (server.py answers `cancelled`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from native_host import settings
from native_host.host.errors import ErrorCode, ProtocolError

log = logging.getLogger("native_host.host")

# Tests only: "1" adds the `debug.sleep` job and the rewrite's debug switches (docs/host.md).
DEBUG_ENV = "FANTASMA_HOST_DEBUG"
# Pipeline stage names that differ from the wire names in PROTOCOL.md.
WIRE_STAGES = {"load": "load_model"}


class Cancelled(Exception):
    """Raised inside a job when its cancel event is set."""


class HostControl(Protocol):
    """What a handler may ask of the host that runs it (server.Host)."""

    def cancel(self, target: str) -> bool: ...

    def types(self) -> list[str]: ...


@dataclass
class Context:
    request_id: str
    cancel: threading.Event
    # (stage, fraction, message[, detail]): detail holds the optional `done`, `total`, `eta_s` (PROTOCOL.md §2)
    progress: Callable[..., None]
    host: HostControl

    def check_cancelled(self) -> None:
        if self.cancel.is_set():
            raise Cancelled

    def forward_progress(self, event: dict[str, Any]) -> None:
        """Adapter for `on_progress(dict)` callbacks of the rewrite pipeline."""
        fraction = event.get("fraction")
        if not isinstance(fraction, int | float) or isinstance(fraction, bool):
            fraction = None
        stage = str(event.get("stage", "work"))
        detail = {key: event[key] for key in ("done", "total", "eta_s") if key in event}
        self.progress(WIRE_STAGES.get(stage, stage), fraction, str(event.get("message", "")), detail)


Handler = Callable[[dict[str, Any], Context], dict[str, Any]]


# Where a request runs (server.py): READER answers on the reader thread at once; JOBS queue for the one
# job worker (the long ones: models, rewrites, writes), LIGHT for the light worker (quick analysis, no
# model), so a `guide` is answered while a rewrite or alternatives run.
READER, JOBS, LIGHT = "reader", "jobs", "light"
WORKER_LANES = (JOBS, LIGHT)


@dataclass(frozen=True)
class Route:
    handler: Handler
    lane: str = JOBS

    @property
    def immediate(self) -> bool:
        return self.lane == READER


def current_settings() -> dict[str, Any]:
    """The user's settings, read per job: a `settings.set` applies from the next job on."""
    return settings.load_settings()


def profile_off_note(use_profile: bool) -> str:
    return "" if use_profile else settings.PROFILE_OFF


def load_profile(strict: bool = False) -> Any:
    """The saved profile or None. Unreadable: storage_error when `strict`, else None (logged), so a
    corrupt profile never blocks an analysis."""
    from native_host.style.profile import ProfileError
    from native_host.style.profile import load_profile as load

    try:
        return load()
    except (OSError, ProfileError) as exc:
        if strict:
            raise ProtocolError(ErrorCode.storage_error, f"cannot read the profile: {exc}") from exc
        log.warning("profile unreadable, analyzing without it: %s", exc)
        return None

"""The session's requests, answered on the reader thread: `hello`, `cancel`, `settings.get`,
`settings.set`, `models`; and `debug.sleep` (tests only), a slow cancellable job."""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from native_host import __version__, settings
from native_host.host import framing, schema
from native_host.host.errors import ErrorCode, ProtocolError
from native_host.host.handlers.context import Context

log = logging.getLogger("native_host.host")

HOST_NAME = "org.fantasma.host"


def hello(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    wanted = params.get("protocol")
    if wanted is not None and wanted != framing.PROTOCOL_VERSION:
        raise ProtocolError(
            ErrorCode.unsupported_protocol,
            f"this host speaks protocol {framing.PROTOCOL_VERSION}, not {wanted!r}; update Fantasma",
            {"supported": [framing.PROTOCOL_VERSION]},
        )
    return {
        "app": "fantasma",
        "version": __version__,
        "protocol": framing.PROTOCOL_VERSION,
        "host": HOST_NAME,
        "model": model_status(),
        "rewrite_path": "llm",  # the pipeline is part of the host; whether a model is usable is `model`
        "limits": {
            "max_incoming_bytes": framing.MAX_INCOMING_FRAME,
            "max_frame_bytes": framing.MAX_OUTGOING_FRAME,
        },
        "types": ctx.host.types(),
    }


def model_status() -> dict[str, Any]:
    """`hello.model`: the answering model's load state and what it is (native_host/models/choice.py)."""
    from native_host.models import choice as model_choice

    try:
        return model_choice.status()
    except Exception as exc:
        log.exception("model_status failed")
        return {"state": "error", "reason": f"{type(exc).__name__}: {exc}"}


def cancel(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    target = params.get("target")
    if not isinstance(target, str) or not target:
        raise schema.invalid("params.target must be the id of the request to cancel")
    return {"cancelled": ctx.host.cancel(target)}


def settings_get(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return {"settings": settings.load_settings()}


def settings_set(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host.models import choice as model_choice

    changes = params.get("settings")
    try:
        if isinstance(changes, dict) and "model" in changes:
            settings.validate(changes)
            _check_model(changes["model"])  # an installed model's name, like `models` with `use`
        held = settings.update_settings(changes)
        if isinstance(changes, dict) and "model" in changes:
            model_choice.after_settings_change()
        return {"settings": held}
    except settings.SettingsError as exc:
        raise schema.invalid(str(exc)) from exc
    except settings.SettingsStorageError as exc:
        raise ProtocolError(ErrorCode.storage_error, str(exc)) from exc


def models_(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """The installed models and the answering one; with `use` (a name, or null for the embedded
    default) the active model changes first and the old one's engine is dropped (PROTOCOL.md)."""
    from native_host.models import choice as model_choice

    if "use" in params:
        name = params["use"]
        if name is not None and not isinstance(name, str):
            raise schema.invalid("params.use must be the name of an installed model, or null")
        _check_model(name)
        try:
            model_choice.choose(name)
        except settings.SettingsStorageError as exc:
            raise ProtocolError(ErrorCode.storage_error, str(exc)) from exc
    return model_choice.listing()


def _check_model(name: Any) -> None:
    from native_host.models import choice as model_choice
    from native_host.models.registry import RegistryError

    try:
        model_choice.check(name)
    except RegistryError as exc:
        raise ProtocolError(ErrorCode.unknown_model, str(exc)) from exc


def debug_sleep(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Tests only (FANTASMA_HOST_DEBUG=1): a slow, cancellable job with an optional large result."""
    seconds = schema.number(params, "seconds", 1.0, 0.0, 60.0)
    result_bytes = schema.integer(params, "result_bytes", 0, 0, 4_000_000)
    if schema.boolean(params, "stray_output", default=False):
        # What a careless library might do; must land on stderr, never in the frame stream.
        print("stray print from a job")
        os.write(1, b"stray bytes written to fd 1\n")
    start = time.monotonic()
    step = 0
    while (elapsed := time.monotonic() - start) < seconds:
        ctx.check_cancelled()
        if step % 10 == 0:
            ctx.progress("sleep", min(1.0, elapsed / seconds) if seconds else 1.0, "")
        step += 1
        time.sleep(0.01)
    return {"slept": round(time.monotonic() - start, 3), "payload": "x" * result_bytes}

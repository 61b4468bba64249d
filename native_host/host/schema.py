"""Checks for request envelopes and params; each failure is one `ProtocolError` with a clear message."""

from __future__ import annotations

from typing import Any

from native_host.host.errors import ErrorCode, ProtocolError

MAX_ID_CHARS = 128


def envelope(message: Any) -> tuple[str, str, dict[str, Any]]:
    """(id, type, params) of a request, or ProtocolError(invalid_message)."""
    if not isinstance(message, dict):
        raise ProtocolError(ErrorCode.invalid_message, "a message must be a JSON object")
    request_id = message.get("id")
    if not isinstance(request_id, str) or not 0 < len(request_id) <= MAX_ID_CHARS:
        raise ProtocolError(
            ErrorCode.invalid_message, f"'id' must be a string of 1 to {MAX_ID_CHARS} characters"
        )
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.invalid_message, "'type' must be a string")
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ProtocolError(ErrorCode.invalid_message, "'params' must be an object")
    return request_id, kind, params


def invalid(message: str) -> ProtocolError:
    return ProtocolError(ErrorCode.invalid_params, message)


def text(params: dict[str, Any], key: str = "text") -> str:
    value = params.get(key)
    if not isinstance(value, str):
        raise invalid(f"params.{key} must be a string")
    if not value.strip():
        raise invalid(f"params.{key} is empty; nothing to do")
    return value


def boolean(params: dict[str, Any], key: str, default: bool) -> bool:
    value = params.get(key, default)
    if not isinstance(value, bool):
        raise invalid(f"params.{key} must be true or false")
    return value


def integer(
    params: dict[str, Any], key: str, default: int, low: int, high: int, where: str = "params"
) -> int:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise invalid(f"{where}.{key} must be an integer from {low} to {high}")
    return value


def number(params: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise invalid(f"params.{key} must be a number from {low} to {high}")
    return float(value)


def choice(
    params: dict[str, Any], key: str, default: str, allowed: tuple[str, ...], where: str = "params"
) -> str:
    value = params.get(key, default)
    if value not in allowed:
        raise invalid(f"{where}.{key} must be one of {', '.join(allowed)}")
    return value


def string_list(
    params: dict[str, Any], key: str, where: str = "params", max_items: int = 1000
) -> tuple[str, ...]:
    value = params.get(key, [])
    if value is None:
        return ()
    if (
        not isinstance(value, list)
        or len(value) > max_items
        or not all(isinstance(item, str) and item for item in value)
    ):
        raise invalid(f"{where}.{key} must be a list of non-empty strings (at most {max_items})")
    return tuple(value)


def obj(params: dict[str, Any], key: str, where: str = "params") -> dict[str, Any] | None:
    value = params.get(key)
    if value is not None and not isinstance(value, dict):
        raise invalid(f"{where}.{key} must be an object or null")
    return value


def rival(params: dict[str, Any], key: str = "rival") -> str | None:
    """An optional rival's name (absent or null: None) in its stored form: stripped, checked by
    native_host.style.samples.rival_name (1..64 characters, no control characters)."""
    from native_host.style.samples import rival_name

    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid(f"params.{key} must be a string (a name) or absent")
    try:
        return rival_name(value)
    except ValueError as exc:
        raise invalid(f"params.{key}: {exc}") from exc

"""Stable error codes of the native-messaging protocol.

Append only: never renumber or reuse a code. PROTOCOL.md §6 mirrors this enum exactly
(tests/host/test_protocol_doc.py compares them).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any


class ErrorCode(IntEnum):
    internal_error = 1
    bad_length = 2
    frame_too_large = 3
    truncated_frame = 4
    invalid_utf8 = 5
    invalid_json = 6
    invalid_message = 7
    unknown_type = 8
    invalid_params = 9
    duplicate_id = 10
    cancelled = 11
    unsupported_protocol = 12
    model_unavailable = 13
    storage_error = 14
    unknown_model = 15


class ProtocolError(Exception):
    """Raised by handlers and the framing layer; becomes one `error` reply."""

    def __init__(self, code: ErrorCode, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": int(self.code), "name": self.code.name, "message": self.message}
        if self.data:
            error["data"] = self.data
        return error

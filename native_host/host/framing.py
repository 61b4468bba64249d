"""Native-messaging framing: a 4-byte native-endian unsigned length, then UTF-8 JSON. Owns every cap.

Reading goes through a `ByteSource` (real pipes: `PipeSource`; tests: `BytesSource`) so that a frame
whose body stops arriving can be detected by a stall timeout instead of blocking forever.
"""

from __future__ import annotations

import json
import math
import os
import queue
import struct
import threading
from collections.abc import Iterator
from typing import Any, Protocol

from native_host.host.errors import ErrorCode, ProtocolError

PROTOCOL_VERSION = 1
HEADER = struct.Struct("=I")  # native byte order, standard 4-byte size: what browsers write
MAX_OUTGOING_FRAME = 1024 * 1024  # Chrome refuses host messages above 1 MiB
MAX_INCOMING_FRAME = 8 * 1024 * 1024
MAX_PLAUSIBLE_FRAME = 64 * 1024 * 1024  # Chrome's own cap on messages to a host; above it = out of step
DISCARD_CHUNK = 64 * 1024
STALL_TIMEOUT_S = float(os.environ.get("FANTASMA_HOST_STALL_S", "5"))
RESYNC_QUIET_S = 0.1
_PART_OVERHEAD = 200  # bytes reserved in a part frame for everything but `data`


class _Eof:
    def __repr__(self) -> str:
        return "EOF"


# What FrameReader.read() returns at end of input (not None: a frame may hold JSON `null`).
EOF = _Eof()


class Stall(Exception):
    """No byte arrived within the timeout."""


class ByteSource(Protocol):
    def read(self, max_bytes: int, timeout: float | None) -> bytes:
        """Up to max_bytes (at least one); b"" at EOF; raises Stall after `timeout` seconds of silence."""
        ...


class BytesSource:
    """An in-memory stream: its bytes, then EOF (tests)."""

    def __init__(self, data: bytes) -> None:
        self._data = memoryview(data)
        self._pos = 0

    def read(self, max_bytes: int, timeout: float | None) -> bytes:
        chunk = bytes(self._data[self._pos : self._pos + max_bytes])
        self._pos += len(chunk)
        return chunk


class PipeSource:
    """Reads a file descriptor on a pump thread so the frame reader can wait with a timeout.

    The queue is bounded (16 chunks of 64 KiB), so at most ~1 MiB is buffered whatever the peer sends.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._chunks: queue.Queue[bytes] = queue.Queue(maxsize=16)
        self._pending = b""
        self._eof = False
        threading.Thread(target=self._pump, name="stdin-pump", daemon=True).start()

    def _pump(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, DISCARD_CHUNK)
            except OSError:
                chunk = b""
            self._chunks.put(chunk)
            if not chunk:
                return

    def read(self, max_bytes: int, timeout: float | None) -> bytes:
        if not self._pending:
            if self._eof:
                return b""
            try:
                self._pending = self._chunks.get(timeout=timeout)
            except queue.Empty:
                raise Stall from None
            if not self._pending:
                self._eof = True
                return b""
        chunk, self._pending = self._pending[:max_bytes], self._pending[max_bytes:]
        return chunk


class FrameReader:
    """Turns a byte stream into decoded messages or `ProtocolError`s; `EOF` at the end."""

    def __init__(self, source: ByteSource, stall_timeout: float = STALL_TIMEOUT_S) -> None:
        self._source = source
        self._stall = stall_timeout
        self.at_eof = False

    def __iter__(self) -> Iterator[Any]:
        while (item := self.read()) is not EOF:
            yield item

    def read(self) -> Any:
        """The next message (any JSON value), a ProtocolError describing a bad frame, or EOF."""
        if self.at_eof:
            return EOF
        header, complete = self._read_exact(HEADER.size, first_timeout=None)
        if not header and self.at_eof:
            return EOF
        if not complete:
            return _truncated(len(header), HEADER.size)
        (length,) = HEADER.unpack(header)
        if length == 0:
            return ProtocolError(ErrorCode.bad_length, "empty frame (length 0)")
        if length > MAX_PLAUSIBLE_FRAME:
            self._resync()
            return ProtocolError(
                ErrorCode.bad_length,
                f"frame length {length} is beyond any browser's; input resynchronized",
                {"length": length},
            )
        if length > MAX_INCOMING_FRAME:
            discarded, complete = self._discard(length)
            if not complete:
                return _truncated(discarded, length)
            return ProtocolError(
                ErrorCode.frame_too_large,
                f"message of {length} bytes is above the {MAX_INCOMING_FRAME}-byte limit; it was discarded",
                {"length": length, "limit": MAX_INCOMING_FRAME},
            )
        body, complete = self._read_exact(length, first_timeout=self._stall)
        if not complete:
            return _truncated(len(body), length)
        return decode_body(body)

    def _read_exact(self, size: int, first_timeout: float | None) -> tuple[bytes, bool]:
        buf = bytearray()
        timeout = first_timeout
        while len(buf) < size:
            try:
                chunk = self._source.read(size - len(buf), timeout)
            except Stall:
                return bytes(buf), False
            if not chunk:
                self.at_eof = True
                return bytes(buf), False
            buf += chunk
            timeout = self._stall
        return bytes(buf), True

    def _discard(self, size: int) -> tuple[int, bool]:
        done = 0
        while done < size:
            try:
                chunk = self._source.read(min(DISCARD_CHUNK, size - done), self._stall)
            except Stall:
                return done, False
            if not chunk:
                self.at_eof = True
                return done, False
            done += len(chunk)
        return done, True

    def _resync(self) -> None:
        """Drop input until it has been quiet for RESYNC_QUIET_S (or EOF): the stream is out of step."""
        while True:
            try:
                if not self._source.read(DISCARD_CHUNK, RESYNC_QUIET_S):
                    self.at_eof = True
                    return
            except Stall:
                return


def _truncated(got: int, expected: int) -> ProtocolError:
    return ProtocolError(
        ErrorCode.truncated_frame,
        f"frame ended after {got} of {expected} bytes",
        {"received": got, "expected": expected},
    )


def decode_body(body: bytes) -> Any:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ProtocolError(ErrorCode.invalid_utf8, f"frame is not valid UTF-8 (byte {exc.start})")
    try:
        return json.loads(text)
    except RecursionError:
        return ProtocolError(ErrorCode.invalid_json, "frame is not valid JSON (nested too deeply)")
    except ValueError as exc:
        return ProtocolError(ErrorCode.invalid_json, f"frame is not valid JSON ({exc})")


def dumps(message: Any) -> str:
    """JSON text of a message, encodable as UTF-8 and parseable by a browser (no NaN, no raw surrogates)."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return dumps(_finite(message))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates (possible in text the browser sent) survive only as \u escapes.
        text = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def encode_frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


def frames_for(message: dict[str, Any], max_frame: int = MAX_OUTGOING_FRAME) -> list[bytes]:
    """One frame, or ordered `part` frames when the message is above `max_frame` (PROTOCOL.md §4)."""
    text = dumps(message)
    payload = text.encode("utf-8")
    if len(payload) <= max_frame:
        return [encode_frame(payload)]
    slices: list[str] = []
    pos = 0
    budget = max_frame - _PART_OVERHEAD
    while pos < len(text):
        size = budget  # optimistic (plain ASCII); halved while escaping makes the slice too big
        piece = text[pos : pos + size]
        # Escaping can grow a slice; shrink until the part frame fits.
        while size > 1 and len(dumps(piece).encode("utf-8")) > budget:
            size = max(1, size // 2)
            piece = text[pos : pos + size]
        slices.append(piece)
        pos += len(piece)
    msg_id = message.get("id")
    return [
        encode_frame(
            dumps({"id": msg_id, "type": "part", "index": i, "count": len(slices), "data": piece}).encode()
        )
        for i, piece in enumerate(slices)
    ]


def reassemble(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """What the extension does with part frames (PROTOCOL.md §4); used by tests and doctor."""
    for expected, part in enumerate(parts):
        if part.get("type") != "part" or part.get("index") != expected:
            raise ValueError(f"part {expected} out of order")
    if not parts or parts[-1]["index"] != parts[-1]["count"] - 1:
        raise ValueError("incomplete parts")
    return json.loads("".join(part["data"] for part in parts))


class FrameWriter:
    """Writes frames to a binary file descriptor; one lock so frames (and a reply's parts) never interleave."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()
        self.closed = False

    def send(self, message: dict[str, Any]) -> bool:
        frames = frames_for(message)
        with self._lock:
            if self.closed:
                return False
            try:
                for frame in frames:
                    view = memoryview(frame)
                    while view:
                        written = os.write(self._fd, view)
                        view = view[written:]
            except OSError:  # the browser closed the port; nothing more can be said
                self.closed = True
                return False
        return True

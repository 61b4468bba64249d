"""In-memory framing: truncated, oversized, bad JSON, part splitting; and a fuzz of the reader."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from native_host.host import framing
from native_host.host.errors import ErrorCode, ProtocolError


def frame(message) -> bytes:
    return framing.encode_frame(json.dumps(message).encode())


def read_all(data: bytes) -> list:
    return list(framing.FrameReader(framing.BytesSource(data), stall_timeout=0.01))


class LazySource:
    """A declared-huge frame whose bytes are produced on demand; records the largest read asked for."""

    def __init__(self, header: bytes, body_size: int, tail: bytes) -> None:
        self.parts = [header]
        self.remaining = body_size
        self.tail = tail
        self.largest_read = 0

    def read(self, max_bytes: int, timeout):
        self.largest_read = max(self.largest_read, max_bytes)
        if self.parts:
            return self.parts.pop(0)
        if self.remaining:
            n = min(max_bytes, self.remaining)
            self.remaining -= n
            return b"a" * n
        chunk, self.tail = self.tail[:max_bytes], self.tail[max_bytes:]
        return chunk


def test_messages_round_trip():
    messages = [{"id": "1", "type": "hello"}, {"id": "2", "type": "analyze", "params": {"text": "héllo 😀"}}]
    assert read_all(b"".join(frame(m) for m in messages)) == messages


def test_empty_stream_is_clean_eof():
    assert read_all(b"") == []
    assert framing.FrameReader(framing.BytesSource(b"")).read() is framing.EOF


def test_json_null_is_a_message_not_eof():
    assert read_all(frame(None) + frame({"id": "next"})) == [None, {"id": "next"}]


def test_truncated_header_and_body():
    (error,) = read_all(b"\x10\x00")
    assert isinstance(error, ProtocolError) and error.code is ErrorCode.truncated_frame
    (error,) = read_all(framing.HEADER.pack(20) + b'{"id":')
    assert error.code is ErrorCode.truncated_frame and error.data == {"received": 6, "expected": 20}


def test_bad_utf8_bad_json_deep_json_and_zero_length_then_next_frame_reads():
    bodies = [b"\xc3\x28", b"{nope", b"[" * 50_000, b"\xef\xbb\xbf{}"]
    data = b"".join(framing.encode_frame(b) for b in bodies) + framing.HEADER.pack(0) + frame({"ok": 1})
    items = read_all(data)
    assert [i.code for i in items[:5]] == [
        ErrorCode.invalid_utf8,
        ErrorCode.invalid_json,
        ErrorCode.invalid_json,
        ErrorCode.invalid_json,
        ErrorCode.bad_length,
    ]
    assert items[5] == {"ok": 1}


def test_oversized_frame_is_discarded_in_bounded_reads_and_the_next_frame_is_read():
    size = framing.MAX_INCOMING_FRAME + 1
    source = LazySource(framing.HEADER.pack(size), size, frame({"id": "after"}))
    reader = framing.FrameReader(source, stall_timeout=0.01)
    error = reader.read()
    assert error.code is ErrorCode.frame_too_large
    assert source.largest_read <= framing.DISCARD_CHUNK
    assert reader.read() == {"id": "after"}
    assert reader.read() is framing.EOF


def test_implausible_length_resyncs_instead_of_waiting_for_gigabytes():
    (error,) = read_all(b"\xff\xff\xff\x7fgarbage garbage")
    assert error.code is ErrorCode.bad_length


def test_small_reply_is_one_frame():
    (single,) = framing.frames_for({"id": "a", "type": "result", "result": {"x": 1}})
    assert json.loads(single[4:]) == {"id": "a", "type": "result", "result": {"x": 1}}


def _parts(frames: list[bytes]) -> list[dict]:
    out = []
    for f in frames:
        (length,) = framing.HEADER.unpack(f[:4])
        assert length == len(f) - 4 <= framing.MAX_OUTGOING_FRAME
        out.append(json.loads(f[4:].decode("utf-8")))
    return out


def test_large_replies_split_under_1_mib_and_reassemble_exactly():
    texts = [
        "x" * (2 * 1024 * 1024),
        '"\\' * 700_000,  # every character needs escaping
        "😀é" * 500_000,  # multi-byte UTF-8
        "\ud800 lone surrogate " * 100_000,  # only survives as \u escapes
        "\x00\x01\x1f" * 300_000,  # control characters escape to 6 bytes each
    ]
    for text in texts:
        message = {"id": "big", "type": "result", "result": {"text": text}}
        parts = _parts(framing.frames_for(message))
        assert len(parts) >= 2
        assert [p["index"] for p in parts] == list(range(len(parts)))
        assert {p["count"] for p in parts} == {len(parts)} and {p["id"] for p in parts} == {"big"}
        assert framing.reassemble(parts) == message


def test_non_finite_numbers_become_null():
    assert framing.dumps({"a": float("nan"), "b": [float("inf")]}) == '{"a":null,"b":[null]}'


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_fuzz_reader_never_raises_on_random_bytes(data):
    items = read_all(data)
    assert framing.EOF not in items


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_fuzz_any_reply_encodes_to_valid_frames(value):
    message = {"id": "f", "type": "result", "result": value}
    for f in framing.frames_for(message, max_frame=256):
        (length,) = framing.HEADER.unpack(f[:4])
        assert length == len(f) - 4
        json.loads(f[4:].decode("utf-8"))

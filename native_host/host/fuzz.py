"""Random frames against the real host over real pipes (used by tests/host/test_fuzz_host.py and
bench/fuzz_host.py). Needs hypothesis (the `test` extra); nothing the host runs imports this module.

Each hypothesis example sends 1-8 length-correct frames with random bodies (raw bytes, random JSON,
near-valid envelopes of every type), then a barrier in each worker lane (a `neutralize` in the jobs
lane, an `analyze` in the light lane; PROTOCOL.md §2): each lane runs in order and the reader answers at
once, so once both barriers' replies are in, every earlier frame has been answered. Failures: any non-frame byte on stdout, a
reply that is not a protocol envelope, an `internal_error` (a handler crashed), the process dying, a
barrier not answered in time, or a frame without exactly one final reply (result or error, or the last
part) under the id PROTOCOL.md says it gets: its own `id` when the body is a JSON object with a valid
one, else `null`. Replies are counted per id, so one request answered twice cannot stand in for
another never answered.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from native_host.host.client import HEADER, HostProcess, host_env

MAX_ID_CHARS = 128  # PROTOCOL.md: an id is a string of 1 to 128 characters
# One barrier request per worker lane of the host (PROTOCOL.md §2): the jobs lane's, the light lane's.
BARRIERS = ("neutralize", "analyze")
BARRIER_PAD = "-" * 48  # longer than any id the strategies below make, so a barrier id is never reused

TYPES = [
    "hello",
    "analyze",
    "guide",
    "neutralize",
    "rewrite",
    "cancel",
    "profile.show",
    "settings.get",
    "settings.set",
    "debug.sleep",  # unknown here: the fuzz host runs without FANTASMA_HOST_DEBUG
]

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
texts = st.text(max_size=300) | st.sampled_from(
    ["", "   ", "Hello!!! I luv it :)", "colour 😀 naïve — ok..."]
)
options = st.fixed_dictionaries(
    {},
    optional={
        "strength": st.sampled_from(["light", "medium", "strong", "max", ""]) | json_values,
        "target": st.none()
        | st.dictionaries(st.sampled_from(["spelling", "keep_emoji", "families", "x"]), json_values),
        "protected_terms": st.lists(st.text(max_size=10), max_size=3) | json_values,
        "candidates": st.integers(-2, 12) | json_values,
    },
)
params = st.fixed_dictionaries(
    {},
    optional={
        "text": texts | json_values,
        "options": options | json_values,
        "target": st.none()
        | st.dictionaries(st.sampled_from(["spelling", "keep_emoji", "families"]), json_values),
        "settings": st.dictionaries(
            st.sampled_from(
                ["default_strength", "candidates", "protected_terms", "use_profile", "threads", "z"]
            ),
            json_values,
        )
        | json_values,
        "protocol": json_values,
        "use_profile": json_values,
    },
)
envelopes = st.fixed_dictionaries(
    {
        "id": st.text(min_size=1, max_size=20) | json_values,
        "type": st.sampled_from(TYPES) | st.text(max_size=15),
    },
    optional={"params": params | json_values},
)
bodies = (
    st.binary(max_size=200)
    | json_values.map(lambda v: json.dumps(v).encode())
    | envelopes.map(lambda v: json.dumps(v).encode())
    | envelopes.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass"))
)
batches = st.lists(bodies, min_size=1, max_size=8)


@dataclass
class FuzzStats:
    frames: int = 0
    replies: int = 0  # final replies: one per frame and one per barrier
    barriers: int = 0  # barrier requests: one per worker lane per batch
    errors_by_name: dict[str, int] = field(default_factory=dict)


def reply_id(body: bytes) -> Any:
    """The id the host must answer a frame under (PROTOCOL.md): the request's own when the body is a
    UTF-8 JSON object whose `id` is a string of 1 to 128 characters, else null (its error cannot name
    a request). Derived from the protocol's rules, not from the host's code."""
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(message, dict):
        return None
    request_id = message.get("id")
    return request_id if isinstance(request_id, str) and 0 < len(request_id) <= MAX_ID_CHARS else None


def is_final(message: dict[str, Any]) -> bool:
    """The one reply that ends a request: a result, an error, or the last part of a split result."""
    if message["type"] == "part":
        return message["index"] == message["count"] - 1
    return message["type"] in ("result", "error")


def run_fuzz(examples: int, barrier_timeout: float = 60.0) -> FuzzStats:
    stats = FuzzStats()
    env = host_env()
    env.pop("FANTASMA_HOST_DEBUG", None)
    with HostProcess(env=env) as host:

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(batches)
        def one_batch(batch: list[bytes]) -> None:
            host.send_raw(b"".join(HEADER.pack(len(body)) + body for body in batch if body))
            # An empty body is a zero-length frame; send it alone so it stays a clean bad_length.
            for body in batch:
                if not body:
                    host.send_raw(HEADER.pack(0))
            stats.frames += len(batch)
            barrier_replies = []
            for kind in BARRIERS:
                stats.barriers += 1
                barrier = f"barrier-{stats.barriers}{BARRIER_PAD}"
                host.send(kind, {"text": "sync"}, request_id=barrier)
                reply, _ = host.final(barrier, barrier_timeout)
                assert reply["type"] in ("result", "error"), reply
                barrier_replies.append(reply)
            finals = [m for m in host.other if is_final(m)]
            expected = Counter(reply_id(body) for body in batch)
            answered = Counter(m["id"] for m in finals)
            assert answered == expected, {
                "unanswered": dict(expected - answered),
                "extra": dict(answered - expected),
                "batch": batch,
            }
            for message in [*finals, *barrier_replies]:
                stats.replies += 1
                if message["type"] == "error":
                    name = message["error"]["name"]
                    stats.errors_by_name[name] = stats.errors_by_name.get(name, 0) + 1
                    assert name != "internal_error", message
            host.other.clear()
            assert host.violations == [], host.violations
            assert host.proc.poll() is None, "host died"

        one_batch()
        assert host.close() == 0
        assert host.violations == [], host.violations
        assert b"Traceback" not in host.stderr, host.stderr[-3000:]
    return stats

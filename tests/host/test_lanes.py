"""The host's two worker lanes over real pipes (PROTOCOL.md §2, docs/host.md "Threads"): a `guide` or an
`analyze` sent while a long job runs (`debug.sleep`, a real rewrite, real alternatives) is answered
before that job ends; each lane keeps its own order, queue and cancel; every id still gets its progress,
then exactly one result or error, and nothing after it.

The assertions are about order, never about seconds: the long job lasts far longer than the light
request needs, and the test checks which final reply came first.
"""

from __future__ import annotations

from typing import Any

import pytest

from native_host.host.client import HostProcess, host_env

SLEEP_S = 60  # a job that would still be running long after any light request is answered
TEXT = (
    "We met at the station just after nine and walked to the market. The stalls were busy, and the fish "
    "looked fresh. My sister bought bread and a bag of apples for the train. Upon the whole, it is evident "
    "that the powers of the Union ought to be considered upon principles of the utmost importance."
)
FINAL = ("result", "error")


class Ledger:
    """Every message the host sends, in order, checked against the per-id contract as it arrives."""

    def __init__(self, host: HostProcess) -> None:
        self.host = host
        self.finals: list[str] = []  # ids, in the order their final reply came
        self.replies: dict[str, dict[str, Any]] = {}
        self.progress: dict[str, list[dict[str, Any]]] = {}

    def take(self, timeout: float = 120.0) -> dict[str, Any]:
        message = self.host.recv(timeout)
        rid = message["id"]
        assert rid not in self.replies, f"a message for {rid} after its final reply: {message}"
        if message["type"] in FINAL:
            self.finals.append(rid)
            self.replies[rid] = message
        else:
            assert message["type"] == "progress", message  # no reply here is large enough for parts
            self.progress.setdefault(rid, []).append(message)
        return message

    def until_progress(self, rid: str, stages: tuple[str, ...], timeout: float = 300.0) -> None:
        """Read until `rid` sends progress of one of `stages` (it is running there)."""
        while True:
            message = self.take(timeout)
            assert message["id"] != rid or message["type"] == "progress", message
            if message["id"] == rid and message["stage"] in stages:
                return

    def until_final(self, *ids: str, timeout: float = 300.0) -> str:
        """Read until one of `ids` has its final reply; returns which came first."""
        while not any(i in self.replies for i in ids):
            self.take(timeout)
        return next(i for i in self.finals if i in ids)

    def cancel_running(self, rid: str) -> None:
        """Cancels the running `rid`: the cancel is answered `cancelled: true` and `rid` ends `cancelled`."""
        cancel = self.host.send("cancel", {"target": rid})
        self.until_final(cancel)
        assert self.replies[cancel]["result"] == {"cancelled": True}
        self.until_final(rid)
        assert self.replies[rid]["error"]["name"] == "cancelled"


def test_a_guide_and_an_analyze_are_answered_while_a_job_runs(host):
    ledger = Ledger(host)
    job = host.send("debug.sleep", {"seconds": SLEEP_S})
    ledger.until_progress(job, ("sleep",))
    guide = host.send("guide", {"text": TEXT})
    assert ledger.until_final(guide, job) == guide  # the guide did not wait for the job
    assert ledger.replies[guide]["type"] == "result", ledger.replies[guide]
    assert {p["stage"] for p in ledger.progress[guide]} == {"guide"}  # not queued behind the job
    analyze = host.send("analyze", {"text": TEXT})
    assert ledger.until_final(analyze, job) == analyze
    assert ledger.replies[analyze]["type"] == "result", ledger.replies[analyze]
    # the job was running all along, and a cancel still ends it with `cancelled`
    ledger.cancel_running(job)


def test_each_lane_keeps_its_own_order_queue_and_cancel(host):
    ledger = Ledger(host)
    light = host.send("debug.sleep_light", {"seconds": SLEEP_S})
    ledger.until_progress(light, ("sleep",))
    # the jobs lane is free while the light lane is busy
    job = host.send("debug.sleep", {"seconds": 0})
    assert ledger.until_final(job, light) == job and ledger.replies[job]["type"] == "result"
    # light requests queue behind the light one, in order, and say so
    first = host.send("guide", {"text": TEXT})
    second = host.send("analyze", {"text": TEXT})
    ledger.until_progress(second, ("queued",))
    assert [p["stage"] for p in ledger.progress[first]] == ["queued"]
    assert "2 earlier" in ledger.progress[second][0]["message"], ledger.progress[second]
    # a queued light request is cancelled at once, never run; the running one goes on
    cancel = host.send("cancel", {"target": first})
    ledger.until_final(first)
    assert ledger.replies[first]["error"]["name"] == "cancelled"
    ledger.until_final(cancel)
    assert ledger.replies[cancel]["result"] == {"cancelled": True}
    assert light not in ledger.replies and second not in ledger.replies
    # ids are unique across the lanes while in flight
    clash = host.send("debug.sleep", {"seconds": 0}, request_id=light)
    assert clash == light
    while len([i for i in ledger.finals if i == light]) == 0:
        ledger.take()
    assert ledger.replies[light]["error"]["name"] == "duplicate_id", ledger.replies[light]
    del ledger.replies[light]  # the duplicate's reply; the running job under that id is still owed one
    ledger.finals.remove(light)
    host.send("cancel", {"target": light})
    assert ledger.until_final(light) == light
    assert ledger.replies[light]["error"]["name"] == "cancelled"
    # then the queued analyze runs
    ledger.until_final(second)
    assert ledger.replies[second]["type"] == "result", ledger.replies[second]
    assert [p["stage"] for p in ledger.progress[second]] == ["queued", "analyze"]


def test_eof_with_both_lanes_busy_exits_cleanly():
    with HostProcess() as host:
        ledger = Ledger(host)
        job = host.send("debug.sleep", {"seconds": SLEEP_S})
        light = host.send("debug.sleep_light", {"seconds": SLEEP_S})
        ledger.until_progress(job, ("sleep",))
        ledger.until_progress(light, ("sleep",))
        assert host.close(timeout=30) == 0  # both workers cancelled and joined, well before SLEEP_S
        assert host.violations == []


@pytest.mark.slow
def test_a_guide_is_answered_while_a_real_rewrite_and_real_alternatives_run(models_installed):
    # LLM windows for the small model, each token slowed: the rewrite and the alternatives' model
    # candidates last long past any guide
    env = host_env(FANTASMA_DEBUG_LLM_WINDOWS="1", FANTASMA_DEBUG_TOKEN_DELAY_S="0.05")
    with HostProcess(env=env) as host:
        ledger = Ledger(host)
        warm = host.send("guide", {"text": TEXT})  # the population loaded once, before the race
        ledger.until_final(warm)

        rewrite = host.send("rewrite", {"text": TEXT, "options": {"strength": "strong"}})
        ledger.until_progress(rewrite, ("rewrite",))  # past the model's load: generating
        guide = host.send("guide", {"text": TEXT})
        assert ledger.until_final(guide, rewrite) == guide
        assert ledger.replies[guide]["type"] == "result", ledger.replies[guide]
        ledger.cancel_running(rewrite)

        sentences = ledger.replies[guide]["result"]["sentences"]
        start, end = sentences[-1]["start"], sentences[-1]["end"]
        alternatives = host.send("guide.alternatives", {"text": TEXT, "start": start, "end": end})
        ledger.until_progress(alternatives, ("alternatives",))  # the models loaded: searching
        guide = host.send("guide", {"text": TEXT})
        assert ledger.until_final(guide, alternatives) == guide
        assert ledger.replies[guide]["type"] == "result", ledger.replies[guide]
        ledger.until_final(alternatives)
        assert ledger.replies[alternatives]["type"] == "result", ledger.replies[alternatives]
        assert host.close() == 0
        assert host.violations == []

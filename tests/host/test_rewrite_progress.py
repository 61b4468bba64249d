"""A long rewrite over real pipes: its progress events say how many parts are done of how many and the
seconds left; the cost per 100 words the host measured shows in `models` and `hello`; a cancel stops the
model's work within a few tokens, and nothing generates after the reply (the tokens counted, not timed:
how fast is bench/bench_cancel.py's).

The embedded model writes LLM windows here because FANTASMA_DEBUG_LLM_WINDOWS=1 asks for them (by its
class it would not); FANTASMA_DEBUG_TOKEN_DELAY_S slows each token so the windows are long enough to watch.
"""

from __future__ import annotations

import time

import pytest

from native_host.host.client import HostProcess, host_env

TEXT = (
    "To be fair, the new bus timetable is a right mess. The number 12 bus now leaves the station every "
    "forty minutes instead of every twenty. At the end of the day, most people will just drive to work. "
    "The meeting on Friday was moved to the small room because the projector in the main hall is broken. "
)
WORDS = len((TEXT * 2).split())


def run(host: HostProcess, text: str) -> tuple[dict, list[dict]]:
    reply, progress = host.final(host.send("rewrite", {"text": text, "options": {"strength": "strong"}}), 300)
    assert reply["type"] == "result", reply
    return reply["result"], progress


@pytest.mark.slow
def test_progress_counts_the_parts_and_the_seconds_left_and_the_cost_is_measured(models_installed):
    env = host_env(FANTASMA_DEBUG_LLM_WINDOWS="1", FANTASMA_DEBUG_TOKEN_DELAY_S="0.01")
    with HostProcess(env=env) as host:
        embedded = host.result("models")["models"][0]
        assert embedded["embedded"] and embedded["cost"]["strong"] is None
        assert embedded["cost"]["note"].startswith("not measured yet"), embedded["cost"]
        assert embedded["speed_note"] and "not measured at install" in embedded["speed_note"]
        assert embedded["description"].startswith("a Llama-family language model of "), embedded

        _, progress = run(host, TEXT * 2)
        parts = [p for p in progress if "done" in p]
        assert len(parts) >= 3, progress
        total = parts[0]["total"]
        assert total >= 2 and all(p["total"] == total for p in parts), parts
        assert [p["done"] for p in parts] == list(range(total + 1)), parts  # each part, then all of them
        assert parts[0]["eta_s"] is None  # nothing measured yet: unknown, not a guess
        middle = [p["eta_s"] for p in parts[1:-1]]
        assert all(isinstance(e, float) and e >= 0 for e in middle), parts
        assert middle == sorted(middle, reverse=True) or len(middle) == 1, middle  # it counts down

        cost = host.result("models")["models"][0]["cost"]["strong"]
        assert cost is not None and cost["rewrites"] == 1 and cost["words"] == WORDS, cost
        assert cost["warm"] is False and cost["first_seconds_per_100_words"] == cost["seconds_per_100_words"]
        assert cost["seconds_per_100_words"] > 0
        assert host.result("hello")["model"]["cost"]["strong"] == cost  # the popup's source

        # The second rewrite knows from the first how long the whole job takes: seconds left from the start.
        result, progress = run(host, TEXT * 2)
        first_part = next(p for p in progress if p.get("done") == 0)
        assert isinstance(first_part["eta_s"], float) and first_part["eta_s"] > 0, first_part
        cost = host.result("models")["models"][0]["cost"]["strong"]
        assert cost["warm"] is True and cost["rewrites"] == 1, cost  # the warm figure, apart from the first
        seconds = result["timings"]["total_s"] - result["timings"]["load_s"]
        assert cost["seconds_per_100_words"] == pytest.approx(100 * seconds / WORDS, abs=0.01)
        assert host.close() == 0
        assert host.violations == []


# At most this many tokens between the cancel and the job's stop: the engine looks at the cancel after
# every token, so a few pass while the frame is read; a cancel the engine ignored would let the part's
# first candidate run to its end (the embedded model's, greedy on TEXT: twenty tokens and more).
TOKENS_AFTER_CANCEL = 6


@pytest.mark.slow
def test_a_cancel_stops_the_models_work(models_installed, tmp_path):
    """The windows are real model work, each generated token counted (FANTASMA_DEBUG_EVENTS_FILE)
    and slowed a little (FANTASMA_DEBUG_TOKEN_DELAY_S) so the cancel lands early in the first candidate.
    The count advances while the first part is written; after the cancel it stops within a few tokens,
    and stays where it stopped once the reply is in: nothing is left generating behind it."""
    tokens = tmp_path / "events"

    def generated() -> int:
        return tokens.read_text().splitlines().count("token") if tokens.exists() else 0

    env = host_env(
        FANTASMA_DEBUG_LLM_WINDOWS="1",
        FANTASMA_DEBUG_EVENTS_FILE=str(tokens),
        FANTASMA_DEBUG_TOKEN_DELAY_S="0.02",
    )
    with HostProcess(env=env) as host:
        job = host.send("rewrite", {"text": TEXT * 4, "options": {"strength": "strong"}})
        while True:  # into the windows: the first part is being written
            message = host.recv(120)
            assert message["id"] == job and message["type"] == "progress", message
            if message.get("done") == 0:
                break
        deadline = time.monotonic() + 120  # a hang guard, not a speed goal
        while generated() < 2:  # the model is at work: the count advances
            assert time.monotonic() < deadline, "no token generated"
            time.sleep(0.01)
        at_cancel = generated()
        host.send("cancel", {"target": job})
        reply, _ = host.final(job, 60)
        at_reply = generated()
        assert reply["type"] == "error" and reply["error"]["name"] == "cancelled", reply
        assert at_reply - at_cancel <= TOKENS_AFTER_CANCEL, (at_cancel, at_reply)
        time.sleep(1.0)  # time for work left behind the reply to show
        assert generated() == at_reply, (at_reply, generated())
        assert (
            host.result("models")["models"][0]["cost"]["strong"] is None
        )  # a cancelled job measures nothing
        host.assert_alive()
        assert host.close() == 0
        assert host.violations == []

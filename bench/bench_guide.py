#!/usr/bin/env python3
"""Speed of the guide (native_host/guide/analysis.py) as the writer types, beside the full analysis.

A 300-word text of held-out Federalist prose, scored against Hamilton's training chunks (profile mode,
as a writer with samples) and by typicality; the writer "types" one word at a time at the end of a
sentence in the middle of the text, and each keystroke-level edit is guided with the one GuideCache.
Prints the median and 95th-percentile milliseconds of those calls (goal: <= 150 ms on 2 cores after the
first call), the first (cold) call, the same through a real host's `guide` requests, and the full analysis of the same text (`analyze`'s work: the
marker report plus the identifiability report with its per-sentence contributions) with the ratio
guide / full analysis.

Usage: .venv/bin/python bench/bench_guide.py [--words 300] [--edits 40]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from native_host import style
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.guide.analysis import GuideCache, guide
from native_host.style.identify import Identifiability
from native_host.style.sentences import sentence_spans

GOAL_MS = 150.0
TYPED = "and so the writer went on adding words to this sentence one at a time".split()


def typed(k: int) -> str:
    """What the writer has typed after k + 1 words: never the same text twice (no repeat hits the cache)."""
    return " " + " ".join(TYPED[i % len(TYPED)] for i in range(k + 1))


def text_of(words: int) -> tuple[str, list[str]]:
    split = split_corpus(find_corpus("federalist", load_manifest()), 2, 3, 6)
    train = [c.text for c in split.train if c.author == "Hamilton"]
    held = " ".join(c.text for c in split.test)
    return " ".join(held.split()[:words]), train


def full_analysis(ident: Identifiability, text: str) -> float:
    t = time.perf_counter()
    style.analyze(text)
    ident.score(text)
    return time.perf_counter() - t


def typing(ident: Identifiability, text: str, edits: int) -> tuple[float, list[float]]:
    """(the first call's seconds, each later call's) while words are typed into a middle sentence."""
    spans = sentence_spans(text)
    _, end = spans[len(spans) // 2]
    cache = GuideCache()
    t = time.perf_counter()
    guide(ident, text, cache)
    first = time.perf_counter() - t
    times = []
    for k in range(edits):
        current = text[: end - 1] + typed(k) + text[end - 1 :]
        t = time.perf_counter()
        guide(ident, current, cache)
        times.append(time.perf_counter() - t)
    return first, times


def over_pipes(text: str, samples: list[str], edits: int) -> tuple[float, list[float]]:
    """The same typing through a real host (`guide` requests over its pipes, samples stored with
    `profile.add` in a scratch FANTASMA_HOME): what the composer waits for, request to reply."""
    import tempfile

    from native_host.host.client import HostProcess, host_env

    spans = sentence_spans(text)
    _, end = spans[len(spans) // 2]
    with tempfile.TemporaryDirectory() as home, HostProcess(env=host_env(FANTASMA_HOME=home)) as host:
        for k in range(0, len(samples), 2):
            host.result("profile.add", {"text": "\n\n".join(samples[k : k + 2])}, timeout=120)
        t = time.perf_counter()
        host.result("guide", {"text": text}, timeout=120)
        first = time.perf_counter() - t
        times = []
        for k in range(edits):
            current = text[: end - 1] + typed(k) + text[end - 1 :]
            t = time.perf_counter()
            host.result("guide", {"text": current}, timeout=60)
            times.append(time.perf_counter() - t)
        host.close()
    return first, times


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--words", type=int, default=300)
    parser.add_argument("--edits", type=int, default=40)
    args = parser.parse_args()
    text, samples = text_of(args.words)
    print(f"text: {len(text.split())} words, {len(sentence_spans(text))} sentences")
    worst = 0.0
    for mode, ident in (
        ("profile", Identifiability.from_texts(samples)),
        ("typicality", Identifiability.load(None)),
    ):
        full_analysis(ident, text)  # warm: tables and models loaded once, as in a running host
        full = statistics.median(full_analysis(ident, text) for _ in range(5))
        first, times = typing(ident, text, args.edits)
        median = statistics.median(times)
        p95 = sorted(times)[int(0.95 * (len(times) - 1))]
        worst = max(worst, p95)
        print(
            f"{mode:10s} guide after the first call: median {median * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms "
            f"(first {first * 1e3:.1f} ms); full analysis {full * 1e3:.1f} ms; "
            f"guide / full analysis = {median / full:.2f}"
        )
    first, times = over_pipes(text, samples, args.edits)
    median, p95 = statistics.median(times), sorted(times)[int(0.95 * (len(times) - 1))]
    worst = max(worst, p95)
    print(
        f"host       `guide` over real pipes, profile: median {median * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms "
        f"(first {first * 1e3:.1f} ms, which trains the profile)"
    )
    print(
        f"goal <= {GOAL_MS:.0f} ms after the first call (p95): {'met' if worst * 1e3 <= GOAL_MS else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

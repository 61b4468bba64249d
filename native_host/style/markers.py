"""Marker counts read off a style report: the one place that says how markers are counted.

    marker_counts(report) -> {family: spans}       count_markers(text) = marker_counts(analyze(text))
    markers_summary(report) -> {"score", "count", "families"}   (PROTOCOL.md's `markers_before/after`)
    count_search_markers(text)                    the search's no-new-markers guard (PROFILE_FAMILIES)
    local_marker_spans(report, n)                 spans that mark a place, not a whole-text statistic

Used by the rewrite pipeline, its search and guards, the host and training.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from native_host.style.analyze import analyze
from native_host.style.model import Report

# A finding whose spans cover more than this share of a text is a whole-text statistic (sentence
# length, function words), not something a single sentence carries.
WHOLE_TEXT_SHARE = 0.5

# Families whose finding is a whole-text profile (the most deviant function words): their spans are
# every occurrence of the flagged words, so an edit that lowers one deviant word can let a more
# frequent word into the top three and "add" dozens of spans while the profile got more ordinary.
# For the search's no-new-markers guard such a family counts its flagged words, not their occurrences.
PROFILE_FAMILIES = frozenset({"function_words"})


def marker_counts(report: Report) -> Counter[str]:
    """family → number of marked spans (a finding without spans counts once)."""
    counts: Counter[str] = Counter()
    for finding in report.findings:
        counts[finding.family] += max(1, len(finding.spans))
    return counts


def count_markers(text: str) -> Counter[str]:
    return marker_counts(analyze(text))


def count_search_markers(text: str) -> Counter[str]:
    """count_markers for the search's guard: profile families count flagged words (PROFILE_FAMILIES)."""
    counts: Counter[str] = Counter()
    for finding in analyze(text).findings:
        if finding.family in PROFILE_FAMILIES:
            counts[finding.family] += max(1, finding.count)
        else:
            counts[finding.family] += max(1, len(finding.spans))
    return counts


def markers_summary(report: Report) -> dict[str, Any]:
    """PROTOCOL.md's marker summary, the type of `markers_before` and `markers_after` on every path."""
    counts = marker_counts(report)
    return {"score": report.score, "count": sum(counts.values()), "families": dict(counts)}


def local_marker_spans(report: Report, text_length: int) -> list[tuple[int, int, str]]:
    """Spans of findings that mark a place in the text (not whole-text statistics)."""
    out: list[tuple[int, int, str]] = []
    for finding in report.findings:
        spans = [(s.start, s.end) for s in finding.spans]
        covered = sum(e - s for s, e in spans)
        if spans and covered <= WHOLE_TEXT_SHARE * max(text_length, 1):
            out.extend((s, e, finding.family) for s, e in spans)
    return out

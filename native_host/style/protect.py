"""Spans no rewrite may touch: URLs, e-mail addresses, @handles, #tags, numbers, inline and fenced code."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

# Order matters only for overlaps: earlier kinds win (a URL containing digits stays one URL span).
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("code", re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.S | re.M)),
    ("code", re.compile(r"`[^`\n]+`")),
    # No word boundary before the scheme: removing an invisible character can glue a word to it
    # ("x\u200bhttps://…" -> "xhttps://…"), and the URL must stay protected in the output too.
    ("url", re.compile(r"(?:https?|ftp)://[^\s<>\"'`]+|\bwww\.[^\s<>\"'`]+", re.I)),
    ("email", re.compile(r"(?<![\w.+-])[\w.+-]++@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")),
    ("handle", re.compile(r"(?<![\w@])@\w+")),
    ("tag", re.compile(r"(?<![\w#&])#\w+")),
    # A number's value: digits with their separators ("1,200", "3.50", "14:30", "29/11/2026"). Fullwidth
    # digits ("１２３") are not protected: the neutralizer narrows them to the same value ("123").
    ("number", re.compile(r"(?<![\w<])[-+]?[^\D\uff10-\uff19]+(?:[.,:/][^\D\uff10-\uff19]+)*")),  # not "<3"
)
_TRAILING = ".,;:!?)]}'\""


def protected_spans(text: str) -> list[tuple[int, int, str]]:
    """Sorted, non-overlapping (start, end, kind) spans that must survive any rewrite byte for byte."""
    found: list[tuple[int, int, str]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span()
            if kind == "url":
                # "see https://x.org/a." - the full stop ends the sentence, not the URL.
                while end > start and text[end - 1] in _TRAILING:
                    end -= 1
            if end > start:
                found.append((start, end, kind))
    return _merge_first_wins(found)


def term_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int, str]]:
    """Occurrences of the user's protected terms (names, jargon they must keep), as whole words.

    Case-insensitive, because a term the user typed as "Colour Lab" must also hold at a sentence
    start or in capitals; longer terms win where two overlap.
    """
    found: list[tuple[int, int, str]] = []
    for term in sorted({t.strip() for t in terms if t and t.strip()}, key=len, reverse=True):
        pattern = re.compile(r"(?<!\w)" + re.escape(term) + r"(?!\w)", re.I)
        found.extend((m.start(), m.end(), "term") for m in pattern.finditer(text))
    return _merge_first_wins(found)


def _merge_first_wins(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Drop any span overlapping one found earlier (earlier kinds have priority), then sort."""
    starts: list[int] = []  # sorted starts of kept spans; kept spans never overlap each other
    kept: list[tuple[int, int, str]] = []
    for start, end, kind in spans:
        i = bisect.bisect_right(starts, start)
        if i > 0 and kept[i - 1][1] > start:
            continue
        if i < len(kept) and kept[i][0] < end:
            continue
        starts.insert(i, start)
        kept.insert(i, (start, end, kind))
    return kept

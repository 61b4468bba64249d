"""Rare vocabulary: ordinary lower-case words that are rare in the population (wordfreq Zipf < 2.5)."""

from __future__ import annotations

from functools import cache

from native_host.style import data
from native_host.style.document import Document
from native_host.style.model import Observation, Span, Target

FAMILY = "vocabulary"
EDITS = False  # whether this family proposes replacements for the neutralizer

RARE_ZIPF = 2.5  # fewer than ~3 uses per 10 million words
_MIN_LEN = 4


def is_rare(lower: str) -> bool:
    z = data.zipf(lower)
    return 0.0 < z < RARE_ZIPF


def observe(doc: Document, target: Target) -> list[Observation]:
    misspellings = _misspelled()
    spans = [
        Span(start, end, word, None)
        for (start, end, word), lower in zip(doc.words, doc.lower_words, strict=True)
        # Capitalized words are mostly names; unknown words (Zipf 0) are typos or names, not vocabulary.
        if len(word) >= _MIN_LEN
        and word.islower()
        and "'" not in lower
        and lower not in misspellings
        and is_rare(lower)
    ]
    return [Observation(FAMILY, "vocabulary.rare", "rare words", spans)]


@cache
def _misspelled() -> frozenset[str]:
    return frozenset(row[0] for row in data.tsv("misspellings.tsv"))

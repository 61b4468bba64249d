"""Contraction rate: "don't", "I'm", "we've" per 1,000 words, and never contracting at all."""

from __future__ import annotations

import re

from native_host.style import baseline
from native_host.style.document import Document
from native_host.style.model import Observation, Span, Target

FAMILY = "contractions"
EDITS = False  # whether this family proposes replacements for the neutralizer

_CONTRACTION = re.compile(
    r"^(?:\w+n't|\w+'(?:re|ve|ll|d|m)|(?:it|that|he|she|there|here|what|who|where|let|how)'s|can't|won't|"
    r"ain't|y'all|o'clock|ma'am)$"
)
_MIN_WORDS_FOR_ABSENCE = 200


def observe(doc: Document, target: Target) -> list[Observation]:
    spans = [
        Span(start, end, word, None)
        for (start, end, word), lower in zip(doc.words, doc.lower_words, strict=True)
        if "'" in lower and _CONTRACTION.match(lower) and lower != "o'clock"
    ]
    observations = [Observation(FAMILY, "contractions.rate", "contractions", spans)]
    if not spans and doc.n_words >= _MIN_WORDS_FOR_ABSENCE:
        rate = baseline.marker_rate("contractions.rate") or 0.0
        expected = baseline.expected_count(rate, doc.n_words)
        observations.append(
            Observation(
                FAMILY,
                "contractions.none",
                "no contractions at all",
                [],
                count=0,
                evidence=f"no contractions in {doc.n_words} words; typical writers use {baseline.typical_use(rate, doc.n_words)}",
                surprise=baseline.absence_surprise(expected),
            )
        )
    return observations

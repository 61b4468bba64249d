"""Sentence length and its spread: short punchy writers and long-winded ones are both recognizable."""

from __future__ import annotations

import math
import statistics

from native_host.style import baseline
from native_host.style.document import Document
from native_host.style.model import Observation, Span, Target

FAMILY = "rhythm"
EDITS = False  # whether this family proposes replacements for the neutralizer

MIN_SENTENCES = 5
_MAX_SPANS = 5


def observe(doc: Document, target: Target) -> list[Observation]:
    lengths = doc.sentence_word_counts
    if len(lengths) < MIN_SENTENCES:
        return []
    base = baseline.stat("sentence_length")
    mean = statistics.fmean(lengths)
    spread = statistics.pstdev(lengths)
    # The document mean is itself noisy for short texts: add its sampling error to the population spread.
    sd_mean = math.sqrt(base["sd_of_means"] ** 2 + base["mean_spread"] ** 2 / len(lengths))
    z_mean = (mean - base["mean"]) / sd_mean
    cv = spread / mean if mean else 0.0
    z_cv = (cv - base["mean_cv"]) / math.sqrt(base["sd_cv"] ** 2 + 0.5 * base["mean_cv"] ** 2 / len(lengths))
    sentences = [(s, e) for s, e, _ in doc.counted_sentences]
    observations = []
    typical = f"typical writers average about {base['mean']:.0f} (spread ±{base['mean_spread']:.0f})"
    observed = f"sentences average {mean:.1f} words (spread ±{spread:.1f})"
    if abs(z_mean) >= 2.0:
        longest_first = z_mean > 0
        picked = sorted(
            zip(lengths, sentences, strict=True), key=lambda item: -item[0] if longest_first else item[0]
        )[:_MAX_SPANS]
        spans = sorted((Span(s, e, doc.text[s:e]) for _, (s, e) in picked), key=lambda sp: sp.start)
        observations.append(
            Observation(
                FAMILY,
                "rhythm.sentence_length",
                "long sentences" if longest_first else "short sentences",
                spans,
                count=len(lengths),
                evidence=f"{observed}; {typical}",
                surprise=baseline.normal_surprise(z_mean),
            )
        )
    if abs(z_cv) >= 2.0:
        observations.append(
            Observation(
                FAMILY,
                "rhythm.sentence_spread",
                "very uneven sentence lengths" if z_cv > 0 else "very even sentence lengths",
                [],
                count=len(lengths),
                evidence=f"{observed}; {typical}",
                surprise=baseline.normal_surprise(z_cv),
            )
        )
    return observations

"""Function-word profile: how often a writer uses "just", "very", "upon", "the"... compared to everyone.

Function words are used unconsciously and are the classic authorship signal (Mosteller & Wallace).
"""

from __future__ import annotations

import math
from collections import Counter

from native_host.style import baseline
from native_host.style.document import Document
from native_host.style.model import Observation, Span, Target

FAMILY = "function_words"
EDITS = False  # whether this family proposes replacements for the neutralizer

MIN_WORDS = 150
_Z_REPORT = 3.0
_TOP = 3
_MAX_SPANS = 60


def deviations(doc: Document) -> list[tuple[str, float, float, float]]:
    """(word, observed per 1k, typical per 1k, z) for every function word, most deviant first."""
    table: dict[str, dict[str, float]] = baseline.stat("function_words")
    n = doc.n_words
    counts = Counter(w for w in doc.lower_words if w in table)
    out = []
    for word, entry in table.items():
        mean = entry["per_1k"]
        rate = 1000.0 * counts.get(word, 0) / n
        sd = math.sqrt(entry["sd_per_1k"] ** 2 + 1000.0 * max(mean, 0.05) / n)
        out.append((word, rate, mean, (rate - mean) / sd))
    out.sort(key=lambda item: -abs(item[3]))
    return out


def observe(doc: Document, target: Target) -> list[Observation]:
    if doc.n_words < MIN_WORDS:
        return []
    ranked = [d for d in deviations(doc) if abs(d[3]) >= _Z_REPORT][:_TOP]
    if not ranked:
        return []
    over = {word for word, _, _, z in ranked if z > 0}
    spans = [
        Span(s, e, w, None)
        for (s, e, w), lower in zip(doc.words, doc.lower_words, strict=True)
        if lower in over
    ][:_MAX_SPANS]
    described = "; ".join(
        f'"{w}" {rate:.1f} per 1,000 words (typical {mean:.1f})' for w, rate, mean, _ in ranked
    )
    # Many words are tested at once: discount the best p-value by the number of words (Bonferroni).
    tested = len(baseline.stat("function_words"))
    surprise = max(0.0, baseline.normal_surprise(ranked[0][3]) - math.log10(tested))
    return [
        Observation(
            FAMILY,
            "function_words.profile",
            "unusual function-word profile",
            spans,
            count=len(ranked),
            evidence=described,
            surprise=surprise,
        )
    ]

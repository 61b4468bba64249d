"""Signature phrases: word n-grams a writer repeats; with a profile, the person's habitual phrases."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict

from native_host.style import data
from native_host.style.document import Document
from native_host.style.model import Observation, Span, Target

FAMILY = "phrases"
EDITS = False  # whether this family proposes replacements for the neutralizer

NGRAM_SIZES = (3, 4)
_MAX_PHRASES = 8
_MAX_LEN = 10


def content_ngrams(doc: Document, n: int) -> dict[tuple[str, ...], list[int]]:
    """n-grams with at least two content (non-function) words -> word indexes where they start."""
    function_words = data.words("function_words.txt")
    words = doc.lower_words
    content = [w not in function_words for w in words]
    found: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i in range(len(words) - n + 1):
        if sum(content[i : i + n]) >= 2:
            found[tuple(words[i : i + n])].append(i)
    return found


def repeated_phrases(doc: Document) -> list[tuple[tuple[str, ...], list[int]]]:
    """Repeated n-grams, longest first, dropping shorter ones inside a longer repeated phrase."""
    chosen: list[tuple[tuple[str, ...], list[int]]] = []
    covered: set[int] = set()
    for n in sorted(NGRAM_SIZES, reverse=True):
        for gram, starts in content_ngrams(doc, n).items():
            if len(starts) < 2 or any(i in covered for i in starts):
                continue
            gram, starts = _extend(doc.lower_words, gram, starts)
            chosen.append((gram, starts))
            for i in starts:
                covered.update(range(i, i + len(gram)))
    chosen.sort(key=lambda item: (-len(item[1]), -len(item[0])))
    return chosen[:_MAX_PHRASES]


def _extend(words: list[str], gram: tuple[str, ...], starts: list[int]) -> tuple[tuple[str, ...], list[int]]:
    """Grow a repeated n-gram left and right while every occurrence still agrees ("end of the day" ->
    "at the end of the day"), up to _MAX_LEN words, never letting occurrences overlap."""
    n = len(gram)
    while n < _MAX_LEN and all(i > 0 for i in starts) and len({words[i - 1] for i in starts}) == 1:
        starts = [i - 1 for i in starts]
        n += 1
        if any(b < a + n for a, b in itertools.pairwise(starts)):
            starts = [i + 1 for i in starts]
            n -= 1
            break
    while (
        n < _MAX_LEN and all(i + n < len(words) for i in starts) and len({words[i + n] for i in starts}) == 1
    ):
        if any(b < a + n + 1 for a, b in itertools.pairwise(starts)):
            break
        n += 1
    return tuple(words[starts[0] : starts[0] + n]), starts


def observe(doc: Document, target: Target, habitual: frozenset[str] = frozenset()) -> list[Observation]:
    words = doc.words
    observations: list[Observation] = []
    repeated = repeated_phrases(doc)
    spans = [
        Span(words[i][0], words[i + len(gram) - 1][1], doc.text[words[i][0] : words[i + len(gram) - 1][1]])
        for gram, starts in repeated
        for i in starts
    ]
    if spans:
        listed = ", ".join(f'"{" ".join(g)}" ×{len(s)}' for g, s in repeated[:3])
        observations.append(
            Observation(
                FAMILY,
                "phrases.repeated",
                "repeated phrases",
                sorted(spans, key=lambda s: s.start),
                count=len(repeated),
                evidence=f"phrases used more than once: {listed}",
            )
        )
    if habitual:
        hits: list[Span] = []
        seen: Counter[str] = Counter()
        for n in NGRAM_SIZES:
            for gram, starts in content_ngrams(doc, n).items():
                phrase = " ".join(gram)
                if phrase in habitual:
                    seen[phrase] += len(starts)
                    hits += [
                        Span(words[i][0], words[i + n - 1][1], doc.text[words[i][0] : words[i + n - 1][1]])
                        for i in starts
                    ]
        if hits:
            listed = ", ".join(f'"{p}"' for p, _ in seen.most_common(3))
            observations.append(
                Observation(
                    FAMILY,
                    "phrases.habitual",
                    "your habitual phrases",
                    sorted(hits, key=lambda s: s.start),
                    count=len(seen),
                    evidence=f"phrases that recur in your own past writing: {listed}",
                    surprise=3.0 * len(seen),
                )
            )
    return observations

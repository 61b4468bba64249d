"""Recurring misspellings ("definately", "alot", "could of"): a small table of common ones."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

from native_host.style import data
from native_host.style.document import Document
from native_host.style.families._common import keep_case, word_alternation
from native_host.style.model import Observation, Span, Target

FAMILY = "misspellings"
EDITS = True  # whether this family proposes replacements for the neutralizer


@cache
def _table() -> tuple[dict[str, str], re.Pattern[str]]:
    table = {wrong: right for wrong, right in data.tsv("misspellings.tsv")}
    phrases = [w for w in table if " " in w]
    return table, re.compile(rf"\b(?:{word_alternation(phrases)})\b", re.I)


# A word cut short by an apostrophe ("goin'", "an'", "frien'"; not a plural possessive "boys'"): written
# dialect, where "teh" is "to" and "would of" may be "would of themselves", not a slip to correct.
_ELISION = re.compile(r"\b[a-z]*[a-rt-z]['’](?![a-z])", re.I)
_DIALECT_REACH = 80  # characters either side


# "would of themselves teach us": "of" starts a phrase of its own, no "would have"
_OF_REFLEXIVE = re.compile(r"\s+(?:it|them|him|her|our|your|my|one)sel(?:f|ves)\b", re.I)


def _in_dialect(elisions: list[int], start: int) -> bool:
    """Two cut-short words nearby (one could be a closing single quote)."""
    return sum(abs(e - start) <= _DIALECT_REACH for e in elisions) >= 2


def observe(doc: Document, target: Target) -> list[Observation]:
    table, phrase_re = _table()
    elisions = [m.start() for m in _ELISION.finditer(doc.text)]
    spans = [
        Span(s, e, w, keep_case(w, table[lower]) if table[lower][0] != "I" else table[lower])
        for (s, e, w), lower in zip(doc.words, doc.lower_words, strict=True)
        if lower in table and not _in_dialect(elisions, s)
    ]
    spans += [
        Span(m.start(), m.end(), m.group(), keep_case(m.group(), table[m.group().lower()]))
        for m in doc.finditer(phrase_re)
        if not _in_dialect(elisions, m.start()) and not _OF_REFLEXIVE.match(doc.text, m.end())
    ]
    spans.sort(key=lambda s: s.start)
    evidence = None
    repeats = Counter(s.text.lower() for s in spans)
    recurring = [w for w, c in repeats.items() if c > 1]
    if recurring:
        evidence = (
            f"misspelled more than once: {', '.join(recurring[:3])} — a recurring slip is a fingerprint"
        )
    return [Observation(FAMILY, "misspellings.common", "common misspellings", spans, evidence=evidence)]

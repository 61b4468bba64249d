"""Small helpers shared by the family modules."""

from __future__ import annotations

import re
from collections.abc import Iterable

from native_host.style.document import Document
from native_host.style.model import Span

_HSPACE = " \t"


def keep_case(original: str, replacement: str) -> str:
    """Carry the original's casing over: "Colour" -> "Color", "TBH" -> "To be honest", "tbh" -> "to be honest"."""
    if not replacement or not original:
        return replacement
    if original.isupper() and len(original) > 1:
        return replacement.upper() if " " not in replacement else replacement[0].upper() + replacement[1:]
    if original[0].isupper():
        return replacement[0].upper() + replacement[1:]
    return replacement


def removal_span(doc: Document, start: int, end: int) -> Span:
    """A span that removes text[start:end] together with the whitespace that would be left doubled."""
    text = doc.text
    s, e = start, end
    while s > 0 and text[s - 1] in _HSPACE:
        s -= 1
    if s == start or s == 0 or text[s - 1] == "\n":
        # No space before it (or only a line's indentation): eat the whitespace after instead.
        while e < len(text) and text[e] in _HSPACE:
            e += 1
    if s > 0 and e < len(text) and text[s - 1] not in " \t\n" and text[e] not in " \t\n.,;:!?)]}":
        # Removing "x :) y" entirely would glue "xy": keep one space.
        return Span(s, e, text[s:e], " ")
    return Span(s, e, text[s:e], "")


def word_alternation(terms: Iterable[str]) -> str:
    """A regex alternation of literal terms, longest first so "imho" wins over "imo"."""
    return "|".join(re.escape(t) for t in sorted(set(terms), key=len, reverse=True))


def spans_for(doc: Document, pattern: re.Pattern[str], replacement: str | None = None) -> list[Span]:
    return [Span(m.start(), m.end(), m.group(), replacement) for m in doc.finditer(pattern)]

"""Invisible Unicode: zero-width characters, direction controls, unusual spaces and homoglyphs.

These survive copy and paste unseen and can carry a watermark, so all of them are fingerprints.
"""

from __future__ import annotations

import re
from functools import cache

from native_host.style import data
from native_host.style.document import Document
from native_host.style.model import Observation, Span, Target

FAMILY = "invisible"
EDITS = True  # whether this family proposes replacements for the neutralizer

_ZERO_WIDTH = re.compile(r"[\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u2061-\u2064\U000e0000-\U000e007f]")
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_RTL_LETTERS = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")
_UNUSUAL_SPACE = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_VARIATION_SELECTOR = re.compile(r"[\ufe00-\ufe0f]")
_LATIN = re.compile(r"[A-Za-z]")
# Characters that legitimately carry zero-width joiners and variation selectors (emoji, Indic, Arabic).
_JOINING_CONTEXT = re.compile(
    r"[\u0600-\u06ff\u0900-\u0dff\U0001f000-\U0001faff\u2600-\u27bf\u200d\ufe0f\U0001f3fb-\U0001f3ff]"
)


@cache
def _homoglyphs() -> dict[str, str]:
    return {a: b for a, b in data.tsv("homoglyphs.tsv")}


def observe(doc: Document, target: Target) -> list[Observation]:
    text = doc.text
    if text.isascii():  # nothing invisible or foreign can hide in ASCII
        return []
    zero_width = []
    for m in doc.finditer(_ZERO_WIDTH):
        ch = m.group()
        if ch in "\u200c\u200d":
            before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
            if _JOINING_CONTEXT.match(before or " ") or _JOINING_CONTEXT.match(after or " "):
                continue
        if ch == "\ufeff" and m.start() == 0:
            zero_width.append(Span(0, 1, ch, ""))
            continue
        zero_width.append(Span(m.start(), m.end(), ch, ""))
    has_rtl = bool(_RTL_LETTERS.search(text))
    bidi = [
        Span(m.start(), m.end(), m.group(), "")
        for m in doc.finditer(_BIDI)
        if not (has_rtl and m.group() in "\u200e\u200f\u061c")
    ]
    selectors = [
        Span(m.start(), m.end(), m.group(), "")
        for m in doc.finditer(_VARIATION_SELECTOR)
        if not _JOINING_CONTEXT.match(text[m.start() - 1 : m.start()] or " ")
    ]
    return [
        Observation(
            FAMILY, "invisible.zero_width", "zero-width or invisible characters", zero_width + selectors
        ),
        Observation(FAMILY, "invisible.bidi", "text-direction control characters", bidi),
        Observation(FAMILY, "invisible.unusual_space", "unusual space characters", _spaces(doc)),
        Observation(
            FAMILY, "invisible.homoglyph", "look-alike letters from another script", _homoglyph_spans(doc)
        ),
    ]


def _spaces(doc: Document) -> list[Span]:
    return [Span(m.start(), m.end(), m.group(), " ") for m in doc.finditer(_UNUSUAL_SPACE)]


def _homoglyph_spans(doc: Document) -> list[Span]:
    """Cyrillic/Greek letters inside otherwise Latin words ("pаypal" with a Cyrillic а)."""
    table = _homoglyphs()
    spans = []
    for start, _end, word in doc.words:
        if word.isascii() or not _LATIN.search(word):
            continue
        for offset, ch in enumerate(word):
            if ch in table:
                pos = start + offset
                spans.append(Span(pos, pos + 1, ch, table[ch]))
    return spans

"""Invisible Unicode: zero-width characters, direction controls, unusual spaces, homoglyphs and
fullwidth forms.

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
# Fullwidth ASCII (U+FF01-U+FF5E, "ＡＢＣ", "１２３", "！"): an input-method setting, not a writer's words.
_FULLWIDTH = re.compile(r"[\uff01-\uff5e]+")
_FULLWIDTH_ALNUM = re.compile(r"[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]")
_FULLWIDTH_OFFSET = 0xFEE0  # "Ａ" (U+FF21) - "A" (U+0041)
# Han, kana, Hangul and CJK punctuation: text whose own punctuation is fullwidth ("，" "。" "？").
_CJK = re.compile(r"[\u3001-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
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
    fullwidth = _fullwidth(doc)
    return [
        Observation(
            FAMILY, "invisible.zero_width", "zero-width or invisible characters", zero_width + selectors
        ),
        Observation(FAMILY, "invisible.bidi", "text-direction control characters", bidi),
        Observation(FAMILY, "invisible.unusual_space", "unusual space characters", _spaces(doc)),
        Observation(
            FAMILY, "invisible.homoglyph", "look-alike letters from another script", _homoglyph_spans(doc)
        ),
        Observation(
            FAMILY,
            "invisible.fullwidth",
            "fullwidth characters",
            fullwidth,
            count=sum(len(s.text) for s in fullwidth),
        ),
    ]


def _fullwidth(doc: Document) -> list[Span]:
    """Fullwidth forms become their ASCII letters, digits and signs (what NFKC does, for this block only).
    In Chinese, Japanese or Korean text fullwidth punctuation is the ordinary kind: there only letters and
    digits are narrowed ("好吗？ＯＫ。" -> "好吗？OK。")."""
    cjk = bool(_CJK.search(doc.text))
    spans = []
    for m in doc.finditer(_FULLWIDTH):
        run = m.group()
        if cjk:
            for k in _FULLWIDTH_ALNUM.finditer(run):
                pos = m.start() + k.start()
                spans.append(Span(pos, pos + 1, k.group(), _narrow(k.group())))
        else:
            spans.append(Span(m.start(), m.end(), run, _narrow(run)))
    return spans


def _narrow(run: str) -> str:
    return "".join(chr(ord(ch) - _FULLWIDTH_OFFSET) for ch in run)


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

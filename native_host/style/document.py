"""A read-only view of one text that every family shares: words, sentences, paragraphs, protected spans.

Everything is computed lazily and once, so twenty families cost one tokenization.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from functools import cached_property

from native_host.style.protect import protected_spans

# Letters of any script, with inner apostrophes ("don't", "o’clock").
WORD_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
# A sentence ends at . ! ? … (possibly repeated, possibly followed by closing quotes) + whitespace.
_SENTENCE_END_RE = re.compile(r"(?:[.!?…]+[\"'”’)\]]*)(?=\s|$)|\n\s*\n")
_PARAGRAPH_SPLIT_RE = re.compile(r"\n[ \t]*\n\s*")
# A quotation: double quotes, straight or curly, within one paragraph (a line break may wrap it).
_QUOTED_RE = re.compile(r'"(?:[^"\n]|\n(?![ \t]*\n)){1,600}"|“(?:[^“”\n]|\n(?![ \t]*\n)){1,600}”')
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "jr",
        "sr",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "cf",
        "fig",
        "no",
        "vol",
        "approx",
        "dept",
        "inc",
        "ltd",
        "co",
        "mt",
    ]
)


class Document:
    def __init__(self, text: str, extra_protected: list[tuple[int, int, str]] | None = None) -> None:
        self.text = text
        # Spans protected in an earlier version of the text (the neutralizer's later passes).
        self._extra_protected = extra_protected or []

    # --- protected spans -------------------------------------------------------------------
    @cached_property
    def protected(self) -> list[tuple[int, int, str]]:
        spans = protected_spans(self.text)
        if not self._extra_protected:
            return spans
        return _merge_disjoint(sorted(spans + self._extra_protected))

    @cached_property
    def _protected_starts(self) -> list[int]:
        return [s for s, _, _ in self.protected]

    def is_protected(self, start: int, end: int) -> bool:
        """True when [start, end) overlaps any protected span."""
        # Protected spans are sorted and disjoint, so their ends are sorted too: only the last
        # span starting before `end` can overlap.
        i = bisect.bisect_left(self._protected_starts, end)
        return i > 0 and self.protected[i - 1][1] > start

    def finditer(self, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        """Matches of `pattern` that do not touch a protected span (matches come in text order, so
        one pointer walks the sorted protected spans alongside them)."""
        protected = self.protected
        if not protected:
            yield from pattern.finditer(self.text)
            return
        j = 0
        n = len(protected)
        for m in pattern.finditer(self.text):
            start, end = m.span()
            end = max(end, start + 1)
            while j < n and protected[j][1] <= start:
                j += 1
            if j < n and protected[j][0] < end:
                continue
            yield m

    # --- quotations -------------------------------------------------------------------------
    @cached_property
    def quoted(self) -> list[tuple[int, int]]:
        """(start, end) of each double-quoted stretch, quote marks included: someone's words as written."""
        return [m.span() for m in _QUOTED_RE.finditer(self.text)]

    def in_quotes(self, start: int, end: int) -> bool:
        """True when [start, end) overlaps a quotation."""
        quoted = self.quoted
        i = bisect.bisect_left(quoted, (end,))
        return i > 0 and quoted[i - 1][1] > start

    # --- words ------------------------------------------------------------------------------
    @cached_property
    def words(self) -> list[tuple[int, int, str]]:
        """(start, end, word) for every word outside protected spans."""
        return [(m.start(), m.end(), m.group()) for m in self.finditer(WORD_RE)]

    @cached_property
    def lower_words(self) -> list[str]:
        return [w.lower().replace("’", "'") for _, _, w in self.words]

    @property
    def n_words(self) -> int:
        return len(self.words)

    def per_1k(self, count: float) -> float:
        return 1000.0 * count / max(self.n_words, 1)

    # --- sentences and paragraphs -------------------------------------------------------------
    @cached_property
    def sentences(self) -> list[tuple[int, int]]:
        """(start, end) of each sentence, trimmed; abbreviations like "e.g." do not end one."""
        spans: list[tuple[int, int]] = []
        start = 0
        text = self.text
        for m in _SENTENCE_END_RE.finditer(text):
            if m.group().startswith(".") and m.group() == ".":
                prev = WORD_RE.search(text, max(0, m.start() - 6), m.start())
                if prev and prev.end() == m.start() and prev.group().lower() in _ABBREVIATIONS:
                    continue
                if prev and prev.end() == m.start() and len(prev.group()) == 1 and prev.group().isupper():
                    continue  # an initial: "J. Smith"
            end = m.end()
            append_trimmed(spans, text, start, end)
            start = end
        append_trimmed(spans, text, start, len(text))
        return spans

    @cached_property
    def counted_sentences(self) -> list[tuple[int, int, int]]:
        """(start, end, number of words) of each sentence that has words."""
        starts = [s for s, _, _ in self.words]
        out = []
        for s, e in self.sentences:
            n = bisect.bisect_left(starts, e) - bisect.bisect_left(starts, s)
            if n:
                out.append((s, e, n))
        return out

    @property
    def sentence_word_counts(self) -> list[int]:
        return [n for _, _, n in self.counted_sentences]

    @cached_property
    def paragraphs(self) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        start = 0
        for m in _PARAGRAPH_SPLIT_RE.finditer(self.text):
            append_trimmed(spans, self.text, start, m.start())
            start = m.end()
        append_trimmed(spans, self.text, start, len(self.text))
        return spans

    def at_sentence_start(self, pos: int) -> bool:
        """True when only whitespace/quotes separate `pos` from the text start or a sentence end."""
        i = pos - 1
        text = self.text
        while i >= 0 and text[i] in " \t\"'“‘(":
            i -= 1
        if i < 0 or text[i] == "\n":
            return True
        if text[i] in ".!?…" and i < pos - 1:
            prev = WORD_RE.search(text, max(0, i - 6), i)
            return not (prev and prev.end() == i and prev.group().lower() in _ABBREVIATIONS)
        return False


def append_trimmed(spans: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    """Append text[start:end] as a span without its surrounding whitespace, unless nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def _merge_disjoint(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Union of sorted spans as disjoint spans (the kind of the first span of a merged run is kept)."""
    out: list[tuple[int, int, str]] = []
    for s, e, kind in spans:
        if out and s < out[-1][1]:
            ps, pe, pk = out[-1]
            out[-1] = (ps, max(pe, e), pk)
        else:
            out.append((s, e, kind))
    return out

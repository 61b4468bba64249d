"""What the attackers and their surrogates read from a text: words, character 3-grams, punctuation.

    words(text), char3(text), function_words(), PUNCTUATION   (native_host.eval.attackers reads these too)
    DocCounts.from_text(text)        one text's counts: no text, only counts (what is stored and shipped)
    edit_delta(text, start, end, r)  the counts an edit changes, read from the span and its context
    delta_reach(text, start, end)    the slice of text edit_delta reads for that span, whatever r
    as_char3_reads(text)             text with its whitespace runs as the char analyzer reads them
    apply_delta(counts, delta)

So the surrogates (surrogates.py) read exactly what the attackers read.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

PUNCTUATION = list(".,;:!?'\"()-—–…")
_WORDS = re.compile(r"[a-zà-ÿ]+(?:'[a-z]+)?")
_WHITESPACE_RUNS = re.compile(r"\s\s+")  # TfidfVectorizer's char analyzer collapses these
_PUNCT_SET = frozenset(PUNCTUATION)


@cache
def function_words() -> tuple[str, ...]:
    text = (
        resources.files("native_host.style")
        .joinpath("data/attacker_function_words.txt")
        .read_text(encoding="utf-8")
    )
    return tuple(w.strip() for w in text.splitlines() if w.strip() and not w.startswith("#"))


def words(text: str) -> list[str]:
    return _WORDS.findall(text.lower())


def char3(text: str) -> Counter[str]:
    t = _WHITESPACE_RUNS.sub(" ", text.lower())
    return Counter(t[i : i + 3] for i in range(len(t) - 2))


def as_char3_reads(text: str) -> str:
    """`text` with each run of two or more whitespace characters as one space, as char3 reads it (a single
    whitespace character stays itself: "\\n" is not " ")."""
    return _WHITESPACE_RUNS.sub(" ", text)


def punct(text: str) -> Counter[str]:
    return Counter(ch for ch in text if ch in _PUNCT_SET)


@dataclass
class DocCounts:
    """What the three families read from one text: no text, only counts."""

    char3: Counter[str]
    words: Counter[str]
    n_words: int
    n_chars: int
    punct: Counter[str]

    @classmethod
    def from_text(cls, text: str) -> DocCounts:
        w = Counter(words(text))
        return cls(char3(text), w, sum(w.values()), len(text), punct(text))

    def to_dict(self) -> dict:
        return {
            "char3": dict(self.char3),
            "words": dict(self.words),
            "n_words": self.n_words,
            "n_chars": self.n_chars,
            "punct": dict(self.punct),
        }

    @classmethod
    def from_dict(cls, raw: dict) -> DocCounts:
        return cls(
            Counter({str(k): int(v) for k, v in raw["char3"].items()}),
            Counter({str(k): int(v) for k, v in raw["words"].items()}),
            int(raw["n_words"]),
            int(raw["n_chars"]),
            Counter({str(k): int(v) for k, v in raw["punct"].items()}),
        )


@dataclass
class CountsDelta:
    """The change an edit makes to a DocCounts (signed counts)."""

    char3: Counter[str] = field(default_factory=Counter)
    words: Counter[str] = field(default_factory=Counter)
    n_words: int = 0
    n_chars: int = 0
    punct: Counter[str] = field(default_factory=Counter)


def _signed(new: Counter[str], old: Counter[str]) -> Counter[str]:
    out: Counter[str] = Counter(new)
    for k, v in old.items():
        out[k] -= v
    return Counter({k: v for k, v in out.items() if v})


def _is_word_char(ch: str) -> bool:
    return ch.isalpha() or ch == "'"


def _context_left(text: str, pos: int, chars: int = 2) -> int:
    """Start of the 2 characters before pos as the char analyzer sees them (a whitespace run is one)."""
    i = pos
    for _ in range(chars):
        if i == 0:
            break
        if text[i - 1].isspace():
            while i > 0 and text[i - 1].isspace():
                i -= 1
        else:
            i -= 1
    return i


def _context_right(text: str, pos: int, chars: int = 2) -> int:
    i = pos
    for _ in range(chars):
        if i == len(text):
            break
        if text[i].isspace():
            while i < len(text) and text[i].isspace():
                i += 1
        else:
            i += 1
    return i


def edit_delta(text: str, start: int, end: int, replacement: str) -> CountsDelta:
    """Counts change of replacing text[start:end], read from the span and its immediate context."""
    a, b = _context_left(text, start), _context_right(text, end)
    old_region, new_region = text[a:b], text[a:start] + replacement + text[end:b]
    c3 = _signed(char3(new_region), char3(old_region))
    a, b = start, end
    while a > 0 and _is_word_char(text[a - 1]):
        a -= 1
    while b < len(text) and _is_word_char(text[b]):
        b += 1
    old_words = Counter(words(text[a:b]))
    new_words = Counter(words(text[a:start] + replacement + text[end:b]))
    dw = _signed(new_words, old_words)
    return CountsDelta(
        c3,
        dw,
        sum(new_words.values()) - sum(old_words.values()),
        len(replacement) - (end - start),
        _signed(punct(replacement), punct(text[start:end])),
    )


def delta_reach(text: str, start: int, end: int) -> tuple[int, int]:
    """(lo, hi): the characters edit_delta(text, start, end, r) reads, whatever r: the 2 characters either
    side as the char analyzer sees them (a whitespace run is one) and the word the span touches. An edit
    of a part of text[start:end] reads no further. Two texts whose text[lo:start] and text[end:hi] read
    alike (as_char3_reads) and whose spans are equal get the same delta for every r."""
    a, b = start, end
    while a > 0 and _is_word_char(text[a - 1]):
        a -= 1
    while b < len(text) and _is_word_char(text[b]):
        b += 1
    return min(a, _context_left(text, start)), max(b, _context_right(text, end))


def apply_delta(counts: DocCounts, delta: CountsDelta) -> None:
    for attr in ("char3", "words", "punct"):
        target: Counter[str] = getattr(counts, attr)
        for k, v in getattr(delta, attr).items():
            n = target.get(k, 0) + v
            if n:
                target[k] = n
            else:
                target.pop(k, None)
    counts.n_words += delta.n_words
    counts.n_chars += delta.n_chars

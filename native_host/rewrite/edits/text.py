"""What every edit family reads: the text's words, sentences and protected spans, computed once.

`Edit` lives here (re-exported by the package) so the family modules can import it without a cycle.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from native_host.rewrite.edits import lexicon_data
from native_host.style.document import append_trimmed
from native_host.style.protect import protected_spans


@dataclass(frozen=True)
class Edit:
    start: int  # code-point offset into the text given to propose()
    end: int  # exclusive
    replacement: str
    family: str  # "lexical" | "function_word" | "syntax"
    rule: str  # e.g. "whilst->while", "lex:big->large", "split:and"
    needs_lm_check: bool  # True where sense/fluency is uncertain: the caller scores it in context


# Letters of any script, with inner apostrophes ("don't", "o’clock") and inner hyphens kept whole
# ("well-known" is one word, so no edit touches half of it).
WORD_RE = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# Quoted passages are the author's (or someone else's) exact words: protected. Straight double quotes
# pair up; curly ones pair by direction; single curly quotes only when they open after a non-letter.
_QUOTE_RE = re.compile(r"\"[^\"\n]{0,2000}\"|“[^”\n]{0,2000}”|(?<![^\W\d_])‘[^’\n]{0,2000}’(?![^\W\d_])")
_SENTENCE_END_RE = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|\n\s*\n")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st jr sr vs etc e.g i.e cf fig no vol approx dept inc ltd co mt viz esq".split()
)

NEGATION_RE = re.compile(
    r"(?<![\w'’])(?:not|no|never|nor|neither|none|nothing|nobody|nowhere|cannot|without|hardly|scarcely|barely)"
    r"(?![\w'’])|n['’]t(?![\w'’])",
    re.I,
)


_WHETHER_OR_NOT = re.compile(r"\bwhether or not\b|\bnot only\b", re.I)


def negations(s: str) -> int:
    """How many negating words `s` holds ("don't" and "do not" count one each; the "not" of "whether
    or not" and of "not only" negate nothing)."""
    return len(NEGATION_RE.findall(_WHETHER_OR_NOT.sub("whether", s)))


def match_case(model: str, word: str) -> str:
    """`word` with the capitalization of `model` (all caps, first capital, or as given)."""
    if len(model) > 1 and model.isupper():
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


_AN_EXCEPTIONS_A = ("uni", "use", "usu", "uti", "eu", "one", "once", "ewe", "ur", "uk", "ufo", "u.")
_AN_EXCEPTIONS_AN = ("hour", "honest", "honour", "honor", "heir", "herb")


def article_for(word: str) -> str:
    """'a' or 'an' before `word`, by its first sound as far as the spelling tells."""
    w = word.lower()
    if w.startswith(_AN_EXCEPTIONS_AN):
        return "an"
    if w.startswith(_AN_EXCEPTIONS_A):
        return "a"
    return "an" if w[:1] in "aeiou" else "a"


@dataclass(slots=True)
class Token:
    start: int
    end: int
    text: str
    norm: str  # lower case, curly apostrophe made straight
    free: bool  # outside every protected span


class Doc:
    """One text as the families see it. Protected spans are the caller's plus our own (numbers,
    URLs, code, quotes); `free(start, end)` says whether an edit may touch [start, end)."""

    def __init__(self, text: str, protected: Sequence[tuple[int, int]] = ()) -> None:
        self.text = text
        spans = [(s, e) for s, e, _ in protected_spans(text)]
        spans += [m.span() for m in _QUOTE_RE.finditer(text)]
        spans += [(int(s), int(e)) for s, e in protected if e > s]
        merged: list[list[int]] = []
        for s, e in sorted(spans):
            if merged and s < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        self.protected = [(s, e) for s, e in merged]
        self._pstarts = [s for s, _ in self.protected]
        # The apostrophe the author types, used in any contraction we write.
        self.apostrophe = "’" if text.count("’") > text.count("'") else "'"

    def free(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self._pstarts, max(end, start + 1))
        return not (i > 0 and self.protected[i - 1][1] > start)

    @cached_property
    def tokens(self) -> list[Token]:
        out = []
        for m in WORD_RE.finditer(self.text):
            s, e = m.span()
            word = m.group()
            out.append(Token(s, e, word, word.lower().replace("’", "'"), self.free(s, e)))
        return out

    @cached_property
    def norms(self) -> list[str]:
        return [t.norm for t in self.tokens]

    def gap(self, i: int) -> str:
        """Text between token i and token i+1 ('' past the end)."""
        toks = self.tokens
        if i + 1 >= len(toks):
            return self.text[toks[i].end :] if 0 <= i < len(toks) else ""
        return self.text[toks[i].end : toks[i + 1].start]

    def before(self, i: int) -> str:
        """Text between token i-1 and token i."""
        toks = self.tokens
        return self.text[(toks[i - 1].end if i > 0 else 0) : toks[i].start]

    @cached_property
    def _plain(self) -> list[bool]:
        toks, text = self.tokens, self.text
        out = []
        for a, b in itertools.pairwise(toks):
            g = text[a.end : b.start]
            out.append(g.isspace() and g.count("\n") <= 1)
        out.append(False)
        return out

    def plain_gap(self, i: int) -> bool:
        """Token i and i+1 are separated by spaces only (no punctuation, no paragraph break)."""
        return 0 <= i < len(self._plain) and self._plain[i]

    @cached_property
    def sentences(self) -> list[tuple[int, int]]:
        """(start, end) of each sentence, trimmed; abbreviations and initials do not end one."""
        text = self.text
        spans: list[tuple[int, int]] = []
        start = 0
        for m in _SENTENCE_END_RE.finditer(text):
            if m.group().startswith(".") and m.group().rstrip("\"'”’)]") == ".":
                prev = WORD_RE.search(text, max(0, m.start() - 6), m.start())
                if prev and prev.end() == m.start():
                    w = prev.group().lower()
                    if w in _ABBREVIATIONS or (len(w) == 1 and prev.group().isupper()):
                        continue
            append_trimmed(spans, text, start, m.end())
            start = m.end()
        append_trimmed(spans, text, start, len(text))
        return spans

    @cached_property
    def _sentence_starts(self) -> list[int]:
        return [s for s, _ in self.sentences]

    def sentence_of(self, pos: int) -> int:
        return max(0, bisect.bisect_right(self._sentence_starts, pos) - 1)

    @cached_property
    def sentence_first_token(self) -> set[int]:
        """Indices of tokens that open a sentence (possibly after an opening quote or bracket)."""
        starts = set(self._sentence_starts)
        out = set()
        for i, t in enumerate(self.tokens):
            j = t.start
            while j > 0 and self.text[j - 1] in "\"'“‘([":
                j -= 1
            if j in starts:
                out.add(i)
        return out

    def at_sentence_start(self, i: int) -> bool:
        return i in self.sentence_first_token

    @cached_property
    def token_starts(self) -> list[int]:
        return [t.start for t in self.tokens]

    def token_range(self, start: int, end: int) -> range:
        """Indices of the tokens inside [start, end)."""
        a = bisect.bisect_left(self.token_starts, start)
        b = bisect.bisect_left(self.token_starts, end)
        return range(a, b)

    @cached_property
    def capitalized_midsentence(self) -> set[str]:
        """Lower-cased words the text capitalizes inside sentences: names, whatever their case at a
        sentence start."""
        first = self.sentence_first_token
        return {t.norm for i, t in enumerate(self.tokens) if t.text[:1].isupper() and i not in first}

    def pos(self, i: int) -> dict[str, float]:
        """Part-of-speech shares of token i out of context ({'n': .7, 'v': .3}), from WordNet counts."""
        return lexicon_data.pos_shares(self.tokens[i].norm)

    def lower_first(self, word: str) -> str:
        """A sentence-initial word as it would read inside a sentence (names and "I" keep capitals)."""
        norm = word.lower().replace("’", "'")
        if word == "I" or word.startswith(("I'", "I’")) or norm in self.capitalized_midsentence:
            return word
        if len(word) > 1 and word.isupper():
            return word
        if not lexicon_data.is_common_lower(norm):
            return word
        return word[:1].lower() + word[1:]


Move = Callable[[Doc, list[Edit]], None]  # one kind of edit: appends its edits for a text to the list


def apply_moves(doc: Doc, moves: Sequence[Move], out: list[Edit] | None = None) -> list[Edit]:
    """The edits of each move in turn (after `out`'s), in the order the moves give them."""
    out = [] if out is None else out
    for move in moves:
        move(doc, out)
    return out

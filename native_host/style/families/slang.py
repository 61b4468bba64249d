"""Internet abbreviations and slang (tbh, imo, lol, u, r, gonna, ...), spelled out by the neutralizer, and
stretched words ("sooo", "pleeease"), shortened to the word."""

from __future__ import annotations

import bisect
import itertools
import re
from functools import cache

from native_host.style import data
from native_host.style.document import Document
from native_host.style.families._common import keep_case, removal_span, word_alternation
from native_host.style.model import Observation, Span, Target

FAMILY = "slang"
EDITS = True  # whether this family proposes replacements for the neutralizer

_LAUGHTER = r"(?:ha){2,}h?|(?:he){2,}h?|(?:hi){3,}"
# Single letters are slang only in lower case and not as part of "U.S." or "R&D".
_SINGLE_LETTER_GUARD = re.compile(r"[.&'’-]")
# What may sit between a term and the words next to it that already say what it means.
_GAP = " \t,"
_REACH = 40  # characters looked at either side for those words

# A letter written three times or more ("sooo"); no English word has one, save in names and sounds.
# Any character is matched and the letters picked after: a regex of letters only scans 5x slower.
_STRETCH = re.compile(r"(.)\1\1", re.S)
_RUN = re.compile(r"([^\W\d_])\1{2,}")
_MAX_RUNS = 4  # runs shortened per word (2**4 spellings tried)
_ROMAN_LETTERS = frozenset("ivxlcdm")  # "viii", "xiii": numerals, not stretched words
_CAPS_MIN_LEN = 5  # a shorter stretch in capitals is mostly an acronym ("AAAS", "WWW")
# The spelling a stretched word is shortened to: a letter doubled when that makes a common word ("tooo"
# -> "too", "gooood" -> "good"), else single when that is a word ("sooo" -> "so", "pleeease" -> "please").
_COMMON_ZIPF = 4.5
_WORD_ZIPF = 3.0


@cache
def _table() -> tuple[dict[str, str], re.Pattern[str]]:
    table = {row[0]: (row[1] if len(row) > 1 else "") for row in data.tsv("slang.tsv")}
    pattern = re.compile(rf"(?<![\w'’@#./-])(?:{word_alternation(table)}|{_LAUGHTER})(?![\w'’@/]|\.\w)", re.I)
    return table, pattern


@cache
def _same_meaning() -> dict[str, tuple[str, ...]]:
    """term -> the words and phrases that already say what it means (its replacement among them)."""
    out = {}
    for row in data.tsv("slang.tsv"):
        phrases = {row[1].lower().replace("’", "'")} if len(row) > 1 and row[1] else set()
        if len(row) > 2:
            phrases.update(p for p in row[2].split("|") if p)
        out[row[0]] = tuple(phrases)
    return out


def observe(doc: Document, target: Target) -> list[Observation]:
    table, pattern = _table()
    text = doc.text
    spans: list[Span] = []
    for m in doc.finditer(pattern):
        word = m.group()
        lower = word.lower().replace("’", "'")
        if len(word) == 1 and (
            word != lower or _SINGLE_LETTER_GUARD.match(text[m.end() : m.end() + 1] or " ")
        ):
            continue
        expansion = table.get(lower, "")
        if not target.expand_slang:
            spans.append(Span(m.start(), m.end(), word, None))
        elif expansion and _said_next_to_it(text, m.start(), m.end(), lower, table):
            spans.append(_dropped(doc, m.start(), m.end()))
        elif expansion:
            spans.append(Span(m.start(), m.end(), word, keep_case(word, expansion)))
        else:
            spans.append(removal_span(doc, m.start(), m.end()))
    return [
        Observation(FAMILY, "slang.abbreviations", "internet abbreviations and slang", spans),
        Observation(FAMILY, "slang.elongation", "stretched words (sooo, pleeease)", _stretched(doc, target)),
    ]


def _said_next_to_it(text: str, start: int, end: int, term: str, table: dict[str, str]) -> bool:
    """Whether the words right before or after the term already say what it means ("Honestly tbh", "tbh,
    to be honest", "the ppl people"): spelling it out would say it twice. A term after it that is slang
    itself ("tbh ngl") does not count: that one goes instead, and this one is spelled out."""
    before = text[max(0, start - _REACH) : start].rstrip(_GAP).lower().replace("’", "'")
    after = text[end : end + _REACH].lstrip(_GAP).lower().replace("’", "'")
    for phrase in _same_meaning().get(term, ()):
        if before.endswith(phrase) and not before[: len(before) - len(phrase)][-1:].isalpha():
            return True
        if (
            after.startswith(phrase)
            and not after[len(phrase) : len(phrase) + 1].isalpha()
            and phrase not in table
        ):
            return True
    return False


def _dropped(doc: Document, start: int, end: int) -> Span:
    """Removes the term and what would be left doubled: "Honestly, tbh, it" -> "Honestly, it"; "fine, to be
    honest, tbh." -> "fine, to be honest."; at a sentence start the next word takes the term's capital
    ("Tbh honestly" -> "Honestly")."""
    text = doc.text
    e = end + (text[end : end + 1] == ",")
    while e < len(text) and text[e] in " \t":
        e += 1
    if doc.at_sentence_start(start):
        nxt = text[e : e + 1]
        if text[start].isupper() and nxt.islower():
            return Span(start, e + 1, text[start : e + 1], nxt.upper())
        return Span(start, e, text[start:e], "")
    s = start
    while s > 0 and text[s - 1] in " \t":
        s -= 1
    if s > 0 and text[s - 1] == ",":
        if text[end : end + 1] == ",":
            return Span(start, e, text[start:e], "")  # "Honestly, tbh, it" -> "Honestly, it"
        if end == len(text) or text[end] in ".!?;:)":
            return Span(s - 1, end, text[s - 1 : end], "")  # "honest, tbh." -> "honest."
    return removal_span(doc, start, end)


def _stretched(doc: Document, target: Target) -> list[Span]:
    """Words with a letter written three times or more, each with the word it stretches (None when no
    common word is found, or with `expand_slang` off). Left alone: a word of one letter ("zzz", "Mmm"),
    a sound (sound_words.txt: "hisss", "grrr"), a capitalized word inside a sentence (a name), a short
    word in capitals (an acronym), roman numerals, quotations, and protected spans (URLs, code, tags)."""
    spans: list[Span] = []
    last = -1
    for m in _STRETCH.finditer(doc.text):
        if not m.group(1).isalpha():
            continue
        i = bisect.bisect_right(doc.words, m.start(), key=_start) - 1
        if i < 0 or i == last:
            continue
        start, end, word = doc.words[i]
        if end < m.end():
            continue  # not inside a word outside the protected spans
        last = i
        if not _stretch_to_shorten(doc, start, end, word):
            continue
        spellings = _spellings(word.lower().replace("’", "'"))
        sounds = data.words("sound_words.txt")
        if any(s in sounds for s in spellings):
            continue
        shortened = _shortest_word(spellings) if target.expand_slang else None
        spans.append(Span(start, end, word, shortened and keep_case(word, shortened)))
    return spans


def _start(word: tuple[int, int, str]) -> int:
    return word[0]


def _stretch_to_shorten(doc: Document, start: int, end: int, word: str) -> bool:
    """Not a name, an acronym, a numeral, a one-letter sound ("zzz") or part of a quotation."""
    lower = word.lower()
    if len(set(lower)) == 1 or set(lower) <= _ROMAN_LETTERS or doc.in_quotes(start, end):
        return False
    if word.isupper():
        return len(word) >= _CAPS_MIN_LEN and word not in data.words("acronyms.txt")
    if word.islower():
        return True
    # capitalized: a stretched word at a sentence start ("Sooo"), else a name ("Ollly") or mixed case
    return word[0].isupper() and word[1:].islower() and doc.at_sentence_start(start)


def _spellings(lower: str) -> list[str]:
    """The word with each run of three or more letters written once or twice ("tooo": "to", "too")."""
    runs = list(_RUN.finditer(lower))[:_MAX_RUNS]
    out = []
    for lengths in itertools.product((1, 2), repeat=len(runs)):
        parts, pos = [], 0
        for run, n in zip(runs, lengths, strict=True):
            parts.append(lower[pos : run.start()] + run.group(1) * n)
            pos = run.end()
        out.append("".join(parts) + lower[pos:])
    return out


def _shortest_word(spellings: list[str]) -> str | None:
    """The longest spelling that is a common word, else the most frequent that is a word at all."""
    common = [s for s in spellings if data.zipf(s) >= _COMMON_ZIPF]
    if common:
        return max(common, key=lambda s: (len(s), data.zipf(s)))
    known = [s for s in spellings if data.zipf(s) >= _WORD_ZIPF]
    return max(known, key=data.zipf) if known else None

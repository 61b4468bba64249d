"""Punctuation habits: dashes, ellipses, !! and ?!, spacing around punctuation, Oxford comma, ; and ()."""

from __future__ import annotations

import bisect
import re

from native_host.style import data
from native_host.style.document import Document
from native_host.style.families._common import spans_for
from native_host.style.model import Observation, Span, Target

FAMILY = "punctuation"
EDITS = True  # whether this family proposes replacements for the neutralizer

_DASH = re.compile(r"—|―|(?<![-!<])--(?![->])|–")
# A capitalized word or a subject pronoun right after a dash starts a new clause more often than not.
_CLAUSE_START = re.compile(r"(?:[A-Z]|(?:he|she|it|they|we|you|i|there)\b)")
# Words either side of a dash (an apostrophe inside a word belongs to it: "he'd", "he’d"); the word right
# after a dash with the punctuation that follows it, if any ("no," "well!").
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_WORD_AFTER = re.compile(r"([^\W\d_]+(?:['’][^\W\d_]+)*)([,!?—–-]?)")
# Where a sentence ends, for keeping a sentence's dashes alike (see _dash_spans).
_SENTENCE_END = re.compile(r"[.!?][\"'”’)]*\s+|\n[ \t]*\n")
_ELLIPSIS = re.compile(r"\.{3,}|…+|\. \. \.")
_BANGS = re.compile(r"[!?]{2,}")
# Whitespace runs start only where the run starts and never backtrack (++): a run of 20,000 spaces
# must not cost 20,000² steps.
_SPACE_BEFORE = re.compile(r"(?<![ \t])[ \t]++(?=[,.;:!?](?:\s|$))")
_TWO_SPACES_AFTER_STOP = re.compile(r"(?<=[.!?]) {2,}+(?=\S)")
_MULTIPLE_SPACES = re.compile(r"(?<! ) {2,}+(?=\S)")
_OXFORD_TAIL = re.compile(r"(,)\s(?:and|or)\b")
# Checked backwards from the ", and": "red, white, and blue" has two list items before it.
_OXFORD_HEAD = re.compile(r"\w+(?:\s\w+)?,\s\w+(?:\s\w+)?$")
_SEMICOLON = re.compile(r";(?![-']?[)(DPp])")
_PARENS = re.compile(r"\((?:[^()\n]|\n(?!\s*\n)){1,200}\)")
_HSPACE = " \t"


def observe(doc: Document, target: Target) -> list[Observation]:
    text = doc.text
    em: list[Span] = []
    en: list[Span] = []
    for dash, span in _dash_spans(text, [(m.start(), m.end()) for m in doc.finditer(_DASH)]):
        (en if dash == "–" else em).append(span)
    ellipses = [_ellipsis_span(text, m.start(), m.end()) for m in doc.finditer(_ELLIPSIS)]
    interro: list[Span] = []
    exclaims: list[Span] = []
    for m in doc.finditer(_BANGS):
        if "?" in m.group():
            if m.group() != "?" * len(m.group()) or len(m.group()) >= 2:
                interro.append(Span(m.start(), m.end(), m.group(), "?"))
        else:
            exclaims.append(Span(m.start(), m.end(), m.group(), "!"))
    oxford = [
        Span(m.start(1), m.end(1), ",", None)
        for m in doc.finditer(_OXFORD_TAIL)
        if _OXFORD_HEAD.search(text, max(0, m.start() - 80), m.start())
    ]
    two_spaces = spans_for(doc, _TWO_SPACES_AFTER_STOP, " ")
    after_stop = {s.start for s in two_spaces}
    multiple = [
        Span(m.start(), m.end(), m.group(), " ")
        for m in doc.finditer(_MULTIPLE_SPACES)
        if m.start() > 0 and text[m.start() - 1] not in " \t\n" and m.start() not in after_stop
    ]
    space_before = [
        Span(m.start(), m.end(), m.group(), "")
        for m in doc.finditer(_SPACE_BEFORE)
        if m.start() > 0 and text[m.start() - 1] not in " \t\n" and not _starts_ellipsis(text, m.end())
    ]
    return [
        Observation(FAMILY, "punctuation.em_dash", "em dashes", em),
        Observation(FAMILY, "punctuation.en_dash", "en dashes", en),
        Observation(FAMILY, "punctuation.ellipsis", "ellipses", ellipses),
        Observation(FAMILY, "punctuation.multiple_exclamation", "repeated exclamation marks (!!)", exclaims),
        Observation(FAMILY, "punctuation.interrobang", "?! or ?? combinations", interro),
        Observation(FAMILY, "punctuation.space_before", "spaces before punctuation", space_before),
        Observation(FAMILY, "punctuation.two_spaces_after_stop", "two spaces after a full stop", two_spaces),
        Observation(FAMILY, "punctuation.multiple_spaces", "runs of spaces between words", multiple),
        Observation(FAMILY, "punctuation.oxford_comma", "Oxford commas", oxford),
        Observation(FAMILY, "punctuation.semicolon", "semicolons", spans_for(doc, _SEMICOLON)),
        Observation(FAMILY, "punctuation.parentheses", "parenthetical asides", spans_for(doc, _PARENS)),
    ]


def _dash_spans(text: str, dashes: list[tuple[int, int]]) -> list[tuple[str, Span]]:
    """Each dash with its span; a dash left alone keeps the other dashes of its sentence too.

    Dashes in a sentence mostly pair around an aside ("and—what surprised me rather—took some pains"):
    changing one of the pair to a comma and leaving the other reads as a mismatched parenthetical. An en
    dash in a number range is not a pair's member and keeps its hyphen.
    """
    spans = [(text[s:e], _dash_span(text, s, e)) for s, e in dashes]
    if not spans:
        return []
    sentence_starts = [0] + [m.end() for m in _SENTENCE_END.finditer(text)]

    def sentence(pos: int) -> int:
        return bisect.bisect_right(sentence_starts, pos)

    kept = {sentence(span.start) for _, span in spans if span.replacement is None}
    return [
        (dash, Span(span.start, span.end, span.text, None))
        if span.replacement == ", " and sentence(span.start) in kept
        else (dash, span)
        for dash, span in spans
    ]


def interrupted_dash(text: str, start: int, end: int) -> bool:
    """Whether the dash at text[start:end] (with any spaces around it) marks a stammer or a broken-off or
    corrected thought, which a comma would garble: "I—I", "Was it--was it", "if—no, no!", "he'd—but I'll
    not", "Bless--your--HEART", "sleepy dreams--no, she was awake", "transcendently—well, I won't speak of
    it". The rewriter's dash edits ask it too (rewrite/edits/syntax.py)."""
    after_match = _WORD_AFTER.match(text, end)
    after = _words(text, end, end + 60)[:3] if after_match else []
    if after_match and after_match.group(2) and after[0] in data.words("dash_interjections.txt"):
        return True
    if not text[start - 1 : start].isalpha():
        return False  # after a closing quote or bracket the word before is not the one cut off
    before = _words(text, max(0, start - 60), start)[-3:]
    if before[-1] in data.words("dash_open_words.txt"):
        return True
    # a false start or a repeat: "w—what", "so--so very", "Was it--was it"
    return bool(after) and (after[0].startswith(before[-1]) or any(before[-n:] == after[:n] for n in (2, 3)))


def _words(text: str, start: int, end: int) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text, start, end)]


def _dash_span(text: str, start: int, end: int) -> Span:
    """A dash between two words ("this — that") becomes a comma; an en dash in a range ("3–5") a hyphen;
    other dashes (line-initial dialogue, "—" next to punctuation) are reported without a replacement."""
    dash = text[start:end]
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    if dash == "–" and before.isdigit() and after.isdigit():
        return Span(start, end, dash, "-")
    s, e = start, end
    while s > 0 and text[s - 1] in _HSPACE:
        s -= 1
    while e < len(text) and text[e] in _HSPACE:
        e += 1
    prev = text[s - 1] if s else ""
    nxt = text[e] if e < len(text) else ""
    # Only a dash with a word on both sides reads as a comma; "O—," (a blanked name) or "— Hello" do not.
    # Nor does one before a new clause ("lay Pilot—Adèle knelt", "he left—she stayed"): a comma there
    # would splice two sentences, so that dash is reported without a replacement.
    # A stammer or an interruption keeps its dash too (interrupted_dash).
    if prev and nxt and (prev.isalpha() or prev in ")\"'”’") and (nxt.isalpha() or nxt in "“‘("):
        if _CLAUSE_START.match(text, e) or interrupted_dash(text, s, e):
            return Span(start, end, dash, None)
        return Span(s, e, text[s:e], ", ")
    return Span(start, end, dash, None)


def _ellipsis_span(text: str, start: int, end: int) -> Span:
    """An ellipsis that ends a thought (followed by space or the end) becomes a full stop."""
    nxt = text[end] if end < len(text) else ""
    s = start
    while s > 0 and text[s - 1] in _HSPACE:
        s -= 1
    prev = text[s - 1] if s else ""
    if prev and not prev.isspace() and prev not in ".!?,;:" and (not nxt or nxt.isspace() or nxt in "\"'”’)"):
        # "wait... what" reads as "wait, what"; "so it goes..." as "so it goes."
        following = text[end : end + 40].lstrip(" \t")
        continues = following[:1].islower()
        return Span(s, end, text[s:end], "," if continues else ".")
    return Span(start, end, text[start:end], None)


def _starts_ellipsis(text: str, pos: int) -> bool:
    return text.startswith("..", pos) or text.startswith("…", pos)


def _sorted(spans: list[Span]) -> list[Span]:
    return sorted(spans, key=lambda s: s.start)

"""Punctuation habits: dashes, ellipses, !! and ?!, spacing around punctuation, Oxford comma, ; and (),
"&" for "and"."""

from __future__ import annotations

import bisect
import re
from dataclasses import replace

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
# "&" with a space either side; in "AT&T", "R&D", "&amp;", "a && b" it is part of a name, an entity or code.
_AMPERSAND = re.compile(r"&(?=[ \t])")
_AMPERSAND_NAMES = frozenset({"co"})  # "Smith & co."
_HSPACE = " \t"


def observe(doc: Document, target: Target) -> list[Observation]:
    text = doc.text
    em: list[Span] = []
    en: list[Span] = []
    for dash, span in _dash_spans(text, [(m.start(), m.end()) for m in doc.finditer(_DASH)]):
        if target.keep_mark_rates and span.replacement is not None:
            span = replace(span, replacement=None)  # reported, kept: see Target
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
        Observation(FAMILY, "punctuation.multiple_exclamation", "repeated exclamation marks", exclaims),
        Observation(FAMILY, "punctuation.interrobang", "?! or ?? combinations", interro),
        Observation(FAMILY, "punctuation.space_before", "spaces before punctuation", space_before),
        Observation(FAMILY, "punctuation.two_spaces_after_stop", "two spaces after a full stop", two_spaces),
        Observation(FAMILY, "punctuation.multiple_spaces", "runs of spaces between words", multiple),
        Observation(FAMILY, "punctuation.oxford_comma", "Oxford commas", oxford),
        Observation(FAMILY, "punctuation.semicolon", "semicolons", spans_for(doc, _SEMICOLON)),
        Observation(FAMILY, "punctuation.parentheses", "parenthetical asides", spans_for(doc, _PARENS)),
        Observation(FAMILY, "punctuation.ampersand", 'ampersands ("&" for "and")', _ampersands(doc)),
    ]


def _ampersands(doc: Document) -> list[Span]:
    """A spaced "&" between two words, one of them in lower case, becomes "and" ("me & you", "Salt &
    pepper"). Between two capitalized words it joins a name ("Procter & Gamble", "R & D") and stays, as it
    does beside a number ("rooms 3 & 4"), inside a quotation, and unspaced ("AT&T", "Q&A", "&amp;")."""
    text = doc.text
    spans: list[Span] = []
    for m in doc.finditer(_AMPERSAND):
        start = m.start()
        if text[start - 1 : start] not in (" ", "\t"):
            continue
        i = bisect.bisect_left(doc.words, start, key=_word_start)
        if i == 0 or i == len(doc.words):
            continue
        _, prev_end, prev = doc.words[i - 1]
        next_start, _, nxt = doc.words[i]
        if text[prev_end:start].strip(_HSPACE) or text[start + 1 : next_start].strip(_HSPACE):
            continue  # a number, a sign or a line break between: not two words joined
        lower = [w for w in (prev, nxt) if w.islower() and len(w) > 1]
        if not lower or nxt.lower() in _AMPERSAND_NAMES or doc.in_quotes(start, start + 1):
            continue
        spans.append(Span(start, start + 1, "&", "and"))
    return spans


def _word_start(word: tuple[int, int, str]) -> int:
    return word[0]


def _dash_spans(text: str, dashes: list[tuple[int, int]]) -> list[tuple[str, Span]]:
    """Each dash with its span; a dash left alone keeps the other dashes of its sentence too.

    Dashes in a sentence mostly pair around an aside ("and—what surprised me rather—took some pains"):
    changing one of the pair to a comma and leaving the other reads as a mismatched parenthetical. A dash
    in a number range or a date ("3–5", "1990—2000") is not a pair's member: it never holds the others.
    A pair whose second dash comes before a new clause's subject is an aside all the same when the clause
    it interrupts is still open ("if they worked hard — and they did — it would pay off"): see _closes_aside.
    """
    found = [(text[s:e], *_dash_span(text, s, e), _in_range(text, s, e)) for s, e in dashes]
    if not found:
        return []
    sentence_starts = [0] + [m.end() for m in _SENTENCE_END.finditer(text)]

    def sentence(pos: int) -> int:
        return bisect.bisect_right(sentence_starts, pos)

    members: dict[int, list[int]] = {}  # sentence -> indices of its dashes outside ranges
    for i, (_, span, _, in_range) in enumerate(found):
        if not in_range:
            members.setdefault(sentence(span.start), []).append(i)
    spans = [span for _, span, _, _ in found]
    for n, indices in members.items():
        if len(indices) == 2:
            first, second = indices
            blocked = found[second][2]
            if blocked is None or spans[first].replacement != ", ":
                continue
            if _closes_aside(text, sentence_starts[n - 1], spans[first], blocked):
                spans[second] = blocked
    kept = {n for n, indices in members.items() if any(spans[i].replacement is None for i in indices)}
    return [
        (dash, Span(span.start, span.end, span.text, None))
        if span.replacement == ", " and sentence(span.start) in kept
        else (dash, span)
        for (dash, _, _, _), span in zip(found, spans, strict=True)
    ]


def _in_range(text: str, start: int, end: int) -> bool:
    """A dash between two numbers: a range or a date ("3–5", "May 3—5", "1990 – 2000")."""
    before = text[max(0, start - 3) : start].rstrip(_HSPACE)
    return before[-1:].isdigit() and text[end : end + 3].lstrip(_HSPACE)[:1].isdigit()


def _closes_aside(text: str, sentence_start: int, opening: Span, closing: Span) -> bool:
    """Whether the second dash of a pair closes an aside before the subject of the clause the aside
    interrupted: the aside has two words or more, and the stretch before the first dash (from the
    sentence start or the last comma, semicolon or colon) holds a subordinating word ("if", "when",
    "once", ...), so a main clause is still to come. After a complete clause ("We stayed late — long
    after midnight — we had to finish", "he left — she stayed — they cried") the subject after the second
    dash starts a sentence of its own, and commas would splice them: those dashes stay."""
    if len(_WORD.findall(text, opening.end, closing.start)) < 2:
        return False
    before = text[sentence_start : opening.start]
    for mark in ",;:":
        before = before.rpartition(mark)[2]
    return any(w in data.words("subordinators.txt") for w in _words(before, 0, len(before)))


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


def _dash_span(text: str, start: int, end: int) -> tuple[Span, Span | None]:
    """A dash between two words ("this — that") becomes a comma; an en dash in a range ("3–5") a hyphen;
    other dashes (line-initial dialogue, "—" next to punctuation) are reported without a replacement.
    The second item is the comma a new clause after the dash held back (None otherwise)."""
    dash = text[start:end]
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    if dash == "–" and before.isdigit() and after.isdigit():
        return Span(start, end, dash, "-"), None
    s, e = start, end
    while s > 0 and text[s - 1] in _HSPACE:
        s -= 1
    while e < len(text) and text[e] in _HSPACE:
        e += 1
    prev = text[s - 1] if s else ""
    nxt = text[e] if e < len(text) else ""
    # Only a dash with a word on both sides reads as a comma; "O—," (a blanked name) or "— Hello" do not.
    # A number before it counts as a word ("in 2000 — and then", "a population of 67,000--has").
    # Nor does one before a new clause ("lay Pilot—Adèle knelt", "he left—she stayed"): a comma there
    # would splice two sentences, so that dash is reported without a replacement.
    # A stammer or an interruption keeps its dash too (interrupted_dash).
    word_before = prev.isalpha() or prev.isdigit() or prev in ")\"'”’"
    if prev and nxt and word_before and (nxt.isalpha() or nxt in "“‘("):
        if interrupted_dash(text, s, e):
            return Span(start, end, dash, None), None
        if _CLAUSE_START.match(text, e):
            return Span(start, end, dash, None), Span(s, e, text[s:e], ", ")
        return Span(s, e, text[s:e], ", "), None
    return Span(start, end, dash, None), None


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

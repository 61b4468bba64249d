"""The guide's reasons in words a writer can act on (issue 43).

    keep_words(text, terms=()) -> Keep          what the writer must keep: names, numbers, the subject's words
    text_figures(text) -> TextFigures           the text's word and mark counts and sentence lengths
    writers_figures(population, like_you) -> Writers   the same rates for writers in general or like you
    explain(ranked, fed, ...) -> list[str]      a sentence's reasons, from the surrogate's ranked tokens
    verse_flags(sentences) -> list[bool]        which sentences are quoted verse (never the writer's to reword)

guide/analysis.py ranks, per attacker family a sentence feeds, the words and marks whose removal lowers that family
most (the surrogate's own maths). This module turns that ranking into reasons that name a style choice
with a direction, and never what the writer must keep:

* a **name**: a word written with a capital inside a sentence anywhere in the text, or only ever with
  one; a word of a protected span (URL, address, handle, tag, number) or of the user's protected terms;
* a **number word**: `data/number_words.txt` ("million", "percent", "twenty", "third");
* who the text is about: a personal pronoun (`data/personal_pronouns.txt`: "I" in a first-person story,
  "we" in a speech), kept like the subject;
* a **subject word**: a content word (not a small word: the function-word lists and `connectives.tsv`)
  that the text repeats (its stem occurs twice or more: "oil", "oils") or that few writers use outside
  its topic (known to wordfreq, Zipf below SUBJECT_ZIPF: "petroleum", "railroads"). A content word is
  never named at all: rewording the words that carry the subject changes what is said.

What a reason may name: a small word or connective the text uses more than writers in general (with what
else people write or how else to say it, `connectives.tsv`, else "use it less"; never an article or a
form of "be", "have", "do", `unnamed_words.txt`); a punctuation mark the text uses more than they
do (its rate against theirs); short sentences (full stops) or a long sentence (commas: the longest run
between sentence ends inside it, so a quotation of short sentences is not "long"); a sentence mostly of
quoted speech is told in the writer's own words (reported speech), not cut of its quotes. A swap is
offered only where it lowers the meter (`swap_lowers`, guide/analysis.py) and would not be flagged next.
When what a family reads most in the sentence is what the writer keeps, the reason says so instead of
naming words.
With the text as it was before (`brought_in`), a changed sentence's reason points at what the new
wording brought in first. The words themselves are in native_host/wording.py.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from native_host import wording
from native_host.style import data
from native_host.style.counting import PUNCTUATION, function_words, words
from native_host.style.protect import protected_spans, term_spans
from native_host.style.sentences import sentence_spans

if TYPE_CHECKING:
    from native_host.style.population import Population

SUBJECT_ZIPF = 4.5  # a content word rarer than this (fewer than ~30 per million words) comes with its topic
LOOK_AT = 8  # tokens of a family's ranking read for a reason (past these, removal moves the family little)
SUBJECT_HEAD = 3  # when most of a family's first tokens are kept words, the subject is the reason
MAX_REASONS = 2
_SPLIT = "split"  # a connective's advice (data/connectives.tsv) that asks for more sentences
LONG_SENTENCE = 1.5  # a sentence this many times the writers' mean length is long
MARKS = frozenset(PUNCTUATION)
QUOTED = 0.5  # a sentence with this part of its words inside double quotes is mostly quoted speech
_QUOTED = re.compile(r'"[^"]*"?|“[^”]*”?')  # a quotation (one left open runs to the end)
_NUMBER_LABEL = re.compile(r"\bNo\.\s?(?=\d)")  # "No. 4", "No.4"
# a name written with its letters struck out ("Captain B----", "Lord B--", "Mrs. ---"): the dashes are
# the name's; a spaced "--" stays a dash
_REDACTED = re.compile(r"(?<![\w-])(?:[A-Z]-{2,}|-{3,})(?![\w-])")
VERSE_LINES = 2  # line starts inside a sentence ("…wicked wight, From the night-mare…") that make it verse
# a line of verse run into prose: a capitalised small word right after a comma, semicolon or colon
_LINE_START = re.compile(r"[,;:]\s+[\"'“‘]?([A-Z][a-z']*)\b")
_BREAK = re.compile(r"[,;:]\s")  # where a line of verse run into prose may have ended
_ALWAYS_CAPITAL = frozenset({"I", "I'm", "I'll", "I've", "I'd"})
_INNER_END = re.compile(r"(?<=[.!?…])[\"'”’]*\s+")
_CAPITALISED = re.compile(r"[A-ZÀ-Þ][a-zà-ÿ]*(?:'[a-z]+)?|[A-ZÀ-Þ]{2,}")
_OPENERS = "\"'“‘([ \t*-"  # what may come before a sentence's first word
_SUFFIXES = (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ing", ""), ("ly", ""))


@cache
def small_words() -> frozenset[str]:
    """Function words and connectives: the words a reason may name."""
    return data.words("function_words.txt") | frozenset(function_words()) | frozenset(connectives())


@cache
def connectives() -> dict[str, tuple[str, str]]:
    """word -> (what else people write, or how else to say it) (`data/connectives.tsv`)."""
    return {
        row[0]: (row[1], row[2] if len(row) > 2 else "")
        for row in data.tsv("connectives.tsv")
        if len(row) >= 2
    }


@lru_cache(maxsize=65536)
def is_small(word: str) -> bool:
    return word in small_words() or word.split("'")[0] in small_words()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stem, enough to see that a text repeats a word ("oil"/"oils", "railroad"/"railroads")."""
    w = word.split("'")[0]
    for suffix, instead in _SUFFIXES:
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            return w[: -len(suffix)] + instead
    return w


@dataclass(frozen=True)
class Keep:
    """The words of a text a reason must not name (all lower case)."""

    names: frozenset[str]
    numbers: frozenset[str]
    subject: frozenset[str]
    people: frozenset[str] = frozenset()  # personal pronouns: who the text is about, never named either

    def __contains__(self, word: object) -> bool:
        return word in self.names or word in self.numbers or word in self.subject or word in self.people

    def must_keep(self, word: str) -> bool:
        """A name, a number word or a subject word (issue 43's three)."""
        return word in self.names or word in self.numbers or word in self.subject


def keep_words(text: str, terms: Sequence[str] = (), spans: Sequence[tuple[int, int]] | None = None) -> Keep:
    """The names, number words and subject words of `text` (module docstring); `terms`: the user's
    protected terms, kept as names; `spans`: the text's sentences when already split."""
    starts = [s for s, _ in (sentence_spans(text) if spans is None else spans)]
    capital_inside: set[str] = set()
    lower_seen: set[str] = set()
    for m in re.finditer(r"[A-Za-zÀ-ÿ]+(?:'[A-Za-z]+)?", text):
        token = m.group(0)
        low = token.lower()
        if not token[0].isupper():
            lower_seen.add(low)
            continue
        i = bisect.bisect_right(starts, m.start()) - 1
        opening = i >= 0 and not text[starts[i] : m.start()].strip(_OPENERS)
        if not opening or (len(token) > 1 and token.isupper()):  # inside a sentence, or an acronym
            capital_inside.add(low)
    all_words = words(text)
    capital_only = {w for w in set(all_words) - lower_seen if not is_small(w)}
    names = {w for w in capital_inside if not is_small(w)} | capital_only  # "Should" after a colon is no name
    for s, e, _ in [*protected_spans(text), *term_spans(text, terms)]:
        names.update(words(text[s:e]))
    numbers = {w for w in all_words if w in data.words("number_words.txt")}
    people = {w for w in all_words if w in data.words("personal_pronouns.txt")}
    stems = Counter(stem(w) for w in all_words if not is_small(w))
    subject = {
        w
        for w in all_words
        if not is_small(w)
        and w not in numbers
        and len(w) >= 3
        and (stems[stem(w)] >= 2 or 0.0 < data.zipf(w) < SUBJECT_ZIPF)
    }
    return Keep(frozenset(names - {"i"}), frozenset(numbers), frozenset(subject), frozenset(people))


_KEPT_TOKEN = re.compile(r"[A-Za-zÀ-ÿ]+(?:'[A-Za-z]+)?|\d+(?:[.,:]\d+)*")


def kept_of(sentence: str, keep: Keep) -> str:
    """What a rewording of `sentence` keeps: its kept words (`keep`) and figures, in order, one space
    apart. The guide scores a sentence reduced to this as the most its rewording can take off the meter."""
    tokens = (m.group(0) for m in _KEPT_TOKEN.finditer(sentence))
    return " ".join(t for t in tokens if t[0].isdigit() or t.lower() in keep)


@dataclass(frozen=True)
class TextFigures:
    """What a reason quotes about the whole text: its words and marks, and its sentences' lengths."""

    n_words: int
    words: Counter[str]
    marks: Counter[str]
    mean_sentence: float


def _word_counts(text: str) -> Counter[str]:
    """The text's words as a reason counts them: "No. 4" is a number's label, not the word "no"."""
    counted = Counter(words(text))
    labels = len(_NUMBER_LABEL.findall(text))
    if labels:
        counted["no"] -= labels
        if counted["no"] <= 0:
            del counted["no"]
    return counted


def text_figures(text: str, spans: Sequence[tuple[int, int]] | None = None) -> TextFigures:
    counted = _word_counts(text)
    lengths = [len(words(text[s:e])) for s, e in (sentence_spans(text) if spans is None else spans)]
    lengths = [n for n in lengths if n]
    mean = sum(lengths) / len(lengths) if lengths else 0.0
    marks = Counter(ch for ch in _REDACTED.sub(" ", text) if ch in MARKS)
    return TextFigures(sum(counted.values()), counted, marks, mean)


@dataclass(frozen=True)
class Writers:
    """Who a reason compares the text with, and their figures: marks per 100 words (the mean over their
    chunks), their mean sentence length, and a word's rate per 1,000 words. Writers in general: the
    population's chunks, data/baseline.json, else wordfreq. Writers like you (a profile): the population
    authors the profile contrasts you with (`Identifiability.writers_like_you`), from their chunks' counts;
    a word the population does not count falls back to writers in general."""

    marks: Mapping[str, float]
    mean_sentence: float
    who: str = wording.WRITERS
    rates: Mapping[str, float] = field(default_factory=dict)

    def word_rate(self, word: str) -> float:
        rate = self.rates.get(word)
        if rate is not None:
            return rate
        row = data.json_table("baseline.json")["stats"]["function_words"].get(word)
        return float(row["per_1k"]) if row else data.frequency(word) * 1000.0


_writers: dict[tuple[str, tuple[str, ...]], Writers] = {}
_ENDS = [PUNCTUATION.index(m) for m in ".!?"]


def writers_figures(population: Population | None, like_you: Sequence[str] = ()) -> Writers:
    """`population` or None (then only the baseline's figures); `like_you`: population authors to
    compare with instead of everyone (a profile's nearest)."""
    key = (population.digest if population is not None else "", tuple(like_you))
    found = _writers.get(key)
    if found is not None:
        return found
    mean = float(data.json_table("baseline.json")["stats"]["sentence_length"]["mean"])
    made = Writers({}, mean)
    if population is not None and len(population.n_words):
        rows = np.isin(population.authors, list(like_you))
        like = bool(rows.any())
        if not like:
            rows[:] = True  # writers in general: every chunk
        n, p = population.n_words[rows], population.punct[rows]
        marks = {m: float((p[:, i] / n.clip(min=1) * 100.0).mean()) for i, m in enumerate(PUNCTUATION)}
        made = Writers(marks, mean)
        if like:
            counts = population.word_counts[rows].sum(axis=0)
            made = Writers(
                marks,
                # words per sentence end, per chunk: over all chunks this is the baseline's 22.7
                float((n / p[:, _ENDS].sum(axis=1).clip(min=1)).mean()),
                wording.WRITERS_LIKE_YOU,
                {
                    w: float(c) / max(1.0, float(n.sum())) * 1000.0
                    for w, c in zip(population.word_vocab, counts, strict=True)
                },
            )
    _writers[key] = made
    return made


def _rate(value: float) -> str:
    return f"{value:.2g}" if value < 1 else f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _times(n: int) -> str:
    once, twice, more = wording.TIMES
    return once if n == 1 else twice if n == 2 else more.format(n=n)


MORE = 1.15  # a rate this many times theirs, or more, is "more than" theirs: below, no direction to give


def _flagged_after_swap(word: str, other: str, figures: TextFigures, writers: Writers) -> bool:
    """Would `other` be flagged in its turn? A word writers use less than `word`: if the text with one more
    use of it would use it "more than writers" ('may' → 'might' → 'could', each flagged in turn in the
    writer study). A commoner word: if the text already uses it more than writers ('however' → 'but' in
    a text already heavy with 'but', run 9); one more use of a common word in a short text is no habit.
    A word a reason never names (`data/unnamed_words.txt`: 'to' of 'have to') is never flagged."""
    theirs = writers.word_rate(word)
    never = data.words("unnamed_words.txt")
    for w in words(other):
        rate = writers.word_rate(w)
        # a rarer word with the use the swap brings; a commoner one as the text uses it already
        count = figures.words.get(w, 0) + (rate < theirs)
        if w in never or not count:
            continue  # never named, or a commoner word the text does not use yet
        if count / max(1, figures.n_words) * 1000.0 >= MORE * rate:
            return True
    return False


SwapCheck = Callable[[str, str], bool]  # (word, what else people write) -> does the swap lower the meter?


def _never(word: str, other: str) -> bool:
    return False


@cache
def _fixed_phrases() -> dict[str, tuple[re.Pattern[str], ...]]:
    """Per word, the phrases of data/fixed_phrases.txt it is part of, as patterns."""
    out: dict[str, list[re.Pattern[str]]] = {}
    for phrase in data.lines("fixed_phrases.txt"):
        pattern = re.compile(rf"(?<![\w']){re.escape(phrase)}(?![\w'])", re.IGNORECASE)
        for word in phrase.split():
            out.setdefault(word, []).append(pattern)
    return {w: tuple(p) for w, p in out.items()}


def fixed_use(word: str, sentence: str) -> bool:
    """Does the sentence use `word` in a phrase where it is no connective of its own ("as though")?"""
    return any(p.search(sentence) for p in _fixed_phrases().get(word, ()))


def _word_reason(
    word: str,
    keep: Keep,
    figures: TextFigures,
    writers: Writers,
    here: int = 0,
    swap_lowers: SwapCheck | None = None,
    sentence_words: int | None = None,
) -> str | None:
    """`here`: how often the sentence the reason is shown under uses the word (0: not said).
    `swap_lowers`: the swap is offered only where it lowers the meter (the writer study: 'simply' →
    'just', as offered, raised it). `sentence_words`: the length of that sentence; advice to split
    ('and': "split long chains of clauses") is not given under one shorter than the writers' mean, where
    the text's short sentences say "join some" (writer study run 10: both under one sentence)."""
    if not figures.n_words:
        return None
    count = figures.words.get(word, 0)
    yours = count / figures.n_words * 1000.0
    theirs = writers.word_rate(word)
    # No direction to give where the text does not use it clearly more than they do, nor where the two
    # rates read the same as shown ("54 against 54": the writer study's readers took it for a mistake).
    if count == 0 or yours < MORE * theirs or _rate(yours) == _rate(theirs):
        return None
    other, how = connectives().get(word, ("", ""))
    if how.startswith(_SPLIT) and sentence_words is not None and sentence_words < writers.mean_sentence:
        how = ""
    if other and (
        any(w in keep for w in words(other))
        or _flagged_after_swap(word, other, figures, writers)
        or (swap_lowers is not None and not swap_lowers(word, other))
    ):
        other = ""
    if count == 1 and not other and not how:  # "use it less" of a word used once says nothing to do
        return None
    instead = wording.REASON_INSTEAD.format(other=other) if other else how or wording.REASON_FEWER
    times = _times(count)
    if 0 < here < count:  # a whole-text count under one sentence: say which uses are here
        times = wording.REASON_HERE.format(count=count, here=here)
    return wording.REASON_WORD.format(
        word=word,
        times=times,
        writers=writers.who,
        yours=_rate(yours),
        theirs=_rate(theirs),
        instead=instead,
    )


def _mark_reason(
    mark: str, sentence_words: int, figures: TextFigures, writers: Writers, here: float | None = None
) -> str | None:
    """`here`: the mark's rate per 100 words in the sentence the reason is shown under; a mark it uses
    less than writers do is not blamed there, whatever the text's rate (writer study run 10: "commas:
    use fewer" under a sentence with one comma)."""
    if mark == ".":  # full stops are sentence length: "join some" only under a short sentence
        if 0 < figures.mean_sentence < writers.mean_sentence and sentence_words < writers.mean_sentence:
            return wording.REASON_SHORT.format(
                yours=f"{figures.mean_sentence:.0f}",
                writers=writers.who,
                theirs=f"{writers.mean_sentence:.0f}",
            )
        return None
    if mark == "," and sentence_words > LONG_SENTENCE * writers.mean_sentence:
        return wording.REASON_LONG.format(
            yours=sentence_words, writers=writers.who, theirs=f"{writers.mean_sentence:.0f}"
        )
    theirs = writers.marks.get(mark)
    if theirs is None or not figures.n_words:
        return None
    yours = figures.marks.get(mark, 0) / figures.n_words * 100.0
    if yours < MORE * theirs or _rate(yours) == _rate(theirs) or (here is not None and here < theirs):
        return None
    return wording.REASON_MARK.format(
        marks=wording.MARK_WORDS.get(mark, mark),
        yours=_rate(yours),
        theirs=_rate(theirs),
        writers=writers.who,
    )


def explain(
    ranked: Mapping[str, Sequence[str]],
    fed: Sequence[str],
    sentence: str,
    keep: Keep,
    figures: TextFigures,
    writers: Writers,
    brought_in: Iterable[str] = (),
    swap_lowers: SwapCheck | None = None,
    subject_left: bool = True,
    verse: bool | None = None,
) -> list[str]:
    """Up to MAX_REASONS reasons for one sentence: per family it feeds (most first), its ranked tokens
    (most give-away first; marks only for the punctuation-and-small-words family) read as style choices.
    `brought_in`: tokens the sentence's new wording added (then those are said first, as new);
    `swap_lowers`: whether swapping a word in this sentence for what else people write lowers the meter;
    `subject_left`: whether what the words the writer keeps give away is most of what is left of the
    sentence after a rewording (the guide: its gain is under half its contribution and it gives little
    away to rewording). Only then is "mostly the subject itself" said: under a sentence the guide names
    to reword it read as a contradiction (writer study run 6). `verse`: whether the sentence is quoted
    verse, as `verse_flags` reads it beside its neighbours (else read from the sentence alone)."""
    is_verse = reads_as_verse(sentence) if verse is None else verse
    if is_verse:  # no word of a quotation is the writer's to change (every study left them)
        return [wording.REASON_VERSE]
    new = frozenset(brought_in)
    sentence_words = _word_counts(sentence)
    # the longest run between sentence ends inside it: a quotation of five short sentences is one
    # sentence of the text (style/sentences.py) but nothing to split
    n_words = max((len(words(piece)) for piece in _INNER_END.split(sentence)), default=0)
    quoted = quoted_share(sentence) >= QUOTED
    own_marks = _REDACTED.sub(" ", sentence)  # the dashes of a struck-out name are the name's, kept
    out: list[str] = []
    said: set[str] = set()
    subject: list[str] = []  # the kept words among a family's first tokens, when they are most of them
    for family in fed:
        tokens = [t for t in ranked.get(family, ()) if family == "function_words" or t not in MARKS][:LOOK_AT]
        head = [t for t in tokens if t not in MARKS][:SUBJECT_HEAD]
        if head and sum(t in keep for t in head) * 2 > len(head):
            subject += [t for t in head if t in keep]
        if new:  # what the new wording brought in first, in the family's order
            tokens = [t for t in tokens if t in new] + [t for t in tokens if t not in new]
        for token in tokens:
            if token in said or token in keep:
                continue
            if token == '"' and quoted:
                reason: str | None = wording.REASON_QUOTED  # not "use fewer": the quotes go with the telling
            elif token in MARKS:
                here = own_marks.count(token) / max(1, sum(sentence_words.values())) * 100.0
                reason = _mark_reason(token, n_words, figures, writers, here) if token in own_marks else None
            elif is_small(token) and sentence_words[token] and token not in data.words("unnamed_words.txt"):
                # no swap for a word used in a fixed phrase here ("as though" → "as but")
                check = _never if fixed_use(token, sentence) else swap_lowers
                reason = _word_reason(token, keep, figures, writers, sentence_words[token], check, n_words)
            else:
                reason = None  # a content word: never named (changing it changes what is said)
            if reason is None:
                continue
            said.add(token)
            if token in new:
                reason = wording.REASON_NEW.format(reason=reason)
            if reason not in out:
                out.append(reason)
            break
        if len(out) >= MAX_REASONS:
            break
    if quoted and wording.REASON_QUOTED not in out and len(out) < MAX_REASONS:
        out.append(wording.REASON_QUOTED)
    if subject and subject_left and len(out) < MAX_REASONS:
        out.append(wording.REASON_SUBJECT.format(what=subject_kinds(subject, keep)))
    return out[:MAX_REASONS]


def subject_kinds(kept: Iterable[str], keep: Keep) -> str:
    """What kinds of kept word `kept` holds, in words: "its names and topic words", "who it is about"."""
    kept = list(kept)
    # SUBJECT_KINDS is keyed by Keep's own fields, in the order they are said; never empty: all are kept
    kinds = [
        said for kind, said in wording.SUBJECT_KINDS.items() if any(w in getattr(keep, kind) for w in kept)
    ]
    listed = kinds[0] if len(kinds) == 1 else ", ".join(kinds[:-1]) + " and " + kinds[-1]
    return listed if listed.startswith("who") else f"its {listed}"


def _line_starts(sentence: str) -> int:
    starts = (m.group(1) for m in _LINE_START.finditer(sentence))
    return sum(1 for w in starts if w not in _ALWAYS_CAPITAL and is_small(w.lower()))


def reads_as_verse(sentence: str) -> bool:
    """Verse or a song quoted in the text, its lines run together: at least VERSE_LINES capitalised small
    words right after a comma, semicolon or colon ("…wicked wight, From the night-mare and the goblin, That
    is hight…"). Over the eval's corpora (4,629 sentences of Federalist, Brontës, State of the Union and
    problem C) it finds 4, three of them quoted verse; in the writer study's chunks the five carols, songs
    and Shakespeare the writers could not reword (tests/style/test_guide_reasons.py)."""
    return _line_starts(sentence) >= VERSE_LINES


def _continues_verse(sentence: str) -> bool:
    """One line start, and most of the sentence's breaks (, ; :) start a capitalised line, as verse's do
    ("Let every man be jolly, Eache roome with yvie leaves is drest, And every post with holly."); prose
    that leads into a quotation breaks mostly before small letters ("How delightfully the imagination,
    when wrought upon…, turns everything to melody and beauty: The very crowing of the cock, who…")."""
    starts = [m.group(1) for m in _LINE_START.finditer(sentence) if m.group(1) not in _ALWAYS_CAPITAL]
    small = any(is_small(w.lower()) for w in starts)  # as _line_starts counts them
    return small and len(starts) * 2 >= len(_BREAK.findall(sentence))


def verse_flags(sentences: Sequence[str]) -> list[bool]:
    """Which of a text's sentences, in order, are quoted verse: those that read as verse, and a sentence
    beside one of them that continues it (`_continues_verse`; writer-study chunk c22's carol)."""
    verse = [reads_as_verse(s) for s in sentences]
    beside = [(i > 0 and verse[i - 1]) or (i + 1 < len(verse) and verse[i + 1]) for i in range(len(verse))]
    return [v or (b and _continues_verse(s)) for v, b, s in zip(verse, beside, sentences, strict=True)]


def quoted_share(sentence: str) -> float:
    """The part of the sentence's words inside double quotation marks ("…" or “…”)."""
    inside = sum(len(words(m.group(0))) for m in _QUOTED.finditer(sentence))
    return inside / max(1, len(words(sentence)))


def brought_in(sentence: str, previous: str | None) -> frozenset[str]:
    """The words and marks of `sentence` that the text as it was (`previous`) did not hold, when the
    sentence itself is new there (empty when there is nothing to compare with or it is unchanged)."""
    if previous is None or sentence in previous:
        return frozenset()
    before = set(words(previous)) | {ch for ch in previous if ch in MARKS}
    now = set(words(sentence)) | {ch for ch in sentence if ch in MARKS}
    return frozenset(now - before)

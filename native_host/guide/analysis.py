"""Which sentences give the writer away, and why: the guide's per-sentence scores (issue 37).

    guide(ident, text, cache=None) -> GuideReport     the text's score, and per sentence its contribution,
                                                      share, the attacker families it feeds, reasons in words

Everything is the identifiability surrogates' own maths (style/identify.py's TextState over style/surrogates.py), read
from counts deltas:

* a sentence's `contribution` is `score - score of the text without it` (the report's `sentences`, the
  same leave-one-sentence-out the eval replays on the real attackers); `families[f]` is the same for
  one family, so `contribution` is the mean of `families` (as `score` is the mean of the families);
* its `weight` ranks the sentences: per family, the change in the family's z when the sentence is
  left out, over that change's standard deviation across the text's sentences, summed over the
  families. A family near 0 or 1 barely moves `contribution` (the sigmoid is flat there) though its
  attacker still reads the sentence; in z and per spread each family counts alike, as each attacker
  has to lose the writer (eval --guide: Spearman with the attackers' leave-one-sentence-out drops
  0.41 / 0.38 / 0.24 by contribution, 0.49 / 0.38 / 0.26 by weight; docs/results.md);
* its `share` is max(weight, 0) over the sum of the positive weights: the shares of the sentences
  that give the writer away sum to 1; `top` names the (up to) 3 of most weight;
* its `gain` is what rewording it can take off the meter: `score - score of the text with the sentence
  reduced to what the writer keeps` (its names, number words, subject words, pronouns and figures, in
  order; style/reasons.py's `kept_of`); `enough` marks a sentence whose gain alone would take the meter
  to "unlikely" (right 17 times of 24 in writer-study run 6, research/log/writer-study.md). Ranking by
  gain was tried and lowered the meter less per edit than ranking by weight (run 6; docs/decisions.md);
* its `reasons`: per family it feeds, the words and marks of the sentence whose removal lowers the family
  most (each token's own counts delta, scored like a sentence), said by style/reasons.py as style choices
  a writer can act on, never a name, a number or a word of the subject (issue 43).

Incremental: a `GuideCache` keeps each sentence's counts delta and its words' deltas, keyed by the
sentence and the characters around it, so a call after a keystroke recounts only the sentence typed in
(the text's own counts are read once per call; the families' values are a few small vector products
per sentence). bench/bench_guide.py measures it beside the full analysis.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from native_host import wording
from native_host.style import linkability, reasons
from native_host.style.counting import PUNCTUATION, CountsDelta, as_char3_reads, delta_reach, edit_delta
from native_host.style.identify import FAMILIES, Identifiability, TextState, score_of, sigmoid
from native_host.style.sentences import sentence_spans

TOP_SENTENCES = 3  # the sentences the guide names first
MAX_REASONS = reasons.MAX_REASONS  # per sentence (style/reasons.py says them)
MIN_REASON_SHARE = 0.005  # below this a sentence's share is shown as 0%: no reasons for it
MIN_REASON_Z = 1e-3  # a word whose removal moves a family by less than this (in z) is no reason
SUBJECT_SHARE = 0.1  # "mostly the subject itself" only under a sentence shown as giving little away

ATTACKER_WORDS = wording.ATTACKER_WORDS  # each family in words (no family code reaches a reply)
_WORD = re.compile(r"[a-zà-ÿ]+(?:'[a-z]+)?")
_MARKS = frozenset(PUNCTUATION)


@dataclass(frozen=True)
class SentenceScore:
    start: int  # code-point offsets into the text (as the identifiability report's `sentences`)
    end: int
    contribution: float  # score - score of the text without this sentence; may be < 0
    weight: float  # how much it feeds the attackers: each family's z change over its spread, summed
    share: float  # max(weight, 0) / the sum of the positive weights (0 when none)
    gain: float  # score - score with the sentence reduced to the words the writer keeps; may be < 0
    enough: bool  # its gain alone would take the meter to "unlikely" (not at "unlikely", nor at 0%)
    families: dict[str, float]  # per family: its probability - its probability without the sentence
    feeds: list[str]  # the families it adds to, most first, in words
    reasons: list[str]  # the words and marks that give most away, in words

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "contribution": round(self.contribution, 5),
            "weight": round(self.weight, 4),
            "share": round(self.share, 4),
            "gain": round(self.gain, 5),
            "enough": self.enough,
            "families": {f: round(v, 5) for f, v in self.families.items()},
            "feeds": list(self.feeds),
            "reasons": list(self.reasons),
        }


@dataclass
class GuideReport:
    score: float  # the identifiability report's score: the mean of `families`
    level: str  # linkability.level(score, says_unlikely)
    level_words: str  # linkability.words(score, mode, says_unlikely)
    mode: str  # "profile" | "typicality"
    compared_with: str  # what the score compares the text with, in words
    message: str  # why the mode is what it is, when not what was asked for
    families: dict[str, float]
    sentences: list[SentenceScore]
    top: list[int]  # indices into `sentences`: the (up to) TOP_SENTENCES of most weight, most first
    # the score is in the lowest band, but without rivals the meter says "possibly" (linkability.held)
    needs_suspects: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "score": round(self.score, 4),
            "level": self.level,
            "level_words": self.level_words,
            "mode": self.mode,
            "compared_with": self.compared_with,
            "message": self.message,
            "families": {f: round(v, 4) for f, v in self.families.items()},
            "sentences": [s.to_json() for s in self.sentences],
            "top": list(self.top),
            "needs_suspects": self.needs_suspects,
        }


@dataclass
class _SentenceParts:
    """A sentence's counts delta (removing it); its words' and marks' (each token's occurrences) are
    read when its reasons are first asked for; the reasons are kept per identifiability model and
    the families the sentence feeds."""

    text: str  # the sentence with a margin of the text around it
    start: int  # the sentence's offsets in `text`
    end: int
    removal: CountsDelta
    kept: dict[str, CountsDelta] = field(default_factory=dict)  # what the writer keeps of it -> its delta
    _tokens: list[tuple[str, CountsDelta]] | None = None
    reasons: dict[tuple[int, str, tuple[str, ...]], dict[str, list[str]]] = field(default_factory=dict)

    def reduced(self, keep: str) -> CountsDelta:
        """The counts delta of the sentence reduced to `keep` (the words of it the writer keeps)."""
        found = self.kept.get(keep)
        if found is None:
            found = self.kept[keep] = edit_delta(self.text, self.start, self.end, keep)
        return found

    @property
    def tokens(self) -> list[tuple[str, CountsDelta]]:
        if self._tokens is None:
            self._tokens = _token_deltas(self.text, self.start, self.end)
        return self._tokens


@dataclass
class GuideCache:
    """Per-sentence counts deltas, keyed by the sentence and its context; one per text being edited
    (the composer keeps one per window). Bounded: cleared when it grows past `limit` sentences."""

    limit: int = 2000
    parts: dict[tuple[str, str, str], _SentenceParts] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    def get(self, text: str, start: int, end: int) -> _SentenceParts:
        key = _context_key(text, start, end)
        found = self.parts.get(key)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        if len(self.parts) >= self.limit:
            self.parts.clear()
        # a copy of the sentence and what its deltas read around it, not the text: the cache outlives
        # many texts
        a, b = delta_reach(text, start, end)
        made = _SentenceParts(text[a:b], start - a, end - a, edit_delta(text, start, end, ""))
        self.parts[key] = made
        return made


def guide(
    ident: Identifiability,
    text: str,
    cache: GuideCache | None = None,
    *,
    previous: str | None = None,
    terms: Sequence[str] = (),
) -> GuideReport:
    """The per-sentence give-away of `text` against `ident` (profile or typicality). `previous`: the text
    as it was (a changed sentence's reasons then say what its new wording brought in); `terms`: the
    user's protected terms (never named in a reason, as names, numbers and the subject are not)."""
    cache = cache if cache is not None else GuideCache()
    state = ident.state(text)
    zs = state.zs()
    probs = {f: sigmoid(z) for f, z in zs.items()}
    score = sum(probs.values()) / len(probs)
    spans = sentence_spans(text)
    said = _Said(
        reasons.keep_words(text, terms, spans),
        reasons.text_figures(text, spans),
        reasons.writers_figures(ident.population, ident.writers_like_you()),
    )
    raw: list[tuple[int, int, dict[str, float], dict[str, float], float, _SentenceParts]] = []
    for s, e in spans:
        parts = cache.get(text, s, e)
        without = state.zs_with(parts.removal)
        reduced = state.zs_with(parts.reduced(reasons.kept_of(text[s:e], said.keep)))
        raw.append(
            (
                s,
                e,
                {f: probs[f] - sigmoid(without[f]) for f in zs},
                {f: zs[f] - without[f] for f in zs},
                score - score_of(reduced),
                parts,
            )
        )
    if ident.mode == "typicality" and len(raw) > 1:
        # Typicality reads how far the text stands from other writers, and any shorter text stands
        # further: removing a sentence raised every family's z for about half of the eval's test chunks,
        # so no sentence was ranked and the composer had nothing to show a writer without samples. Each
        # sentence is read against the mean removal instead (what it adds to the distance beyond what
        # any sentence's length does).
        mean = {f: sum(row[3][f] for row in raw) / len(raw) for f in zs}
        raw = [
            (s, e, fam, {f: dz[f] - mean[f] for f in zs}, gain, parts) for s, e, fam, dz, gain, parts in raw
        ]
    # each family's z changes in units of their spread over this text's sentences: every attacker
    # family weighs the same in the ranking, whatever its scale or how saturated its figure is
    spread = {f: _spread([dz[f] for _, _, _, dz, _, _ in raw]) for f in zs}
    weights = [sum(dz[f] / spread[f] for f in zs) for _, _, _, dz, _, _ in raw]
    positive = sum(max(0.0, w) for w in weights)
    unlikely = linkability.says_unlikely(ident.mode, ident.rivals)
    level = linkability.level(score, unlikely)
    verses = reasons.verse_flags([text[s:e] for s, e in spans])
    sentences: list[SentenceScore] = []
    for (s, e, fam, dz, gain, parts), weight, verse in zip(raw, weights, verses, strict=True):
        fed = _fed({f: dz[f] / spread[f] for f in zs})
        share = max(0.0, weight) / positive if positive > 0 else 0.0
        sentences.append(
            SentenceScore(
                start=s,
                end=e,
                contribution=sum(fam.values()) / len(fam),
                weight=weight,
                share=share,
                gain=gain,
                # not under a sentence shown as giving nothing away (run 7: "on sentences already at 0%"),
                # nor under quoted verse, which is not the writer's to reword (run 8)
                enough=level != "unlikely"
                and share >= MIN_REASON_SHARE
                and not verse
                and linkability.level(score - gain, unlikely) == "unlikely",
                families=fam,
                feeds=[ATTACKER_WORDS[f] for f in fed],
                reasons=_said(
                    _cached_ranking(ident, state, zs, parts, fed),
                    fed,
                    text,
                    s,
                    e,
                    said,
                    previous,
                    swap_lowers(state, score, s, e),
                    gain < sum(fam.values()) / len(fam) / 2 and share < SUBJECT_SHARE,
                    verse,
                )
                if share >= MIN_REASON_SHARE  # a sentence shown as "0%" gets no reasons to act on
                else [],
            )
        )
    # quoted verse is not named first: rewording it misquotes it, and the writers left it (its reason
    # says so, and what they may do instead)
    ranked = sorted(
        (i for i in range(len(sentences)) if weights[i] > 0 and not verses[i]), key=lambda i: -weights[i]
    )
    top = ranked[:TOP_SENTENCES]
    # `enough` only where the guide sends the writer: near the boundary every sentence's gain reaches it,
    # and writers saw it under sentences that gave almost nothing away (writer study runs 7 and 9)
    sentences = [s if i in top else replace(s, enough=False) for i, s in enumerate(sentences)]
    return GuideReport(
        score=score,
        level=level,
        level_words=linkability.words(score, ident.mode, unlikely),
        mode=ident.mode,
        compared_with=compared_with(ident),
        message=ident.message,
        families=probs,
        sentences=sentences,
        top=top,
        needs_suspects=linkability.held(score, unlikely),
    )


def compared_with(ident: Identifiability) -> str:
    """What the score compares the text with, in words."""
    if ident.mode != "profile":
        why = wording.GUIDE_NO_SAMPLES_YET if "no writing samples" in ident.message else ""
        return wording.WRITERS + why
    n = ident.samples
    out = wording.GUIDE_SAMPLES[min(n, 2)].format(n=n)
    k = len(ident.rivals)
    if k:
        out += wording.GUIDE_AND_NAMED.format(k=k, people=wording.PEOPLE if k != 1 else wording.PERSON)
    return out


def sentence_at(text: str, start: int, end: int) -> int | None:
    """The index of the sentence that is exactly text[start:end], or None."""
    for i, (s, e) in enumerate(sentence_spans(text)):
        if (s, e) == (start, end):
            return i
    return None


# -- internals --------------------------------------------------------------------------------------


def _context_key(text: str, start: int, end: int) -> tuple[str, str, str]:
    """The sentence and what a counts delta of it (or of a word or mark in it) reads around it
    (counting.delta_reach), that context as the char analyzer reads it: "x.  Y" and "x. Y" share a key
    (the counts see one space), "x.  Y" and "x!  Y" or "\\n\\nThe" and "\\n\\nAnd" do not."""
    a, b = delta_reach(text, start, end)
    return as_char3_reads(text[a:start]), text[start:end], as_char3_reads(text[end:b])


def _add(into: CountsDelta, more: CountsDelta) -> None:
    for attr in ("char3", "words", "punct"):
        target: Counter[str] = getattr(into, attr)
        for k, v in getattr(more, attr).items():
            target[k] = target.get(k, 0) + v
    into.n_words += more.n_words
    into.n_chars += more.n_chars


def _token_deltas(text: str, start: int, end: int) -> list[tuple[str, CountsDelta]]:
    """Per word or mark of text[start:end], the counts delta of removing all its occurrences there."""
    sentence = text[start:end]
    lowered = sentence.lower()
    spans: dict[str, list[tuple[int, int]]] = {}
    if len(lowered) == len(sentence):  # offsets of the lowered text are the text's
        for m in _WORD.finditer(lowered):
            spans.setdefault(m.group(0), []).append((start + m.start(), start + m.end()))
    for i, ch in enumerate(sentence):
        if ch in _MARKS:
            spans.setdefault(ch, []).append((start + i, start + i + 1))
    tokens = []
    for token, where in spans.items():
        total = CountsDelta()
        for s, e in where:
            _add(total, edit_delta(text, s, e, ""))
        tokens.append((token, total))
    return tokens


def _spread(values: Sequence[float]) -> float:
    """The standard deviation of a family's z changes over the text's sentences (1 when they do not
    vary: one sentence, or a family the text does not move)."""
    n = len(values)
    if n < 2:
        return 1.0
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    return sd if sd > 1e-9 else 1.0


def _fed(scaled: dict[str, float]) -> list[str]:
    """The families the sentence adds to, most first (by its z change over the family's spread)."""
    return sorted((f for f in FAMILIES if scaled.get(f, 0.0) > 0), key=lambda f: -scaled[f])


@dataclass(frozen=True)
class _Said:
    """What a reason reads of the whole text, once per call (style/reasons.py)."""

    keep: reasons.Keep
    figures: reasons.TextFigures
    writers: reasons.Writers


def _said(
    ranked: dict[str, list[str]],
    fed: list[str],
    text: str,
    s: int,
    e: int,
    said: _Said,
    previous: str | None,
    swap: reasons.SwapCheck,
    subject_left: bool,
    verse: bool,
) -> list[str]:
    """The sentence's reasons in words (style/reasons.py), from its cached ranking and this text's figures;
    a sentence that gives something away always gets one (writer study run 7: "named first with no
    reason"): where no small word or mark stands out, that it is the words chosen as a whole (naming its
    own common words instead was tried in writer-study run 11 and dropped: docs/decisions.md)."""
    sentence = text[s:e]
    new = reasons.brought_in(sentence, previous)
    said_here = reasons.explain(
        ranked, fed, sentence, said.keep, said.figures, said.writers, new, swap, subject_left, verse
    )
    return said_here or [wording.REASON_WORDING]


def swap_lowers(state: TextState, score: float, start: int, end: int) -> reasons.SwapCheck:
    """Does writing `other` for the sentence's first `word` lower the meter's score? (the edit scored from
    its counts, as the search scores its edits; a capital kept at the word's start)"""

    def check(word: str, other: str) -> bool:
        found = re.search(rf"(?<![\w']){re.escape(word)}(?![\w'])", state.text[start:end], re.IGNORECASE)
        if found is None:
            return False
        a, b = start + found.start(), start + found.end()
        replacement = other[:1].upper() + other[1:] if state.text[a].isupper() else other
        zs = state.zs_with(state.delta(a, b, replacement))
        return sum(sigmoid(z) for z in zs.values()) / len(zs) < score

    return check


def _cached_ranking(
    ident: Identifiability, state: TextState, zs: dict[str, float], parts: _SentenceParts, fed: list[str]
) -> dict[str, list[str]]:
    """The sentence's tokens ranked per family, read again only when it, the model or the families it
    feeds change: a word typed elsewhere moves its words' weight a little, not which of them give most
    away (and a keystroke then costs the families' values, not one evaluation per word of the text)."""
    key = (id(ident.models), ident.mode, tuple(fed))
    if key not in parts.reasons:
        parts.reasons[key] = _ranking(state, zs, parts, fed)
    return parts.reasons[key]


def _ranking(
    state: TextState, zs: dict[str, float], parts: _SentenceParts, fed: Sequence[str]
) -> dict[str, list[str]]:
    """Per family the sentence feeds, its words and marks by how much their removal lowers that family's
    z, most first (those that move it less than MIN_REASON_Z left out)."""
    if not fed:
        return {}
    drops: dict[str, list[tuple[float, str]]] = {f: [] for f in fed}
    for token, delta in parts.tokens:
        without = state.zs_with(delta)
        for f in fed:
            d = zs[f] - without[f]
            if d > MIN_REASON_Z:
                drops[f].append((d, token))
    return {f: [t for _, t in sorted(drops[f], key=lambda x: (-x[0], x[1]))] for f in fed}

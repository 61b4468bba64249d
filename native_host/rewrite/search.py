"""Pick span edits that make a text least identifiable, under the guards.

    text (neutralized) + proposals (lexical, function-word, syntactic, LLM windows as span edits)
        ─► rounds: gain of every live edit from its counts delta (identify.TextState.zs_with)
                   ─► best edits with gain > 0, one per sentence, within the budget ─► apply
                   ─► verify each touched sentence (protected tokens, facts, markers, the marks' counts,
                      length, meaning, fluency); a failing sentence's new edit is reverted and banned
        ─► whole-text check (same guards, meaning by document similarity); while it fails, the edit
           with the least gain is reverted
        ─► SearchResult (the text returned always passed every guard)

An edit's counts delta is cached and recomputed only when an edit is applied or reverted near it,
so a round costs one small vector update per live edit, not a re-read of the text.
"""

from __future__ import annotations

import difflib
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from native_host.rewrite import guards
from native_host.rewrite.windows import Piece, split_pieces
from native_host.style import linkability, protected_spans
from native_host.style.counting import CountsDelta
from native_host.style.identify import Identifiability, TextState, objective, score_of
from native_host.style.markers import count_search_markers

if TYPE_CHECKING:
    import numpy as np

    from native_host.rewrite.seams import FluencyScorer, MeaningEmbedder

MIN_GAIN = 1e-4  # an edit must lower the objective by at least this much to be worth a change
MAX_ROUNDS = 12
NEAR = 30  # chars: an edit this close to an applied or reverted one has its counts delta recomputed
SETTLE_TRIES = 24  # whole-text check: edits tried one by one to find the one a cheap guard fails on


class SpanEdit(Protocol):
    """native_host.rewrite.edits.Edit (anon-edits) and WindowEdit share these fields."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def replacement(self) -> str: ...
    @property
    def family(self) -> str: ...
    @property
    def rule(self) -> str: ...
    @property
    def needs_lm_check(self) -> bool: ...


@dataclass(frozen=True)
class WindowEdit:
    """An LLM candidate for a window, as a span edit."""

    start: int
    end: int
    replacement: str
    family: str = "llm"
    rule: str = "llm:window"
    needs_lm_check: bool = True


@dataclass(frozen=True)
class Budget:
    max_change: float  # share of the text's words that edits may change in total
    edits_per_100_words: float  # and at most this many edits per 100 words


BUDGETS = {
    "medium": Budget(0.08, 4.0),
    "strong": Budget(0.25, 12.0),
}


@dataclass
class SearchChecks:
    """The guards every touched sentence and the whole text must pass.

    `embedder` (meaning) is required; `engine` (fluency, through Engine.score_texts) may be None, and
    then edits that need a language-model check are not used at all.
    """

    embedder: MeaningEmbedder
    engine: FluencyScorer | None = None
    protected_terms: tuple[str, ...] = ()
    min_similarity: float = guards.MIN_SIMILARITY
    fluency_margin: float = guards.FLUENCY_MARGIN
    count_markers: Callable[[str], Mapping[str, int]] = count_search_markers
    _logprob_cache: dict[str, np.ndarray] = field(default_factory=dict)
    _marker_cache: dict[str, Mapping[str, int]] = field(default_factory=dict)

    @property
    def has_fluency(self) -> bool:
        return self.engine is not None and hasattr(self.engine, "score_texts")

    def markers(self, text: str) -> Mapping[str, int]:
        if text not in self._marker_cache:
            if len(self._marker_cache) > 512:
                self._marker_cache.clear()
            self._marker_cache[text] = self.count_markers(text)
        return self._marker_cache[text]

    def cheap(self, candidate: str, source: str) -> guards.Verdict:
        # as often as in the source text itself: a name inside a longer word ("State" in "States")
        # is counted the same way on both sides
        names = guards.protected_tokens(source, self.protected_terms, protected_spans(source))
        required = {tok: source.count(tok) for tok in names}
        verdict = guards.passed("length")
        for verdict in (
            guards.check_length(candidate, source),
            guards.check_protected(candidate, required, source, protected_spans(candidate)),
            guards.check_facts(candidate, source),
            guards.check_known_words(candidate, source),
            guards.check_no_new_markers(candidate, self.markers(source), self.markers),
            guards.check_kept_marks(candidate, source),
        ):
            if not verdict.ok:
                return verdict
        return verdict

    def logprobs(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Per-token log-probabilities of each text (cached: originals recur across rounds)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._logprob_cache]
        if todo:
            if self.engine is None:  # not has_fluency: the search asks for no fluency then
                raise ValueError("no language model to score fluency with")
            for t, lp in zip(todo, guards.token_logprobs(self.engine, todo), strict=True):
                self._logprob_cache[t] = lp
        return [self._logprob_cache[t] for t in texts]

    def verify(self, items: Sequence[_Check]) -> list[guards.Verdict]:
        """One verdict per touched sentence; the model checks run batched over all of them."""
        verdicts = [self.cheap(it.candidate, it.source) for it in items]
        todo = [i for i, v in enumerate(verdicts) if v.ok]
        if todo:
            import numpy as np

            vectors = self.embedder.embed(
                [items[i].source for i in todo] + [items[i].candidate for i in todo]
            )
            n = len(todo)
            for k, i in enumerate(todo):
                verdicts[i] = guards.check_similarity(
                    float(np.dot(vectors[k], vectors[n + k])), self.min_similarity
                )
        return verdicts

    def whole(self, candidate: str, source: str) -> guards.Verdict:
        verdict = self.cheap(candidate, source)
        if not verdict.ok:
            return verdict
        return guards.check_similarity(
            self.embedder.document_similarity(source, candidate), self.min_similarity
        )


@dataclass(frozen=True)
class _Check:
    source: str  # the touched sentence(s) as given
    candidate: str  # and as edited


# The fluency guard scores the words around an edit (the cost is rows x tokens): this many chars of
# context before and after, widened to whole words, never past the sentence.
FLUENCY_CONTEXT = (32, 16)


@dataclass
class _Live:
    edit: SpanEdit
    group: tuple[int, ...]  # rewritable pieces the edit touches
    words: int  # words it changes (budget)
    window: tuple[int, int]  # what the fluency guard read (needs_lm_check edits), else the span
    delta: CountsDelta | None = None
    gain: float = 0.0


@dataclass
class AppliedEdit:
    start: int  # in the search's input text
    end: int
    original: str
    replacement: str
    family: str
    rule: str
    gain: float
    pass_index: int = 0  # search_passes: which pass (start/end are in that pass's input text)

    def to_json(self) -> dict:
        return {
            "pass": self.pass_index,
            "start": self.start,
            "end": self.end,
            "original": self.original,
            "replacement": self.replacement,
            "family": self.family,
            "rule": self.rule,
            "gain": round(self.gain, 4),
        }


@dataclass
class SearchResult:
    text: str
    applied: list[AppliedEdit]
    rejected: dict[str, int]  # guard -> edits reverted for failing it
    objective_before: float
    objective_after: float
    proposals: int
    rounds: int
    words_changed: int
    seconds: float
    cancelled: bool = False
    passes: int = 1


def _conflict(a: SpanEdit, b: SpanEdit) -> bool:
    """Edits must be at least one character apart: each was checked alone, not glued to another."""
    return a.start <= b.end and b.start <= a.end


def _clash(a: _Live, b: _Live) -> bool:
    """Two edits the fluency guard read may not share the words it read around either."""
    if _conflict(a.edit, b.edit):
        return True
    both = a.edit.needs_lm_check and b.edit.needs_lm_check
    return both and a.window[0] < b.window[1] and b.window[0] < a.window[1]


def fluency_window(text: str, pieces: list[Piece], edit: SpanEdit, group: tuple[int, ...]) -> tuple[int, int]:
    """The span of `text` the fluency guard reads for `edit`: FLUENCY_CONTEXT characters around it,
    widened to whole words, inside the sentence(s) `group` (indices into `pieces`)."""
    lo = pieces[group[0]].start
    hi = pieces[group[-1]].start + len(pieces[group[-1]].text)
    w0 = max(lo, edit.start - FLUENCY_CONTEXT[0])
    w1 = min(hi, edit.end + FLUENCY_CONTEXT[1])
    while w0 > lo and not text[w0 - 1].isspace():
        w0 -= 1
    while w1 < hi and not text[w1].isspace():
        w1 += 1
    return w0, w1


def _fluency_drops(
    checks: SearchChecks, text: str, edits: Sequence[tuple[SpanEdit, tuple[int, int]]]
) -> list[float]:
    """guards.fluency_drop of each (edit, window), each edit alone in its window, in one batch."""
    sources = [text[w0:w1] for _, (w0, w1) in edits]
    candidates = [text[w0 : e.start] + e.replacement + text[e.end : w1] for e, (w0, w1) in edits]
    scores = checks.logprobs(sources + candidates)
    n = len(edits)
    return [guards.fluency_drop(scores[k], scores[n + k], sources[k], candidates[k]) for k in range(n)]


def fluency_drops(text: str, edits: Sequence[SpanEdit], checks: SearchChecks) -> list[float | None]:
    """What the search's fluency guard measures for each edit of `text` applied alone (nats around the
    edit; `guards.check_fluency` decides); None where the search would not use the edit (it touches
    code or crosses a line break). For calibration and tests: the search computes the same inline."""
    pieces = split_pieces(text)
    placed = [(k, e, _groups(pieces, e)) for k, e in enumerate(edits)]
    todo = [(k, e, fluency_window(text, pieces, e, g)) for k, e, g in placed if g is not None]
    drops = _fluency_drops(checks, text, [(e, w) for _, e, w in todo])
    out: list[float | None] = [None] * len(edits)
    for (k, _, _), drop in zip(todo, drops, strict=True):
        out[k] = drop
    return out


def _changed_words(original: str, replacement: str) -> int:
    a, b = original.split(), replacement.split()
    if len(a) <= 3:
        return max(1, len(a))
    same = sum(m.size for m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    return max(1, len(a) - same)


def _groups(pieces: list[Piece], edit: SpanEdit) -> tuple[int, ...] | None:
    """Rewritable pieces the edit touches; None when it touches code or crosses a line break."""
    touched = []
    for i, p in enumerate(pieces):
        p_end = p.start + len(p.text)
        inside = p.start < edit.end and edit.start < p_end
        if edit.start == edit.end:
            inside = p.start <= edit.start < p_end or (edit.start == p_end and p.rewritable)
        if not inside:
            continue
        if not p.rewritable:
            if "\n" in p.text or p.text.strip():
                return None  # line breaks and code are never edited
            continue
        touched.append(i)
        if edit.start == edit.end:
            break
    return tuple(touched) or None


class _Search:
    def __init__(
        self,
        text: str,
        ident: Identifiability,
        checks: SearchChecks,
        max_words: int,
        max_edits: int,
        origin: str | None = None,
        aim: Callable[[dict[str, float]], float] = objective,
        enough: Callable[[dict[str, float]], bool] | None = None,
    ) -> None:
        self.source = text
        self.aim = aim  # what the edits lower: the families' z -> one number
        self.enough = enough  # the families' z -> True once no more change is needed
        self.origin = text if origin is None else origin
        self.ident = ident
        self.checks = checks
        self.state: TextState = ident.state(text)
        self.pieces = split_pieces(text)
        self.max_words, self.max_edits = max_words, max_edits
        self.applied: list[_Live] = []  # sorted by start
        self.gains: dict[int, float] = {}  # id(live) -> gain when applied
        self.rejected: Counter[str] = Counter()
        self.words_changed = 0
        self.fluency: dict[int, float] = {}  # id(live) -> -guards.fluency_drop (nats around the edit)

    # coordinates ---------------------------------------------------------------------------
    def _shift(self, pos: int) -> int:
        return sum(
            len(a.edit.replacement) - (a.edit.end - a.edit.start) for a in self.applied if a.edit.end < pos
        )

    def _current_span(self, edit: SpanEdit) -> tuple[int, int]:
        s = self._shift(edit.start)  # applied edits are at least one character away from this one
        return edit.start + s, edit.end + s

    def _apply(self, live: _Live) -> None:
        start, end = self._current_span(live.edit)
        self.state.apply(start, end, live.edit.replacement)
        self.applied.append(live)
        self.applied.sort(key=lambda a: (a.edit.start, a.edit.end))
        self.words_changed += live.words

    def _revert(self, live: _Live) -> None:
        self.applied.remove(live)
        start, _ = self._current_span(live.edit)
        self.state.apply(
            start, start + len(live.edit.replacement), self.source[live.edit.start : live.edit.end]
        )
        self.words_changed -= live.words

    def _cluster_check(self, lo: int, hi: int) -> _Check:
        """The touched sentences pieces[lo..hi] before and after their applied edits."""
        a = self.pieces[lo].start
        b = self.pieces[hi].start + len(self.pieces[hi].text)
        original = self.source[a:b]
        current = original
        for live in sorted(
            (x for x in self.applied if a <= x.edit.start and x.edit.end <= b), key=lambda x: -x.edit.start
        ):
            s, e = live.edit.start - a, live.edit.end - a
            current = current[:s] + live.edit.replacement + current[e:]
        return _Check(original, current)

    def _clusters(self) -> list[tuple[int, int, list[_Live]]]:
        spans: list[list[Any]] = []
        for live in sorted(self.applied, key=lambda x: x.group[0]):
            lo, hi = live.group[0], live.group[-1]
            if spans and lo <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], hi)
                spans[-1][2].append(live)
            else:
                spans.append([lo, hi, [live]])
        return [(lo, hi, members) for lo, hi, members in spans]

    # the search ----------------------------------------------------------------------------
    def run(self, edits: Sequence[SpanEdit], cancel: threading.Event | None) -> tuple[int, bool]:
        live: list[_Live] = []
        for edit in edits:
            if edit.needs_lm_check and not self.checks.has_fluency:
                continue
            group = _groups(self.pieces, edit)
            if group is None:
                continue
            words = _changed_words(self.source[edit.start : edit.end], edit.replacement)
            window = self._window(edit, group) if edit.needs_lm_check else (edit.start, edit.end)
            live.append(_Live(edit, group, words, window))
        rounds = 0
        while live and rounds < MAX_ROUNDS:
            if cancel is not None and cancel.is_set():
                return rounds, True
            if self._enough():
                break
            rounds += 1
            now = self.aim(self.state.zs())
            for item in live:
                if item.delta is None:
                    s, e = self._current_span(item.edit)
                    item.delta = self.state.delta(s, e, item.edit.replacement)
                item.gain = now - self.aim(self.state.zs_with(item.delta))
            live.sort(key=lambda x: -x.gain)
            if not self.checks.has_fluency:  # the engine failed during the search
                live = [x for x in live if not x.edit.needs_lm_check or id(x) in self.fluency]
            for _ in range(4):  # pick; screen the picked edits' fluency; pick again without the failures
                chosen = self._pick(live)
                unscreened = [c for c in chosen if c.edit.needs_lm_check and id(c) not in self.fluency]
                if not unscreened:
                    break
                if cancel is not None and cancel.is_set():  # each screen is a language-model batch
                    return rounds, True
                failed = self._screen_fluency(unscreened)
                live = [x for x in live if id(x) not in failed]
            else:
                chosen = [c for c in self._pick(live) if not c.edit.needs_lm_check or id(c) in self.fluency]
            if not chosen:
                break
            if cancel is not None and cancel.is_set():  # nothing of this round applied yet
                return rounds, True
            for n, item in enumerate(chosen):  # most gain first: none past the one that was enough
                self.gains[id(item)] = item.gain
                self._apply(item)
                if self._enough():
                    chosen = chosen[: n + 1]
                    break
            self._verify_round(chosen)
            banned = {id(x) for x in chosen}
            # edits clashing with an applied one are gone for good; reverted ones are banned
            live = [x for x in live if id(x) not in banned and not any(_clash(x, a) for a in self.applied)]
            moved = [c.edit for c in chosen]
            for item in live:
                if any(item.edit.start - NEAR <= m.end and m.start <= item.edit.end + NEAR for m in moved):
                    item.delta = None
        return rounds, False

    def _enough(self) -> bool:
        return self.enough is not None and self.enough(self.state.zs())

    def _pick(self, live: list[_Live]) -> list[_Live]:
        """The best edits by gain: one per sentence, apart from each other, within the budget."""
        chosen: list[_Live] = []
        used: set[int] = set()
        for item in live:
            if item.gain <= MIN_GAIN:
                break
            if len(self.applied) + len(chosen) >= self.max_edits:
                break
            if self.words_changed + sum(c.words for c in chosen) + item.words > self.max_words:
                continue
            if used.intersection(item.group) or any(_clash(item, c) for c in chosen):
                continue
            chosen.append(item)
            used.update(item.group)
        return chosen

    def _window(self, edit: SpanEdit, group: tuple[int, ...]) -> tuple[int, int]:
        return fluency_window(self.source, self.pieces, edit, group)

    def _screen_fluency(self, todo: list[_Live]) -> set[int]:
        """One batched language-model pass: each edit alone in its window against the original window;
        returns the ids of those that failed. Edits whose windows overlap are never applied together
        (_clash), so a window that passed here is the window in the returned text."""
        try:
            drops = _fluency_drops(self.checks, self.source, [(x.edit, x.window) for x in todo])
        except Exception:  # the model broke: no edit that needs it is used
            self.checks.engine = None
            self.rejected["fluency"] += len(todo)
            return {id(x) for x in todo}
        failed = set()
        for x, drop in zip(todo, drops, strict=True):
            self.fluency[id(x)] = -drop
            if not guards.check_fluency(drop, self.checks.fluency_margin).ok:
                failed.add(id(x))
                self.rejected["fluency"] += 1
        return failed

    def _verify_round(self, chosen: list[_Live]) -> int:
        new = {id(c) for c in chosen}
        touched = [cl for cl in self._clusters() if any(id(m) in new for m in cl[2])]
        verdicts = self.checks.verify([self._cluster_check(lo, hi) for lo, hi, _ in touched])
        failed = 0
        for (_, _, members), verdict in zip(touched, verdicts, strict=True):
            if verdict.ok:
                continue
            failed += 1
            self.rejected[verdict.guard] += 1
            for m in sorted((m for m in members if id(m) in new), key=lambda m: -m.edit.start):
                self._revert(m)
        return failed

    def settle(self) -> None:
        """Revert the least useful edits until the whole text passes (at worst: no edit at all)."""
        while self.applied:
            verdict = self.checks.whole(self.state.text, self.origin)
            if verdict.ok:
                return
            self.rejected["whole:" + verdict.guard] += 1
            by_gain = sorted(self.applied, key=lambda a: self.gains.get(id(a), 0.0))
            culprit = by_gain[0]
            if verdict.guard != "meaning":
                # a cheap guard (markers, facts, ...) usually fails because of one edit: revert the
                # least useful edit whose removal alone clears that guard, not simply the least useful
                for live in by_gain[:SETTLE_TRIES]:
                    self._revert(live)
                    again = self.checks.cheap(self.state.text, self.origin)
                    self._apply(live)
                    if again.ok or again.guard != verdict.guard:
                        culprit = live
                        break
            self._revert(culprit)


def meter_in_lowest_band(zs: dict[str, float]) -> bool:
    """The guide's meter would show a figure below its lowest boundary for a text with these family z
    (native_host/style/linkability.py `band`): "unlikely" where it knows a rival, "possibly" held there
    where it does not, and in both no further change lowers the level it says."""
    return linkability.band(score_of(zs)) == "unlikely"


def search(
    text: str,
    edits: Sequence[SpanEdit],
    ident: Identifiability,
    checks: SearchChecks,
    budget: Budget,
    *,
    cancel: threading.Event | None = None,
    origin: str | None = None,
    spent: tuple[int, int] = (0, 0),
    aim: Callable[[dict[str, float]], float] = objective,
    enough: Callable[[dict[str, float]], bool] | None = None,
) -> SearchResult:
    """Apply the subset of `edits` (spans of `text`, may overlap) that lowers `ident`'s objective most,
    within `budget`, such that every touched sentence and the whole text pass `checks`. With `enough`
    (the families' z -> bool), no edit is applied once it says the text needs no more change
    (`meter_in_lowest_band`: the rewrite changes no more than it takes to reach the meter's lowest band).

    `origin`: the text the whole-text check compares against (default `text`; a later pass gives the
    user's text, so the passes together pass it); `spent`: (words, edits) earlier passes used of the
    budget. `aim`: what the edits lower (default the rewrite's objective, which stops gaining once every
    family is safely unlinked; the guide's alternatives lower the score itself)."""
    started = time.perf_counter()
    n_words = max(1, guards.word_count(origin if origin is not None else text))
    max_words = max(0, max(1, math.floor(budget.max_change * n_words)) - spent[0])
    max_edits = max(0, max(1, math.ceil(budget.edits_per_100_words * n_words / 100)) - spent[1])
    # an edit that changes how often a kept mark occurs could never pass guards.check_kept_marks
    edits = [e for e in edits if not guards.changed_marks(e.replacement, text[e.start : e.end])]
    run = _Search(text, ident, checks, max_words, max_edits, origin, aim, enough)
    before = aim(run.state.zs())
    rounds, cancelled = run.run(edits, cancel)
    run.settle()
    final = run.state.text
    applied = [
        AppliedEdit(
            a.edit.start,
            a.edit.end,
            text[a.edit.start : a.edit.end],
            a.edit.replacement,
            a.edit.family,
            a.edit.rule,
            run.gains.get(id(a), 0.0),
        )
        for a in run.applied
    ]
    return SearchResult(
        text=final,
        applied=applied,
        rejected=dict(run.rejected),
        objective_before=before,
        objective_after=aim(run.state.zs()),
        proposals=len(edits),
        rounds=rounds,
        words_changed=run.words_changed,
        seconds=time.perf_counter() - started,
        cancelled=cancelled,
    )


PASSES = 2  # strong: proposals are made again on the first pass's output (edits that clashed get a turn)


def _spans_after(spans: list[tuple[int, int]], applied: Sequence[AppliedEdit]) -> list[tuple[int, int]]:
    """`spans` of a pass's input and the spans its (non-overlapping) `applied` edits wrote, as
    offsets into that pass's output."""

    def shift(pos: int, own: AppliedEdit | None = None) -> int:
        grown = (len(x.replacement) - (x.end - x.start) for x in applied if x.end <= pos and x is not own)
        return pos + sum(grown)

    moved = [(shift(a), shift(a) + (b - a)) for a, b in spans]
    return moved + [(shift(x.start, x), shift(x.start, x) + len(x.replacement)) for x in applied]


def search_passes(
    text: str,
    propose: Callable[[str], Sequence[SpanEdit]],
    ident: Identifiability,
    checks: SearchChecks,
    budget: Budget,
    *,
    extra: Sequence[SpanEdit] = (),
    passes: int = PASSES,
    cancel: threading.Event | None = None,
    enough: Callable[[dict[str, float]], bool] | None = None,
) -> SearchResult:
    """`search` repeated on its own output with fresh proposals (`propose(current text)`), sharing one
    budget; `extra` edits (LLM windows, spans of `text`) join the first pass only. Two edits whose
    fluency windows overlap are never applied in one pass; the next pass sees the first one applied
    and scores the second in its new context. Every pass's whole-text check compares with `text`, so
    the returned text passed every guard against it."""
    started = time.perf_counter()
    current = text
    results: list[SearchResult] = []
    applied: list[AppliedEdit] = []
    written: list[tuple[int, int]] = []  # spans of `current` that an earlier pass wrote
    for k in range(max(1, passes)):
        edits = [*propose(current), *(extra if k == 0 else ())]
        # An edit of an earlier pass's replacement chains synonyms away from the original's sense
        # ("received" -> "got" -> "obtained his guests"); the 12-01 reading found 24 such chains.
        edits = [e for e in edits if not any(e.start < b and a < e.end for a, b in written)]
        words = sum(r.words_changed for r in results)
        found = search(
            current,
            edits,
            ident,
            checks,
            budget,
            cancel=cancel,
            origin=text,
            spent=(words, len(applied)),
            enough=enough,
        )
        results.append(found)
        applied.extend(replace(a, pass_index=k) for a in found.applied)
        written = _spans_after(written, found.applied)
        current = found.text
        if found.cancelled or not found.applied or (enough is not None and enough(ident.state(current).zs())):
            break
    rejected: Counter[str] = Counter()
    for r in results:
        rejected.update(r.rejected)
    return SearchResult(
        text=current,
        applied=applied,
        rejected=dict(rejected),
        objective_before=results[0].objective_before,
        objective_after=results[-1].objective_after,
        proposals=sum(r.proposals for r in results),
        rounds=sum(r.rounds for r in results),
        words_changed=sum(r.words_changed for r in results),
        seconds=time.perf_counter() - started,
        cancelled=any(r.cancelled for r in results),
        passes=len(results),
    )

"""rewrite(text, options): analyze → neutralize → (medium, strong) edit search, or LLM windows → result.

    text ─► analyze ─► neutralize ─┬─► light: done (surface markers only, no model)
                                   │
                                   ├─► medium / strong: span edits proposed (edits/) and picked by the
                                   │   identifiability search (search.py) within the strength's budget
                                   │   (search.BUDGETS), under every guard; LLM windows join its pool
                                   │   when asked (`llm_windows`) or, by default, for a model above the
                                   │   size threshold (models/size_class.py: restructuring prompt)
                                   │
                                   └─► `search=False` (the pre-search pipeline) or no identifiability
                                       model: windows (sentences; medium: only those still carrying
                                       markers) ─► N candidates per window (greedy + sampled) ─► strip
                                       wrappers ─► neutralize ─► guards (chatter, length, protected
                                       tokens, no new markers, meaning) ─► best ─► reassemble
                                       (order, layout kept) ─► final neutralize

Model problems (absent, corrupt, failing mid-run) never raise: the result falls back to the
neutralizer and says why in `reason`.

What goes in and comes out is options.py; the LLM-window path is llm_windows.py, the search
search.py, the checks guards.py: this module is the order they run in.
"""

from __future__ import annotations

import difflib
import re
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from native_host import models, style
from native_host.models.size_class import model_class, windows_on
from native_host.rewrite import guards, llm_windows
from native_host.rewrite.llm_windows import Cancelled, stop_if
from native_host.rewrite.options import (
    SEARCH_STRENGTHS,
    ProgressFn,
    RewriteOptions,
    RewriteResult,
    WindowOutcome,
)
from native_host.rewrite.windows import Piece, Window, group_windows, split_pieces
from native_host.settings import PROFILE_OFF
from native_host.style.markers import markers_summary
from native_host.style.protect import term_spans

if TYPE_CHECKING:
    from native_host.rewrite.seams import LanguageModel, MeaningEmbedder
    from native_host.rewrite.search import SearchResult, SpanEdit
    from native_host.style.identify import Identifiability
    from native_host.style.profile import Profile

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


def diff_edits(original: str, final: str) -> list[dict]:
    """Word-level spans of the original that changed, with their replacements."""
    a = [m for m in _TOKEN.finditer(original)]
    b = [m.group(0) for m in _TOKEN.finditer(final)]
    matcher = difflib.SequenceMatcher(None, [m.group(0) for m in a], b, autojunk=False)
    edits = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        start = a[i1].start() if i1 < len(a) else len(original)
        end = a[i2 - 1].end() if i2 > i1 else start
        edits.append(
            {"start": start, "end": end, "original": original[start:end], "replacement": "".join(b[j1:j2])}
        )
    return edits


class _Progress:
    def __init__(self, fn: ProgressFn | None) -> None:
        self.fn = fn

    def __call__(self, stage: str, fraction: float, message: str, **detail: Any) -> None:
        """`detail`: the optional `done`, `total` and `eta_s` of PROTOCOL.md's progress events."""
        if self.fn is None:
            return
        try:
            event = {"stage": stage, "fraction": round(min(max(fraction, 0.0), 1.0), 4), "message": message}
            self.fn({**event, **detail})
        except Exception:  # a broken listener must not break the rewrite
            self.fn = None


@dataclass
class _Searched:
    """What the identifiability search did, for the result."""

    found: SearchResult
    ident: Identifiability  # the identifiability model it minimized
    embedder: MeaningEmbedder
    before: dict  # ident.score(the user's text).to_json()

    def to_json(self) -> dict:
        found = self.found
        return {
            "applied": [a.to_json() for a in found.applied],
            "rejected": found.rejected,
            "proposals": found.proposals,
            "rounds": found.rounds,
            "passes": found.passes,
            "words_changed": found.words_changed,
            "rivals": list(getattr(self.ident, "rivals", [])),  # whom the surrogate contrasted you with
            "objective_before": round(found.objective_before, 4),
            "objective_after": round(found.objective_after, 4),
            "seconds": round(found.seconds, 4),
        }


@dataclass
class _Run:
    """One rewrite: what it was given and what it has measured so far; `finish` builds the result."""

    text: str
    options: RewriteOptions
    progress: _Progress
    cancel: threading.Event | None
    started: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # said in `reason` next to the outcome
    neutral: str = ""  # the text after the first neutralize
    report_before: Any = None
    profile: Profile | None = None  # what the markers before were counted with; the markers after too

    def stopped(self) -> RewriteResult | None:
        """A cancel before any part was rewritten: the text unchanged, at once (a long text's final
        neutralize and analyze passes would take seconds)."""
        if self.cancel is None or not self.cancel.is_set():
            return None
        self.timings["total_s"] = time.perf_counter() - self.started
        return RewriteResult(
            text=self.text,
            original=self.text,
            edits=[],
            markers_before={},
            markers_after={},
            similarity=None,
            path="neutralizer",
            reason="cancelled before any part was rewritten; the text is unchanged",
            timings={k: round(v, 4) for k, v in self.timings.items()},
            strength=self.options.strength,
            cancelled=True,
        )

    def finish(
        self,
        body: str,
        reason: str,
        outcomes: Sequence[WindowOutcome] = (),
        cancelled: bool = False,
        searched: _Searched | None = None,
    ) -> RewriteResult:
        """The final neutralize of `body`, then the result: markers and identifiability before and after."""
        options, neutral = self.options, self.neutral
        t = time.perf_counter()
        final, _ = style.neutralize(body, options.neutral_target, options.protected_terms)
        # The same profile as the markers before: the card's "N left" and the markers panel on the
        # result (an `analyze` with the profile) count the same habits.
        report_after = style.analyze(final, self.profile)
        scored = [(o.similarity, max(1, guards.word_count(o.source))) for o in outcomes if o.path == "llm"]
        pairs = [(s, w) for s, w in scored if s is not None]
        similarity = sum(s * w for s, w in pairs) / sum(w for _, w in pairs) if pairs else None
        # Measured against the neutralized input: the neutralizer changes some capitalized words on
        # purpose (ALL-CAPS emphasis), never protected spans; everything after it must keep the rest.
        required = guards.protected_tokens(neutral, options.protected_terms, style.protected_spans(neutral))
        self.timings["finish_s"] = time.perf_counter() - t
        self.timings["total_s"] = time.perf_counter() - self.started
        self.progress("done", 1.0, reason or "done")
        path = "llm" if pairs else "neutralizer"
        identifiability_before = identifiability_after = search_report = None
        if searched is not None:
            identifiability_before = searched.before
            identifiability_after = searched.ident.score(final).to_json()
            search_report = searched.to_json()
            if searched.found.applied:
                similarity = round(searched.embedder.document_similarity(self.text, final), 4)
                path = "llm"  # the language model scored (and may have written) the edits
        return RewriteResult(
            text=final,
            original=self.text,
            edits=diff_edits(self.text, final),
            markers_before=markers_summary(self.report_before),
            markers_after=markers_summary(report_after),
            similarity=similarity,
            path=path,
            reason=reason,
            timings={k: round(v, 4) for k, v in self.timings.items()},
            strength=options.strength,
            windows=list(outcomes),
            protected_keep_rate=guards.keep_rate(final, required),
            cancelled=cancelled,
            identifiability_before=identifiability_before,
            identifiability_after=identifiability_after,
            search=search_report,
        )


def rewrite(
    text: str,
    options: RewriteOptions | None = None,
    *,
    on_progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> RewriteResult:
    options = options or RewriteOptions()
    run = _Run(text, options, _Progress(on_progress), cancel)
    progress, timings = run.progress, run.timings

    progress("analyze", 0.0, "finding the markers in the text")
    run.profile = _load_profile() if options.use_profile else None
    run.report_before = style.analyze(text, run.profile)
    if early := run.stopped():
        return early
    try:  # a cancel stops a long text's first neutralize between steps; stopped() below answers
        run.neutral, _ = style.neutralize(
            text, options.neutral_target, options.protected_terms, lambda: stop_if(cancel)
        )
    except Cancelled:
        run.neutral = text
    timings["analyze_s"] = time.perf_counter() - run.started
    if early := run.stopped():
        return early
    neutral = run.neutral

    if options.strength == "light":
        return run.finish(neutral, "light strength: surface markers only, no model")

    progress("load", 0.05, "loading the language model")
    t = time.perf_counter()
    try:
        engine = models.get_engine(options.model_dir, threads=options.threads)
        embedder = models.get_embedder(options.embedder_dir, threads=options.threads)
    except models.ModelUnavailable as exc:
        return run.finish(neutral, f"model unavailable, used the neutralizer: {exc}")
    timings["load_s"] = time.perf_counter() - t
    if early := run.stopped():
        return early

    kind = model_class(engine)
    pieces = split_pieces(neutral)
    ident = None
    if options.strength in SEARCH_STRENGTHS and options.search:
        ident, ident_problem = _identifiability(options)
        if ident is None:
            run.notes.append(f"identifiability unavailable, so no edit search: {ident_problem}")
        elif ident.message:
            run.notes.append(ident.message)
    # medium with a restructuring model: windows only on the sentences the search says matter most
    weights = ident.score(neutral).sentences if ident is not None and kind.restructures else None
    selected = llm_windows.select_pieces(
        pieces, neutral, options.strength, kind.restructures, contributions=weights
    )
    windows = group_windows(pieces, selected, kind.window_words)
    if ident is not None and not windows_on(options.llm_windows, kind):
        windows = []
    if not windows and ident is None:
        why = (
            "no sentence carries a marker the neutralizer left"
            if options.strength == "medium" and not kind.restructures
            else f"no sentence of {llm_windows.MIN_WINDOW_WORDS} or more words to paraphrase"
        )
        return run.finish(neutral, why)

    share = 0.6 if ident is not None else 0.85  # the search takes the rest of the bar
    words = [max(1, guards.word_count(w.text)) for w in windows]
    windows_started: list[float] = []

    def step(k: int) -> None:
        """Before window k: k of the windows done, and the seconds the rest take at the pace so far (by
        their words; unknown before the first is done)."""
        now = time.perf_counter()
        if not windows_started:
            windows_started.append(now)
        done_words = sum(words[:k])
        eta = (now - windows_started[0]) / done_words * sum(words[k:]) if done_words else None
        message = f"rewriting part {k + 1} of {len(windows)}"
        progress("rewrite", 0.1 + share * k / len(windows), message, done=k, total=len(windows), eta_s=eta)

    done = llm_windows.rewrite_windows(windows, engine, embedder, options, cancel, timings, step)
    if windows and not done.cancelled:
        n = len(windows)
        progress("rewrite", 0.1 + share, f"{n} of {n} parts rewritten", done=n, total=n, eta_s=None)
    if ident is not None and not done.cancelled and not done.failure:
        return _search(run, pieces, windows, done.outcomes, ident, engine, embedder)
    body = llm_windows.reassemble(pieces, windows, done.outcomes)
    reason = "; ".join([*run.notes, llm_windows.overall_reason(done, len(windows))]).strip("; ")
    return run.finish(body, reason, done.outcomes, done.cancelled)


def _identifiability(options: RewriteOptions) -> tuple[Identifiability | None, str]:
    """(model, "") or (None, why). A stored profile that cannot be read falls back to typicality inside
    Identifiability.load; only a missing or corrupt population leaves nothing to score against."""
    from native_host.style.identify import Identifiability
    from native_host.style.samples import IdentifyError

    if options.identifiability is not None:
        return options.identifiability, ""
    try:
        if options.use_profile:
            return Identifiability.load("stored"), ""
        ident = Identifiability.load(None)  # typicality: nothing of yours is read
    except IdentifyError as exc:
        return None, str(exc)
    ident.message = PROFILE_OFF
    return ident, ""


def _search(
    run: _Run,
    pieces: list[Piece],
    windows: list[Window],
    outcomes: list[WindowOutcome],
    ident: Identifiability,
    engine: LanguageModel,
    embedder: MeaningEmbedder,
) -> RewriteResult:
    """medium / strong: the identifiability search over rule edits and the LLM windows' passing
    candidates, within the strength's budget."""
    # imported here: numpy, the identifiability model and the edit tables load on the first
    # medium or strong rewrite, not when the host starts
    from native_host.rewrite import search
    from native_host.rewrite.edits import propose as propose_edits

    options = run.options
    t = time.perf_counter()
    run.progress("rewrite", 0.72, "choosing the edits that hide your style best")

    def propose(current: str) -> list[SpanEdit]:
        protected = [(s, e) for s, e, _ in style.protected_spans(current)]
        protected += [(s, e) for s, e, _ in _term_spans(current, options.protected_terms)]
        return list(propose_edits(current, protected))

    windows_as_edits: list[SpanEdit] = []
    for window, outcome in zip(windows, outcomes, strict=False):
        start = pieces[window.first].start
        end = pieces[window.last].start + len(pieces[window.last].text)
        # the model wrote these; its own output needs no fluency check by the same model
        windows_as_edits.extend(
            search.WindowEdit(start, end, c, needs_lm_check=False) for c in outcome.passing
        )
    checks = search.SearchChecks(embedder, engine, options.protected_terms, options.min_similarity)
    found = search.search_passes(
        run.neutral,
        propose,
        ident,
        checks,
        search.BUDGETS[options.strength],
        extra=windows_as_edits,
        cancel=run.cancel,
        enough=search.meter_in_lowest_band,  # no change past what the meter needs (issue 43)
    )
    run.timings["search_s"] = time.perf_counter() - t
    families = Counter(a.family for a in found.applied)
    summary = (
        f"{len(found.applied)} of {found.proposals} proposed edits applied "
        f"({found.words_changed} words; " + ", ".join(f"{n} {f}" for f, n in sorted(families.items())) + ")"
        if found.applied
        else f"no edit of {found.proposals} proposed lowered identifiability under the guards"
    )
    searched = _Searched(found, ident, embedder, ident.score(run.text).to_json())
    return run.finish(found.text, "; ".join([*run.notes, summary]), outcomes, found.cancelled, searched)


def _term_spans(text: str, terms: tuple[str, ...]) -> list[tuple[int, int, str]]:
    return term_spans(text, terms) if terms else []


def _load_profile():
    try:
        from native_host.style.profile import load_profile

        return load_profile()
    except Exception:  # no profile, or an unreadable one: analyze without it
        return None

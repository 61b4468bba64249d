"""rewrite(text, options): analyze → neutralize → (medium, strong) edit search, or LLM windows → result.

    text ─► analyze ─► neutralize ─┬─► light: done (surface markers only, no model)
                                   │
                                   ├─► medium / strong: span edits proposed (edits/) and picked by the
                                   │   identifiability search (search.py) within the strength's budget
                                   │   (search.BUDGETS), under every guard; LLM windows join its pool
                                   │   only when asked (`llm_windows`)
                                   │
                                   └─► `search=False` (the pre-search pipeline) or no identifiability
                                       model: windows (sentences; medium: only those still carrying
                                       markers) ─► N candidates per window (greedy + sampled) ─► strip
                                       wrappers ─► neutralize ─► guards (chatter, length, protected
                                       tokens, no new markers, meaning) ─► best ─► reassemble
                                       (order, layout kept) ─► final neutralize

Model problems (absent, corrupt, failing mid-run) never raise: the result falls back to the
neutralizer and says why in `reason`.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import itertools
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from native_host.rewrite import guards, models, prompt
from native_host.rewrite.windows import Piece, Window, group_windows, split_pieces
from native_host.settings import PROFILE_OFF

STRENGTHS = ("light", "medium", "strong")
# The strengths that run the identifiability search; each has a budget in search.BUDGETS.
SEARCH_STRENGTHS = ("medium", "strong")
# Sampled candidates: warm enough to vary, cool enough to stay on topic for a small model.
SAMPLE_TEMPERATURE = 0.7
MAX_NEW_TOKENS = 160  # per window; windows are ≤ 40 words (~60 tokens) unless one sentence is longer
MIN_WINDOW_WORDS = 4  # shorter sentences keep the neutralizer's version
# Score weights: meaning first; then markers removed; then how much the surface changed (for
# attackers that read character n-grams, an unchanged sentence is an unchanged fingerprint).
W_REMOVED = 0.5
W_CHANGE = 0.25
# A finding whose spans cover more than this share of a text is a whole-text statistic (sentence
# length, function words), not something a single sentence carries.
WHOLE_TEXT_SHARE = 0.5

ProgressFn = Callable[[dict], None]


@dataclass(frozen=True)
class RewriteOptions:
    strength: str = "medium"  # light: neutralizer only; medium / strong: the search, small / large budget
    target: Any = None  # native_host.style Target; None = the neutralizer's default style
    protected_terms: tuple[str, ...] = ()
    candidates: int = 3  # 1 greedy + (n-1) sampled
    model_dir: Path | None = None  # None = native_host.paths.default_model_dir()
    embedder_dir: Path | None = None  # None = native_host.paths.embedder_dir()
    min_similarity: float = guards.MIN_SIMILARITY
    max_new_tokens: int = MAX_NEW_TOKENS
    seed: int = 0
    # medium / strong: the identifiability model the search minimizes. None = your stored samples (`fantasma
    # profile add`), typicality when there are none; the eval passes one trained on an author's texts.
    identifiability: Any = None
    # medium / strong: LLM window candidates join the search's edit pool. Off by default: on the default model
    # about 1 window in 5 passes the guards, and generating them costs more than the 2 s per 100 words
    # budget on 2 cores (docs/anonymization.md)
    llm_windows: bool = False
    search: bool = True  # medium / strong: False = the pre-search pipeline (each window's best LLM candidate)
    # False: your profile, samples and rivals are not read; the search minimizes typicality (the host's
    # `use_profile` setting). An `identifiability` given above is used either way.
    use_profile: bool = True
    threads: int | None = None  # intra-op threads of the model sessions; None = one per physical core

    def __post_init__(self) -> None:
        if self.strength not in STRENGTHS:
            raise ValueError(f"strength must be one of {', '.join(STRENGTHS)} (got {self.strength!r})")
        if self.candidates < 1:
            raise ValueError("candidates must be >= 1")
        if isinstance(self.protected_terms, str):
            raise ValueError("protected_terms must be a tuple of strings, not one string")
        object.__setattr__(self, "protected_terms", tuple(str(t) for t in self.protected_terms))
        if not 0.0 <= self.min_similarity <= 1.0:
            raise ValueError("min_similarity must be in [0, 1]")


@dataclass
class WindowOutcome:
    index: int
    source: str  # the neutralized window the model saw
    text: str  # what replaces it
    path: str  # "llm" | "neutralizer"
    reason: str = ""
    similarity: float | None = None
    rejected: list[str] = field(default_factory=list)  # one line per rejected candidate
    passing: list[str] = field(default_factory=list)  # every candidate that passed the guards, best first
    candidates: int = 0  # how many the model generated for this window

    def to_json(self) -> dict:
        return {
            "index": self.index,
            "path": self.path,
            "reason": self.reason,
            "similarity": self.similarity,
            "rejected": self.rejected,
            "candidates": self.candidates,
        }


@dataclass
class RewriteResult:
    text: str
    original: str
    edits: list[dict]
    markers_before: dict
    markers_after: dict
    similarity: float | None  # word-weighted mean over windows the LLM rewrote; None if none
    path: str  # "llm" | "neutralizer"
    reason: str
    timings: dict
    strength: str
    windows: list[WindowOutcome] = field(default_factory=list)
    protected_keep_rate: float = 1.0
    cancelled: bool = False
    identifiability_before: dict | None = None  # IdentifiabilityReport.to_json() (medium/strong)
    identifiability_after: dict | None = None
    search: dict | None = None  # medium/strong: the edits the search applied and what the guards rejected

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "edits": self.edits,
            "markers_before": self.markers_before,
            "markers_after": self.markers_after,
            "similarity": self.similarity,
            "path": self.path,
            "reason": self.reason,
            "timings": self.timings,
            "strength": self.strength,
            "windows": [w.to_json() for w in self.windows],
            "protected_keep_rate": self.protected_keep_rate,
            "cancelled": self.cancelled,
            "identifiability_before": self.identifiability_before,
            "identifiability_after": self.identifiability_after,
            "search": self.search,
        }


# -- style adapters ---------------------------------------------------------------------------------


def _style():
    import native_host.style as style

    return style


def _field(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _finding_spans(finding: Any) -> list[tuple[int, int]]:
    out = []
    for span in _field(finding, "spans", None) or []:
        if isinstance(span, (list, tuple)) and len(span) >= 2:
            out.append((int(span[0]), int(span[1])))
        else:
            start, end = _field(span, "start"), _field(span, "end")
            if start is not None and end is not None:
                out.append((int(start), int(end)))
    return out


def marker_counts(report: Any) -> Counter[str]:
    """family → number of marked spans (a finding without spans counts once)."""
    counts: Counter[str] = Counter()
    for finding in _field(report, "findings", None) or []:
        family = str(_field(finding, "family", "unknown"))
        counts[family] += max(1, len(_finding_spans(finding)))
    return counts


def count_markers(text: str) -> Counter[str]:
    return marker_counts(_style().analyze(text))


# Families whose finding is a whole-text profile (the most deviant function words): their spans are
# every occurrence of the flagged words, so an edit that lowers one deviant word can let a more
# frequent word into the top three and "add" dozens of spans while the profile got more ordinary.
# For the search's no-new-markers guard such a family counts its flagged words, not their occurrences.
PROFILE_FAMILIES = frozenset({"function_words"})


def count_search_markers(text: str) -> Counter[str]:
    """count_markers for the search's guard: profile families count flagged words (PROFILE_FAMILIES)."""
    counts: Counter[str] = Counter()
    for finding in _field(_style().analyze(text), "findings", None) or []:
        family = str(_field(finding, "family", "unknown"))
        if family in PROFILE_FAMILIES:
            counts[family] += max(1, int(_field(finding, "count", 1) or 1))
        else:
            counts[family] += max(1, len(_finding_spans(finding)))
    return counts


def markers_summary(report: Any) -> dict:
    counts = marker_counts(report)
    return {"score": _field(report, "score", None), "count": sum(counts.values()), "families": dict(counts)}


def local_marker_spans(report: Any, text_length: int) -> list[tuple[int, int, str]]:
    """Spans of findings that mark a place in the text (not whole-text statistics)."""
    out: list[tuple[int, int, str]] = []
    for finding in _field(report, "findings", None) or []:
        spans = _finding_spans(finding)
        covered = sum(e - s for s, e in spans)
        if spans and covered <= WHOLE_TEXT_SHARE * max(text_length, 1):
            family = str(_field(finding, "family", "unknown"))
            out.extend((s, e, family) for s, e in spans)
    return out


# -- edits ------------------------------------------------------------------------------------------

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


def surface_change(source: str, candidate: str) -> float:
    """1 - overlap of word bigrams (0 = same wording, 1 = all new)."""

    def bigrams(text: str) -> Counter:
        words = [w.lower() for w in re.findall(r"\w+", text)]
        return Counter(itertools.pairwise(words)) if len(words) > 1 else Counter(words)

    a, b = bigrams(source), bigrams(candidate)
    if not a or not b:
        return 0.0 if a == b else 1.0
    return 1.0 - sum((a & b).values()) / max(sum(a.values()), sum(b.values()))


# -- the pipeline -----------------------------------------------------------------------------------


class _Progress:
    def __init__(self, fn: ProgressFn | None) -> None:
        self.fn = fn

    def __call__(self, stage: str, fraction: float, message: str) -> None:
        if self.fn is None:
            return
        try:
            self.fn({"stage": stage, "fraction": round(min(max(fraction, 0.0), 1.0), 4), "message": message})
        except Exception:  # a broken listener must not break the rewrite
            self.fn = None


def rewrite(
    text: str,
    options: RewriteOptions | None = None,
    *,
    on_progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> RewriteResult:
    options = options or RewriteOptions()
    style = _style()
    progress = _Progress(on_progress)
    timings: dict[str, float] = {}
    started = time.perf_counter()

    def stopped() -> RewriteResult | None:
        """A cancel before any part was rewritten: the text unchanged, at once (a long text's final
        neutralize and analyze passes would take seconds)."""
        if cancel is None or not cancel.is_set():
            return None
        timings["total_s"] = time.perf_counter() - started
        return RewriteResult(
            text=text,
            original=text,
            edits=[],
            markers_before={},
            markers_after={},
            similarity=None,
            path="neutralizer",
            reason="cancelled before any part was rewritten; the text is unchanged",
            timings={k: round(v, 4) for k, v in timings.items()},
            strength=options.strength,
            cancelled=True,
        )

    notes: list[str] = []  # said in `reason` next to the outcome
    progress("analyze", 0.0, "finding the markers in the text")
    report_before = style.analyze(text, _load_profile() if options.use_profile else None)
    if early := stopped():
        return early
    try:  # a cancel stops a long text's first neutralize between steps; stopped() below answers
        neutral, _ = style.neutralize(text, options.target, options.protected_terms, lambda: _stop_if(cancel))
    except _Cancelled:
        neutral = text
    timings["analyze_s"] = time.perf_counter() - started
    if early := stopped():
        return early

    def finish(body: str, path: str, reason: str, outcomes: list[WindowOutcome], cancelled: bool = False):
        t = time.perf_counter()
        final, _ = style.neutralize(body, options.target, options.protected_terms)
        report_after = style.analyze(final)
        scored = [(o.similarity, max(1, guards.word_count(o.source))) for o in outcomes if o.path == "llm"]
        pairs = [(s, w) for s, w in scored if s is not None]
        similarity = sum(s * w for s, w in pairs) / sum(w for _, w in pairs) if pairs else None
        # Measured against the neutralized input: the neutralizer changes some capitalized words on
        # purpose (ALL-CAPS emphasis), never protected spans; everything after it must keep the rest.
        required = guards.protected_tokens(neutral, options.protected_terms, style.protected_spans(neutral))
        timings["finish_s"] = time.perf_counter() - t
        timings["total_s"] = time.perf_counter() - started
        progress("done", 1.0, reason or "done")
        return RewriteResult(
            text=final,
            original=text,
            edits=diff_edits(text, final),
            markers_before=markers_summary(report_before),
            markers_after=markers_summary(report_after),
            similarity=similarity,
            path="llm" if pairs else "neutralizer",
            reason=reason,
            timings={k: round(v, 4) for k, v in timings.items()},
            strength=options.strength,
            windows=outcomes,
            protected_keep_rate=guards.keep_rate(final, required),
            cancelled=cancelled,
        )

    if options.strength == "light":
        return finish(neutral, "neutralizer", "light strength: surface markers only, no model", [])

    progress("load", 0.05, "loading the language model")
    t = time.perf_counter()
    try:
        engine = models.get_engine(options.model_dir, threads=options.threads)
        embedder = models.get_embedder(options.embedder_dir, threads=options.threads)
    except models.ModelUnavailable as exc:
        return finish(neutral, "neutralizer", f"model unavailable, used the neutralizer: {exc}", [])
    timings["load_s"] = time.perf_counter() - t
    if early := stopped():
        return early

    pieces = split_pieces(neutral)
    windows = group_windows(pieces, _selected_pieces(pieces, neutral, options.strength))
    ident = None
    if options.strength in SEARCH_STRENGTHS and options.search:
        ident, ident_problem = _identifiability(options)
        if ident is None:
            notes.append(f"identifiability unavailable, so no edit search: {ident_problem}")
        elif ident.message:
            notes.append(ident.message)
        if ident is not None and not options.llm_windows:
            windows = []
    if not windows and ident is None:
        why = (
            "no sentence carries a marker the neutralizer left"
            if options.strength == "medium"
            else f"no sentence of {MIN_WINDOW_WORDS} or more words to paraphrase"
        )
        return finish(neutral, "neutralizer", why, [])

    outcomes: list[WindowOutcome] = []
    replacement: dict[int, WindowOutcome] = {}
    engine_failure = ""
    cancelled = False
    if windows:
        timings["generate_s"] = timings["guards_s"] = 0.0
    for k, window in enumerate(windows):
        if cancel is not None and cancel.is_set():
            cancelled = True
            break
        share = 0.6 if ident is not None else 0.85  # the search takes the rest of the bar
        progress("rewrite", 0.1 + share * k / len(windows), f"rewriting part {k + 1} of {len(windows)}")
        if engine_failure:
            outcome = WindowOutcome(k, window.text, window.text, "neutralizer", engine_failure)
        else:
            try:
                outcome = _rewrite_window(k, window, engine, embedder, options, cancel, timings)
            except _Cancelled:
                cancelled = True
                break
            except Exception as exc:  # the model broke mid-run: keep going without it
                engine_failure = f"generation failed ({type(exc).__name__}: {exc})"
                outcome = WindowOutcome(k, window.text, window.text, "neutralizer", engine_failure)
        outcomes.append(outcome)
        replacement[window.first] = outcome

    if ident is not None and not cancelled and not engine_failure:
        return _search_and_finish(
            text,
            neutral,
            pieces,
            windows,
            outcomes,
            ident,
            engine,
            embedder,
            options,
            cancel,
            timings,
            progress,
            finish,
            notes,
        )
    body = _reassemble(pieces, windows, replacement)
    reason = "; ".join([*notes, _overall_reason(outcomes, len(windows), cancelled, engine_failure)]).strip(
        "; "
    )
    return finish(body, "llm", reason, outcomes, cancelled)


def _identifiability(options: RewriteOptions) -> tuple[Any, str]:
    """(model, "") or (None, why). A stored profile that cannot be read falls back to typicality inside
    Identifiability.load; only a missing or corrupt population leaves nothing to score against."""
    from native_host.style.identify import Identifiability, IdentifyError

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


def _proposals(neutral: str, protected: list[tuple[int, int]]) -> tuple[list[Any], str]:
    try:
        from native_host.rewrite.edits import propose
    except ImportError:  # the edit proposers are a separate module; without them only LLM windows
        return [], "edit proposers not installed"
    return list(propose(neutral, protected)), ""


def _search_and_finish(
    text: str,
    neutral: str,
    pieces: list[Piece],
    windows: list[Window],
    outcomes: list[WindowOutcome],
    ident: Any,
    engine: Any,
    embedder: Any,
    options: RewriteOptions,
    cancel: threading.Event | None,
    timings: dict[str, float],
    progress: _Progress,
    finish: Callable[..., RewriteResult],
    notes: list[str],
) -> RewriteResult:
    """medium / strong: the identifiability search over rule edits and the LLM windows' passing
    candidates, within the strength's budget."""
    from native_host.rewrite import search as search_mod

    style = _style()
    t = time.perf_counter()
    progress("rewrite", 0.72, "choosing the edits that hide your style best")
    problems: list[str] = []

    def propose(current: str) -> list[Any]:
        protected = [(s, e) for s, e, _ in style.protected_spans(current)]
        protected += [(s, e) for s, e, _ in _term_spans(current, options.protected_terms)]
        edits, why = _proposals(current, protected)
        if why and why not in problems:
            problems.append(why)
        return edits

    windows_as_edits: list[Any] = []
    for window, outcome in zip(windows, outcomes, strict=False):
        start = pieces[window.first].start
        end = pieces[window.last].start + len(pieces[window.last].text)
        # the model wrote these; its own output needs no fluency check by the same model
        windows_as_edits.extend(
            search_mod.WindowEdit(start, end, c, needs_lm_check=False) for c in outcome.passing
        )
    checks = search_mod.SearchChecks(
        embedder, engine, options.protected_terms, options.min_similarity, count_markers=count_search_markers
    )
    found = search_mod.search_passes(
        neutral,
        propose,
        ident,
        checks,
        search_mod.BUDGETS[options.strength],
        extra=windows_as_edits,
        cancel=cancel,
    )
    notes.extend(problems)
    timings["search_s"] = time.perf_counter() - t
    families = Counter(a.family for a in found.applied)
    summary = (
        f"{len(found.applied)} of {found.proposals} proposed edits applied "
        f"({found.words_changed} words; " + ", ".join(f"{n} {f}" for f, n in sorted(families.items())) + ")"
        if found.applied
        else f"no edit of {found.proposals} proposed lowered identifiability under the guards"
    )
    before = ident.score(text)
    result = finish(found.text, "llm", "; ".join([*notes, summary]), outcomes, found.cancelled)
    result.identifiability_before = before.to_json()
    result.identifiability_after = ident.score(result.text).to_json()
    result.search = {
        "applied": [a.to_json() for a in found.applied],
        "rejected": found.rejected,
        "proposals": found.proposals,
        "rounds": found.rounds,
        "passes": found.passes,
        "words_changed": found.words_changed,
        "rivals": list(getattr(ident, "rivals", [])),  # whom the surrogate contrasted you with
        "objective_before": round(found.objective_before, 4),
        "objective_after": round(found.objective_after, 4),
        "seconds": round(found.seconds, 4),
    }
    if found.applied:
        result.similarity = round(embedder.document_similarity(text, result.text), 4)
        result.path = "llm"  # the language model scored (and may have written) the edits
    return result


def _term_spans(text: str, terms: tuple[str, ...]) -> list[tuple[int, int, str]]:
    from native_host.style.protect import term_spans

    return term_spans(text, terms) if terms else []


class _Cancelled(Exception):
    pass


def _stop_if(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise _Cancelled


def _load_profile():
    try:
        from native_host.style.profile import load_profile

        return load_profile()
    except Exception:  # no profile, or an unreadable one: analyze without it
        return None


def _selected_pieces(pieces: list[Piece], neutral: str, strength: str) -> set[int]:
    # Greetings, sign-offs and initials ("Thanks,", "M.") carry too little for a paraphrase; a small
    # model only invents text around them.
    rewritable = {
        i for i, p in enumerate(pieces) if p.rewritable and guards.word_count(p.text) >= MIN_WINDOW_WORDS
    }
    if strength == "strong":
        return rewritable
    spans = local_marker_spans(_style().analyze(neutral), len(neutral))
    selected = set()
    for i in rewritable:
        p = pieces[i]
        if any(s < p.start + len(p.text) and e > p.start for s, e, _ in spans):
            selected.add(i)
    return selected


def _reassemble(pieces: list[Piece], windows: list[Window], replacement: dict[int, WindowOutcome]) -> str:
    out = []
    skip_until = -1
    last_of = {w.first: w.last for w in windows}
    for i, piece in enumerate(pieces):
        if i <= skip_until:
            continue
        if i in replacement:
            out.append(replacement[i].text)
            skip_until = last_of[i]
        else:
            out.append(piece.text)
    return "".join(out)


def _overall_reason(outcomes: list[WindowOutcome], n_windows: int, cancelled: bool, failure: str) -> str:
    fallbacks = [o for o in outcomes if o.path != "llm"]
    parts = []
    if cancelled:
        parts.append(f"cancelled after {len(outcomes)} of {n_windows} parts; the rest was only neutralized")
    if failure:
        parts.append(failure)
    if fallbacks and not failure:
        if len(fallbacks) == len(outcomes):
            parts.append("no candidate passed the guards, used the neutralizer: " + fallbacks[0].reason)
        else:
            parts.append(f"{len(fallbacks)} of {len(outcomes)} parts kept the neutralizer's version")
    return "; ".join(parts)


def _seed(options: RewriteOptions, window: str, i: int) -> int:
    digest = hashlib.sha256(f"{options.seed}:{i}:{window}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def _rewrite_window(
    index: int,
    window: Window,
    engine: Any,
    embedder: Any,
    options: RewriteOptions,
    cancel: threading.Event | None,
    timings: dict[str, float],
) -> WindowOutcome:
    from native_host.engine import GenerationOptions

    style = _style()
    source = window.text
    required = guards.protected_tokens(source, options.protected_terms, style.protected_spans(source))
    source_markers = count_markers(source)
    families = list(source_markers) or []
    messages = prompt.build_messages(source, families, required)
    prompt_ids = engine.encode(engine.render_chat(messages, add_generation_prompt=True))
    # Past ~1.6x the source the length guard rejects anyway; stopping there saves the decode time.
    budget = min(options.max_new_tokens, int(len(engine.encode(source)) * 1.6) + 12)
    gen_options = [
        GenerationOptions(
            max_new_tokens=budget,
            greedy=(i == 0),
            temperature=SAMPLE_TEMPERATURE,
            seed=_seed(options, source, i),
            stop_strings=("\n",),  # windows hold no line break: one means the model moved on
        )
        for i in range(options.candidates)
    ]

    _warm_prefix(engine)
    t = time.perf_counter()
    # Greedy alone: the engine's prompt-lookup speculation makes copying-heavy rewrites fast.
    results = [engine.generate(prompt_ids, gen_options[0], cancel=cancel)]
    sampled = gen_options[1:]
    generate_batch = getattr(engine, "generate_batch", None)
    if sampled and not (cancel is not None and cancel.is_set()):
        if generate_batch is not None and len(sampled) > 1:
            # One batch: each weight read serves every sampled candidate.
            results.extend(generate_batch(prompt_ids, sampled, cancel=cancel))
        else:
            for opts in sampled:
                results.append(engine.generate(prompt_ids, opts, cancel=cancel))
    timings["generate_s"] += time.perf_counter() - t
    if cancel is not None and cancel.is_set():
        raise _Cancelled

    t = time.perf_counter()
    rejected: list[str] = []  # "candidate N [guard]: detail", one per rejected candidate
    survivors: list[tuple[int, str]] = []
    for n, result in enumerate(results):
        candidate = style.neutralize(
            guards.strip_wrappers(result.text, source), options.target, options.protected_terms
        )[0].strip()
        if any(candidate == kept for _, kept in survivors):
            continue
        if " ".join(candidate.split()) == " ".join(source.split()):
            rejected.append(f"candidate {n} [copy]: copied the input unchanged")
            continue
        verdict = _cheap_guards(candidate, source, required, source_markers)
        if verdict.ok:
            survivors.append((n, candidate))
        else:
            rejected.append(f"candidate {n} [{verdict.guard}]: {verdict.detail}")

    best: tuple[float, str, float] | None = None
    passing: list[tuple[float, str]] = []
    if survivors:
        similarities = embedder.similarities(source, [c for _, c in survivors])
        before = sum(source_markers.values())
        for (n, candidate), similarity in zip(survivors, similarities, strict=True):
            verdict = guards.check_similarity(similarity, options.min_similarity)
            if not verdict.ok:
                rejected.append(f"candidate {n} [{verdict.guard}]: {verdict.detail}")
                continue
            after = sum(count_markers(candidate).values())
            removed = (before - after) / before if before else 0.0
            score = similarity + W_REMOVED * removed + W_CHANGE * surface_change(source, candidate)
            passing.append((score, candidate))
            if best is None or score > best[0]:
                best = (score, candidate, similarity)
    timings["guards_s"] += time.perf_counter() - t

    if best is None:
        reason = rejected[0] if rejected else "the model produced no candidate"
        return WindowOutcome(index, source, source, "neutralizer", reason, None, rejected, [], len(results))
    ranked = [c for _, c in sorted(passing, key=lambda p: -p[0])]
    return WindowOutcome(index, source, best[1], "llm", "", round(best[2], 4), rejected, ranked, len(results))


def _warm_prefix(engine: Any) -> None:
    """Cache the states after the fixed instructions once per engine (the engine dedupes by tokens)."""
    warm = getattr(engine, "warm_prefix", None)
    if warm is None:
        return
    with contextlib.suppress(Exception):  # only a speed-up; generation works without it
        warm(engine.encode(engine.render_chat(prompt.prefix_messages(), add_generation_prompt=False)))


def _cheap_guards(
    candidate: str, source: str, required: Mapping[str, int], source_markers: Mapping[str, int]
) -> guards.Verdict:
    for verdict in (
        guards.check_chatter(candidate, source),
        guards.check_length(candidate, source),
        guards.check_protected(candidate, required, source, _style().protected_spans(candidate)),
        guards.check_facts(candidate, source),
        guards.check_no_new_markers(candidate, source_markers, count_markers),
    ):
        if not verdict.ok:
            return verdict
    return verdict

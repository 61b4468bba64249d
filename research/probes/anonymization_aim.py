"""Does the surrogate aim where the eval's attackers look? A fast diagnostic for issue 10.

    python research/probes/anonymization_aim.py [--corpora federalist] [--test-chunks 4]

For each corpus: the eval's split (`split_corpus`, 10 test chunks per author, 30 training chunks), the
eval's three attackers trained exactly as `fantasma eval` trains them, and the `--profile` surrogate
of each author exactly as the eval builds it (`native_host.eval.run._surrogates`: the author's training
chunks, the population without the corpus under test). Then, for every edit the proposers offer on a
test chunk (`native_host.rewrite.edits.propose`, each edit applied alone, no guards):

- the surrogate's gain per family (z before − z after) against the attacker's margin drop (true
  author's score − the best other candidate's, before − after);
- Spearman's rho per family, pooled over all edits of the slice and the mean within a chunk (the search
  ranks a chunk's edits against each other, so the within-chunk figure is the one that matters);
- top-10 overlap: of the surrogate's 10 best edits of a chunk, how many are among the attacker's 10
  best (mean per chunk; random picking scores about 10·10/edits);
- aim: the attacker's margin drop summed over the surrogate's top 10 of every chunk over the same sum
  over the attacker's own top 10 (1 = perfect aim, 0 = no better than edits that do nothing);
- `objective` against `joint` (the three margins, each divided by its spread over the test chunks,
  summed): what the search minimizes against what would flip all three attackers at once;
- greedy: the edits picked one at a time by the surrogate's objective (no guards, the `strong` budget:
  25% of the words and 12 edits per 100 words), then the attackers' accuracy on the result — an upper
  bound of what the search can do with this surrogate; `--oracle` adds the same greedy picking by the
  attackers' joint margin (the aim a perfect surrogate would have);
- `--guarded`: the real `strong` rewrite (every guard, the budget, both passes; needs `fantasma setup`)
  aimed once by the surrogate and once by the attackers' own margins, so the gap between the two is
  what a better aim could still win under the guards.

Runs in a few minutes on one core (surrogate training dominates). Nothing here tunes the attackers.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]  # the repository root
sys.path.insert(0, str(ROOT))

from native_host.eval.attackers import ATTACKERS, function_word_features, words  # noqa: E402
from native_host.eval.corpora import (  # noqa: E402
    _spread,
    chunk_text,
    corpora_root,
    find_corpus,
    load_manifest,
    split_corpus,
)
from native_host.eval.run import _surrogates, parse_corpus_spec, training_texts  # noqa: E402
from native_host.rewrite.edits import propose  # noqa: E402
from native_host.rewrite.search import BUDGETS, Budget, _changed_words  # noqa: E402
from native_host.style import counting, fitting, identify, population, protected_spans  # noqa: E402

PAIRS = {"char3": "char3", "delta": "delta", "function_words": "function_words", "objective": "joint"}
TOP = 10


def margins(attacker: Any, name: str, texts: Sequence[str], author: str) -> np.ndarray:
    """The attacker's score for the true author minus the best other candidate's (> 0 = attributed)."""
    if name == "char3":
        d = attacker.model.decision_function(attacker.vectorizer.transform(texts))
        classes = list(attacker.model.classes_)
    elif name == "function_words":
        d = attacker.model.decision_function(function_word_features(texts))
        classes = list(attacker.model.classes_)
    else:
        z = (attacker._frequencies([Counter(words(t)) for t in texts]) - attacker.mean) / attacker.std
        zn = z / (np.linalg.norm(z, axis=1, keepdims=True) + 1e-12)
        cn = attacker.centroids / (np.linalg.norm(attacker.centroids, axis=1, keepdims=True) + 1e-12)
        d = zn @ cn.T
        classes = list(attacker.authors)
    if d.ndim == 1:  # a two-author corpus: one decision value for classes_[1]
        d = np.stack([-d, d], axis=1)
    i = classes.index(author)
    return d[:, i] - np.delete(d, i, axis=1).max(axis=1)


def apply_edits(text: str, edits: Sequence[Any]) -> str:
    for e in sorted(edits, key=lambda e: -e.start):
        text = text[: e.start] + e.replacement + text[e.end :]
    return text


def rankdata(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(len(x))
    # ties get their mean rank
    _, inverse = np.unique(x, return_inverse=True)
    sums = np.bincount(inverse, weights=ranks)
    counts = np.bincount(inverse)
    return (sums / counts)[inverse]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(np.corrcoef(rankdata(a), rankdata(b))[0, 1])


@dataclass
class ChunkEdits:
    author: str
    gains: dict[str, np.ndarray]  # surrogate family (and "objective") -> gain per edit
    drops: dict[str, np.ndarray]  # attacker (and "joint") -> margin drop per edit


@dataclass
class CorpusFigures:
    corpus: str
    chunks: list[ChunkEdits] = field(default_factory=list)
    accuracy: dict[str, dict[str, float]] = field(default_factory=dict)  # picker -> attacker -> acc
    seconds: dict[str, float] = field(default_factory=dict)


def _budget(text: str) -> tuple[int, int]:
    n_words = len(text.split())
    budget = BUDGETS["strong"]
    return max(1, int(budget.max_change * n_words)), max(
        1, int(np.ceil(budget.edits_per_100_words * n_words / 100))
    )


def _greedy(
    text: str, edits: Sequence[Any], gain_of: Callable[[list[Any], list[Any]], np.ndarray]
) -> list[Any]:
    """Edits picked one at a time by the best gain, never overlapping, within the strong budget."""
    max_words, max_edits = _budget(text)
    chosen: list[Any] = []
    used = 0
    live = list(edits)
    while live and len(chosen) < max_edits:
        g = gain_of(chosen, live)
        best = int(np.argmax(g))
        if g[best] <= 1e-4:
            break
        e = live.pop(best)
        w = _changed_words(text[e.start : e.end], e.replacement)
        if used + w > max_words:
            continue
        chosen.append(e)
        used += w
        live = [x for x in live if x.end < e.start or x.start > e.end]
    return chosen


def surrogate_greedy(text: str, edits: Sequence[Any], ident: identify.Identifiability) -> str:
    """Greedy by the surrogate's objective, scored incrementally as the search scores it."""
    state = ident.state(text)
    applied: list[Any] = []

    def shifted(e: Any) -> tuple[int, int]:
        shift = sum(len(c.replacement) - (c.end - c.start) for c in applied if c.end <= e.start)
        return e.start + shift, e.end + shift

    def gain_of(chosen: list[Any], live: list[Any]) -> np.ndarray:
        for c in chosen[len(applied) :]:  # apply what was picked since the last call
            state.apply(*shifted(c), c.replacement)
            applied.append(c)
        now = state.objective()
        return np.asarray(
            [now - identify.objective(state.zs_with(state.delta(*shifted(e), e.replacement))) for e in live]
        )

    return apply_edits(text, _greedy(text, edits, gain_of))


def oracle_greedy(text: str, edits: Sequence[Any], joint: Callable[[Sequence[str]], np.ndarray]) -> str:
    """Greedy by the attackers' own joint margin (what a perfect surrogate would pick)."""

    def gain_of(chosen: list[Any], live: list[Any]) -> np.ndarray:
        now = joint([apply_edits(text, chosen)])[0]
        return now - joint([apply_edits(text, [*chosen, e]) for e in live])

    return apply_edits(text, _greedy(text, edits, gain_of))


RIVALS_AS = ("named", "pooled", "venue", "mixed")


def venue_texts(spec: str, split: Any, per_author: int = 30) -> list[str]:
    """Writing from the same corpus by its authors who are *not* candidates (none in most corpora; AAAC
    problem C at 3 authors has 2): what "other people who write where you post" would be."""
    name, _ = parse_corpus_spec(spec)
    by_author: dict[str, list[str]] = {}
    for entry in find_corpus(name, load_manifest()).get("known", []):
        author = entry["author"]
        if author in split.authors or "&" in author:
            continue
        text = (corpora_root() / entry["file"]).read_text(encoding="utf-8", errors="replace")
        by_author.setdefault(author, []).extend(chunk_text(text))
    return [chunks[i] for chunks in by_author.values() for i in _spread(len(chunks), per_author)]


def bench_surrogates(spec: str, split: Any, rivals: bool, rivals_as: str) -> dict[str, Any]:
    """The eval's surrogates; with rivals other than `named`, the rivals come as one unnamed group:
    `pooled` = the other candidates' training chunks together, `venue` = only non-candidate authors of
    the corpus, `mixed` = both (a page where the people a reader would suspect write among others)."""
    if not rivals or rivals_as == "named":
        return _surrogates(split, True, rivals)
    venue = venue_texts(spec, split) if rivals_as in ("venue", "mixed") else []
    if rivals_as in ("venue", "mixed") and not venue:
        raise SystemExit(f"{spec}: no non-candidate authors in this corpus for --rivals-as {rivals_as}")
    out = {}
    for author in split.authors:
        others = [t for other in split.authors if other != author for t in training_texts(split, other)]
        group = {"pooled": others, "venue": venue, "mixed": venue + others}[rivals_as]
        out[author] = identify.Identifiability.from_texts(
            training_texts(split, author), rival_texts={"group": group}, exclude_corpora=(split.corpus,)
        )
    return out


def candidates_surrogates(split: Any, out_dir: Path) -> dict[str, identify.Identifiability]:
    """Upper bound of the aim, for diagnosis only: each author's surrogate trained against the *other
    candidates'* training chunks (what no real surrogate can know) instead of the population."""
    out: dict[str, identify.Identifiability] = {}
    for author in split.authors:
        others = [c for c in split.train if c.author != author]
        docs = [counting.DocCounts.from_text(c.text) for c in others]
        df: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for d in docs:
            df.update(d.char3.keys())
            total.update(d.words)
        char_vocab = [g for g, n in df.most_common(12000) if n >= 2]
        word_vocab = [w for w, _ in total.most_common(3000)]
        word_vocab += [w for w in counting.function_words() if w not in set(word_vocab)]
        arrays = population.pack_population(
            docs, [c.author for c in others], char_vocab, word_vocab, [[split.corpus]] * len(docs)
        )
        path = out_dir / f"candidates-{len(out)}.npz"
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]
        own = [c.text for c in split.train if c.author == author]
        out[author] = identify.Identifiability.from_texts(own, population=path)
    return out


def eval_slice(
    spec: str, test_chunks: int, train_chunks: int
) -> tuple[Any, dict[str, Any], list[Any], dict[str, float]]:
    """The eval's split of `spec`, its three attackers trained as the eval trains them, `test_chunks`
    test chunks per author (spread over the eval's 10), and each attacker's margin spread over them
    (the units of the joint margin and of the white-box aim's z)."""
    name, n_authors = parse_corpus_spec(spec)
    split = split_corpus(find_corpus(name, load_manifest()), n_authors or 3, 10, train_chunks)
    train_texts = [c.text for c in split.train]
    attackers = {k: cls().fit(train_texts, [c.author for c in split.train]) for k, cls in ATTACKERS.items()}
    test = []
    for author in split.authors:
        own = [c for c in split.test if c.author == author]
        test.extend(own[i] for i in _spread(len(own), test_chunks))
    scale = {
        k: float(np.std(np.concatenate([margins(a, k, [c.text], c.author) for c in test]))) + 1e-9
        for k, a in attackers.items()
    }
    return split, attackers, test, scale


def accuracy(attackers: dict[str, Any], texts: Sequence[str], authors: Sequence[str]) -> dict[str, float]:
    """Each attacker's share of `texts` attributed to their true author."""
    return {
        k: float(np.mean([p == a for p, a in zip(att.predict(texts), authors, strict=True)]))
        for k, att in attackers.items()
    }


def run_corpus(
    spec: str,
    test_chunks: int,
    train_chunks: int,
    oracle: bool,
    candidates: bool = False,
    rivals: bool = False,
    rivals_as: str = "named",
) -> CorpusFigures:
    t0 = time.perf_counter()
    split, attackers, test, scale = eval_slice(spec, test_chunks, train_chunks)
    if candidates:
        tmp = Path(tempfile.mkdtemp(prefix="aim-"))
        surrogates = candidates_surrogates(split, tmp)
    else:
        surrogates = bench_surrogates(spec, split, rivals, rivals_as)
    figures = CorpusFigures(split.corpus)
    figures.seconds["train"] = time.perf_counter() - t0

    def all_margins(texts: Sequence[str], author: str) -> dict[str, np.ndarray]:
        out = {k: margins(a, k, texts, author) for k, a in attackers.items()}
        out["joint"] = sum(out[k] / scale[k] for k in attackers)  # type: ignore[assignment]
        return out

    t0 = time.perf_counter()
    finals: dict[str, list[str]] = {"original": [c.text for c in test], "surrogate": []}
    if oracle:
        finals["oracle"] = []
    for chunk in test:
        edits = propose(chunk.text, [(s, e) for s, e, _ in protected_spans(chunk.text)])
        if not edits:
            for picker in finals:
                if picker != "original":
                    finals[picker].append(chunk.text)
            continue
        ident = surrogates[chunk.author]
        state = ident.state(chunk.text)
        z0 = state.zs()
        o0 = state.objective()
        gains: dict[str, list[float]] = {f: [] for f in [*z0, "objective"]}
        for e in edits:
            zs = state.zs_with(state.delta(e.start, e.end, e.replacement))
            for f in z0:
                gains[f].append(z0[f] - zs[f])
            gains["objective"].append(o0 - identify.objective(zs))
        before = all_margins([chunk.text], chunk.author)
        after = all_margins([apply_edits(chunk.text, [e]) for e in edits], chunk.author)
        figures.chunks.append(
            ChunkEdits(
                chunk.author,
                {f: np.asarray(v) for f, v in gains.items()},
                {k: before[k][0] - after[k] for k in before},
            )
        )
        finals["surrogate"].append(surrogate_greedy(chunk.text, edits, ident))
        if oracle:
            author = chunk.author
            finals["oracle"].append(
                oracle_greedy(chunk.text, edits, lambda texts, a=author: all_margins(texts, a)["joint"])
            )
    figures.seconds["edits"] = time.perf_counter() - t0
    authors = [c.author for c in test]
    for picker, texts in finals.items():
        if len(texts) != len(test):
            continue
        figures.accuracy[picker] = accuracy(attackers, texts, authors)
    return figures


class _AttackerState:
    """The search's `identify.TextState` with the eval's attackers in place of the surrogate: z per
    family is the attacker's margin over its spread (> 0 = the chunk is attributed to its author). A
    white-box aim no product can have; diagnosis only."""

    def __init__(self, zs_of: Callable[[str], dict[str, float]], text: str):
        self.zs_of, self.text = zs_of, text
        self._zs = zs_of(text)
        self.moves: list[tuple[int, int, int]] = []  # (start, end, new length) per apply, in order

    def zs(self) -> dict[str, float]:
        return dict(self._zs)

    def delta(self, start: int, end: int, replacement: str) -> tuple[int, int, str, int]:
        return start, end, replacement, len(self.moves)

    def zs_with(self, delta: tuple[int, int, str, int]) -> dict[str, float]:
        start, end, replacement, seen = delta
        for s, e, n in self.moves[seen:]:  # the search keeps a delta until an edit lands near it
            if e <= start:
                start, end = start + n - (e - s), end + n - (e - s)
        return self.zs_of(self.text[:start] + replacement + self.text[end:])

    def objective(self, zs: dict[str, float] | None = None) -> float:
        return identify.objective(self._zs if zs is None else zs)

    def apply(self, start: int, end: int, replacement: str) -> None:
        self.text = self.text[:start] + replacement + self.text[end:]
        self.moves.append((start, end, len(replacement)))
        self._zs = self.zs_of(self.text)


@dataclass
class _AttackerReport:
    zs: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        return {"zs": self.zs}


@dataclass
class _AttackerIdent:
    zs_of: Callable[[str], dict[str, float]]
    message: str = ""
    rivals: tuple[str, ...] = ()

    def state(self, text: str) -> _AttackerState:
        return _AttackerState(self.zs_of, text)

    def score(self, text: str) -> _AttackerReport:
        return _AttackerReport(self.zs_of(text))


def guarded_run(
    spec: str,
    test_chunks: int,
    train_chunks: int,
    rivals: bool = False,
    aims: Sequence[str] = ("surrogate", "attackers"),
    relax: Sequence[str] = (),
    rivals_as: str = "named",
    llm_windows: bool = False,
    strength: str = "strong",
    by_rule: bool = False,
) -> list[str]:
    """The real `strong` (or `medium`) rewrite (every guard, the budget, both passes) aimed twice: by the eval's
    `--profile` surrogate and by the attackers themselves. If the attackers' own aim does much better
    under the same guards, the surrogate's aim is what holds the figures; if not, the guarded pool is."""
    from native_host.eval.run import EvalOptions, _rewrite_chunk
    from native_host.rewrite import guards

    for guard in relax:  # diagnosis only: which guard costs the aim what
        check = {"fluency": "check_fluency", "markers": "check_no_new_markers"}[guard]
        setattr(guards, check, lambda *args, guard=guard, **kwargs: guards.passed(guard))

    reverted: Counter[tuple[str, str]] = Counter()
    if by_rule:
        _log_reverted_rules(reverted)
    split, attackers, test, scale = eval_slice(spec, test_chunks, train_chunks)
    surrogates = bench_surrogates(spec, split, rivals, rivals_as)
    options = EvalOptions(strength=strength, profile=True, llm_windows=llm_windows)
    finals: dict[str, list[str]] = {"original": [c.text for c in test], **{a: [] for a in aims}}
    words: dict[str, list[int]] = {a: [] for a in aims}
    rejected: dict[str, Counter[str]] = {a: Counter() for a in aims}
    families: dict[str, Counter[str]] = {a: Counter() for a in aims}
    t0 = time.perf_counter()
    for i, chunk in enumerate(test):

        def zs_of(text: str, author: str = chunk.author) -> dict[str, float]:
            return {k: float(margins(a, k, [text], author)[0]) / scale[k] for k, a in attackers.items()}

        for picker, ident in (("surrogate", surrogates[chunk.author]), ("attackers", _AttackerIdent(zs_of))):
            if picker not in aims:
                continue
            result = _rewrite_chunk(chunk.text, options, ident)
            finals[picker].append(result.text)
            found = getattr(result, "search", None) or {}
            words[picker].append(int(found.get("words_changed", 0)))
            rejected[picker].update(found.get("rejected", {}))
            families[picker].update(a["family"] for a in found.get("applied", []))
        print(f"  {spec}: chunk {i + 1}/{len(test)} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    authors = [c.author for c in test]
    lines = [
        f"{split.corpus}: {len(test)} test chunks, guarded {strength} rewrite ({BUDGETS[strength]}), "
        f"{time.perf_counter() - t0:.0f} s" + (f", guards off: {', '.join(relax)}" if relax else "")
    ]
    for picker, texts in finals.items():
        acc = {k: 100 * v for k, v in accuracy(attackers, texts, authors).items()}
        changed = ""
        if picker in words:
            why = ", ".join(f"{g} {n}" for g, n in rejected[picker].most_common())
            applied = ", ".join(f"{f} {n}" for f, n in families[picker].most_common())
            changed = (
                f"  words changed per chunk {np.mean(words[picker]):.1f}; applied: {applied}; rejected: {why}"
            )
        lines.append(f"    aim {picker:<10} " + "  ".join(f"{k} {v:5.1f}" for k, v in acc.items()) + changed)
    if by_rule:
        lines.append("    reverted edits by guard and rule (both aims), the 25 commonest:")
        lines += [f"      {guard:<8} {rule:<36} {n}" for (guard, rule), n in reverted.most_common(25)]
    return lines


def _log_reverted_rules(log: Counter[tuple[str, str]]) -> None:
    """Diagnosis only: count every edit the search reverts by (guard, rule), wrapping the search's own
    fluency screen and round check (the same verdicts; nothing else changes)."""
    from native_host.rewrite import search

    screen, verify = search._Search._screen_fluency, search._Search._verify_round

    def screen_logged(self: Any, todo: list[Any]) -> set[int]:
        failed = screen(self, todo)
        log.update(("fluency", x.edit.rule) for x in todo if id(x) in failed)
        return failed

    def verify_logged(self: Any, chosen: list[Any]) -> int:
        new = {id(c) for c in chosen}
        touched = [cl for cl in self._clusters() if any(id(m) in new for m in cl[2])]  # as verify sees them
        verdicts: list[Any] = []
        real = self.checks.verify

        def captured(items: Any) -> Any:
            verdicts.extend(real(items))
            return verdicts

        self.checks.verify = captured
        try:
            failed = verify(self, chosen)
        finally:
            del self.checks.verify  # the class's method again
        for (_, _, members), verdict in zip(touched, verdicts, strict=True):
            if not verdict.ok:
                log.update((verdict.guard, m.edit.rule) for m in members if id(m) in new)
        return int(failed)

    search._Search._screen_fluency = screen_logged  # type: ignore[method-assign]
    search._Search._verify_round = verify_logged  # type: ignore[method-assign]


def summarize(fig: CorpusFigures) -> list[str]:
    lines = [
        f"{fig.corpus}: {len(fig.chunks)} test chunks, "
        + ", ".join(f"{k} {v:.1f} s" for k, v in fig.seconds.items())
    ]
    lines.append(
        f"  {'surrogate':<15} {'attacker':<15} {'rho pooled':>10} {'rho chunk':>10} {'top-10':>7} {'aim':>6}"
    )
    for family, attacker in PAIRS.items():
        g_all = np.concatenate([c.gains[family] for c in fig.chunks])
        d_all = np.concatenate([c.drops[attacker] for c in fig.chunks])
        rhos, overlaps = [], []
        aimed = best_total = 0.0
        for c in fig.chunks:
            g, d = c.gains[family], c.drops[attacker]
            rhos.append(spearman(g, d))
            k = min(TOP, len(g))
            top_g = set(np.argsort(-g, kind="stable")[:k])
            top_d = np.argsort(-d, kind="stable")[:k]
            overlaps.append(len(top_g & set(top_d)))
            aimed += float(d[list(top_g)].sum())
            best_total += float(np.clip(d[top_d], 0, None).sum())
        lines.append(
            f"  {family:<15} {attacker:<15} {spearman(g_all, d_all):>10.3f} {np.nanmean(rhos):>10.3f} "
            f"{np.mean(overlaps):>7.2f} {aimed / max(best_total, 1e-12):>6.2f}"
        )
    edits = np.mean([len(c.gains["objective"]) for c in fig.chunks])
    lines.append(f"  edits per chunk {edits:.1f}; random top-10 overlap ≈ {TOP * TOP / edits:.2f}")
    lines.append("  greedy, no guards (accuracy of the eval's attackers on these chunks):")
    for picker, acc in fig.accuracy.items():
        lines.append("    " + f"{picker:<10} " + "  ".join(f"{k} {100 * v:5.1f}" for k, v in acc.items()))
    return lines


def timing() -> list[str]:
    """Issue 10's limits: training a profile on 30 chunks ≤ 15 s, scoring a 250-word text ≤ 20 ms."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 10, 30)
    own = [c.text for c in split.train if c.author == split.authors[0]]
    t = time.perf_counter()
    population.Population.load(population.default_population_path())
    load_s = time.perf_counter() - t
    population._POPULATION_CACHE.clear()
    fitting._MODEL_CACHE.clear()
    fitting._CHAR_SUMMARY.clear()
    t = time.perf_counter()
    user = identify.Identifiability.from_texts(own)  # a user's profile: the whole population
    train_s = time.perf_counter() - t
    t = time.perf_counter()
    identify.Identifiability.from_texts(own, exclude_corpora=(split.corpus,))
    eval_s = time.perf_counter() - t
    others = {a: [c.text for c in split.train if c.author == a] for a in split.authors[1:]}
    t = time.perf_counter()
    with_rivals = identify.Identifiability.from_texts(own, rival_texts=others)
    rivals_s = time.perf_counter() - t
    text = split.test[0].text
    runs, rival_runs = [], []
    for _ in range(20):
        t = time.perf_counter()
        user.score(text)
        runs.append(time.perf_counter() - t)
        t = time.perf_counter()
        with_rivals.score(text)
        rival_runs.append(time.perf_counter() - t)
    path = population.default_population_path()
    return [
        f"population file {path.stat().st_size / 1e6:.2f} MB, loaded in {load_s:.2f} s",
        f"profile on {len(own)} chunks (cold: population load included): {train_s:.2f} s; "
        f"the eval's (corpus under test dropped): {eval_s:.2f} s",
        f"score a {len(text.split())}-word text with sentence contributions: median "
        f"{1000 * float(np.median(runs)):.1f} ms (min {1000 * min(runs):.1f})",
        f"profile with {len(others)} rivals ({sum(len(v) for v in others.values())} chunks): "
        f"{rivals_s:.2f} s; scoring the same text: median {1000 * float(np.median(rival_runs)):.1f} ms "
        f"(min {1000 * min(rival_runs):.1f})",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default="federalist", help="comma-separated, as `fantasma eval`")
    parser.add_argument("--test-chunks", type=int, default=4, help="of the eval's 10 per author")
    parser.add_argument("--train-chunks", type=int, default=30)
    parser.add_argument("--oracle", action="store_true", help="also greedy by the attackers' joint margin")
    parser.add_argument(
        "--candidates-population",
        action="store_true",
        help="diagnosis only: the surrogate contrasts you with the other candidates' training chunks",
    )
    parser.add_argument(
        "--rivals",
        action="store_true",
        help="the eval's --profile --rivals surrogate: the other candidates' training chunks as rivals "
        "(plus the nearest population authors; what a user gets from `profile add --rival`)",
    )
    parser.add_argument(
        "--rivals-as",
        choices=RIVALS_AS,
        default="named",
        help="with --rivals: each other candidate named (the eval's), or one unnamed group: pooled (the "
        "other candidates), venue (only the corpus's non-candidate authors), mixed (both)",
    )
    parser.add_argument(
        "--settings",
        default="",
        help="fitting.ProfileSettings fields to try instead of the shipped ones, e.g. nearest=6,tau=0.5",
    )
    parser.add_argument(
        "--guarded",
        action="store_true",
        help="the real strong rewrite under every guard, aimed by the surrogate and by the attackers",
    )
    parser.add_argument("--aims", default="surrogate,attackers", help="with --guarded: which aims to run")
    parser.add_argument(
        "--llm-windows",
        action="store_true",
        help="with --guarded: the model's window candidates join the pool",
    )
    parser.add_argument("--strength", default="strong", choices=("medium", "strong"), help="with --guarded")
    parser.add_argument(
        "--by-rule", action="store_true", help="with --guarded: count the reverted edits by guard and rule"
    )
    parser.add_argument(
        "--budget",
        default="",
        help="with --guarded: try another budget for --strength, MAX_CHANGE,EDITS_PER_100_WORDS (e.g. 0.08,4)",
    )
    parser.add_argument(
        "--relax", default="", help="with --guarded, diagnosis only: guards to switch off (fluency,markers)"
    )
    parser.add_argument("--timing", action="store_true", help="only time loading, training and scoring")
    parser.add_argument("--floor", type=float, default=None, help="try another identify.Z_FLOOR")
    parser.add_argument(
        "--linked-weight", type=float, default=None, help="try another identify.LINKED_WEIGHT"
    )
    args = parser.parse_args()
    if args.settings:
        fields = {}
        for item in args.settings.split(","):
            key, _, value = item.partition("=")
            fields[key.strip()] = None if value.strip() == "none" else float(value)
        for key in ("nearest", "nearest_with_rivals"):
            if key in fields:
                fields[key] = int(fields[key])  # type: ignore[arg-type]
        fitting.PROFILE = replace(fitting.PROFILE, **fields)  # type: ignore[arg-type]
    if args.budget:
        share, per_100 = (float(v) for v in args.budget.split(","))
        BUDGETS[args.strength] = Budget(share, per_100)
    if args.floor is not None:
        identify.Z_FLOOR = args.floor
    if args.linked_weight is not None:
        identify.LINKED_WEIGHT = args.linked_weight
    print(
        f"surrogate settings: {fitting.PROFILE}, objective floor {identify.Z_FLOOR}, "
        f"linked weight {identify.LINKED_WEIGHT}"
        + (f", rivals: the other candidates' training chunks ({args.rivals_as})" if args.rivals else "")
    )
    if args.timing:
        print("\n".join(timing()))
        return 0
    for spec in args.corpora.split(","):
        if args.guarded:
            aims = args.aims.split(",")
            relax = [g for g in args.relax.split(",") if g]
            lines = guarded_run(
                spec,
                args.test_chunks,
                args.train_chunks,
                args.rivals,
                aims,
                relax,
                args.rivals_as,
                args.llm_windows,
                args.strength,
                args.by_rule,
            )
            print("\n".join(lines), flush=True)
            continue
        fig = run_corpus(
            spec,
            args.test_chunks,
            args.train_chunks,
            args.oracle,
            args.candidates_population,
            args.rivals,
            args.rivals_as,
        )
        print("\n".join(summarize(fig)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

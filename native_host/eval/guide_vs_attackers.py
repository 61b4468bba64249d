"""Does the guide point at the sentences an attacker uses? (`fantasma eval --guide`)

The guide ranks a text's sentences by how much each adds to the text's identifiability. Here that
ranking meets the eval's attackers, on the held-out test chunks of each corpus (the attackers are the
eval's own, trained on the training chunks; the guide's identifiability is the eval's surrogate of
the chunk's author, trained on that author's training chunks with --profile):

- agreement: per chunk, Spearman's rho between each sentence's guide score and each attacker's drop in
  the true author's probability when that sentence alone is removed; the mean per attacker;
- removal: each attacker's accuracy after removing the k sentences the guide ranks highest, against
  removing k sentences drawn at random (RANDOM_DRAWS draws; their mean and spread);
- the diligent writer: the best alternative accepted in each of the guide's top DILIGENT_SENTENCES
  sentences, the attackers' accuracy on the result (the eval sets it beside `strong`).

Removing a sentence stands in for the writer rewriting it: it is the most a rewrite of that sentence
could take away from an attacker, not what a rewrite does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from native_host.eval.attackers import Attacker

REMOVED = (1, 2, 3)  # k: how many of a chunk's sentences are removed
RANDOM_DRAWS = 20
DILIGENT_SENTENCES = 3  # the diligent writer rewrites this many, most give-away first
GOAL_SPEARMAN = 0.5
MIN_SENTENCES = 3  # a chunk with fewer has no rank correlation worth the name

Sentence = tuple[int, int, float]  # (start, end, the guide's score), code-point offsets


def guide_ranking(ident: Any, text: str) -> list[Sentence]:
    """The guide's sentences of `text` in reading order, each with its score: its `weight`, what the
    guide ranks and shades by (guide/analysis.py: each attacker family's change when the sentence is left
    out, over its spread across the text's sentences, summed)."""
    return guide_scores(ident, text)[0]


def guide_scores(ident: Any, text: str) -> tuple[list[Sentence], list[dict[str, float]]]:
    """`guide_ranking`, and each sentence's contribution per surrogate family (the family codes are
    the attackers' names: each family imitates the attacker of its name)."""
    from native_host.guide.analysis import guide

    scored = guide(ident, text).sentences
    return [(s.start, s.end, s.weight) for s in scored], [dict(s.families) for s in scored]


def ranks(values: Sequence[float]) -> np.ndarray:
    """1-based ranks; tied values share their mean rank."""
    x = np.asarray(values, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    out = np.empty(len(x))
    out[order] = np.arange(1, len(x) + 1)
    _, tie_group = np.unique(x, return_inverse=True)
    return (np.bincount(tie_group, weights=out) / np.bincount(tie_group))[tie_group]


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rho (Pearson's r of the ranks, ties at their mean rank); None when either side is
    constant or shorter than 2, where it is undefined."""
    if len(a) != len(b):
        raise ValueError(f"spearman: {len(a)} values against {len(b)}")
    if len(a) < 2:
        return None
    ra, rb = ranks(a), ranks(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    norm = float(np.sqrt((ra @ ra) * (rb @ rb)))
    return None if norm == 0.0 else float(ra @ rb) / norm


def without(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """`text` with the sentences `spans` removed, with the space after each removed sentence (the
    next sentence moves up; a paragraph break stays)."""
    out = text
    for start, end in sorted(spans, reverse=True):
        after = end
        while after < len(out) and out[after] in " \t":
            after += 1
        out = out[:start] + out[after:]
    return out


def top_sentences(sentences: Sequence[Sentence], k: int) -> list[int]:
    """Indices of the k sentences the guide scores highest, highest first (ties: reading order)."""
    return sorted(range(len(sentences)), key=lambda i: (-sentences[i][2], i))[:k]


@dataclass
class GuideChunk:
    """One test chunk as the guide sees it."""

    author: str
    text: str
    sentences: list[Sentence]
    diligent: str | None = None  # the text after the diligent writer's replay
    families: list[dict[str, float]] | None = None  # per sentence: its contribution per family
    # the surrogate's score of the text before and after the diligent writer's replay
    scores: tuple[float, float] | None = None


@dataclass
class _Batch:
    """Every variant text of a corpus, scored by each attacker in one call."""

    texts: list[str] = field(default_factory=list)

    def add(self, text: str) -> int:
        self.texts.append(text)
        return len(self.texts) - 1


def _distribution(values: Sequence[float]) -> dict[str, float]:
    v = np.asarray(values, dtype=np.float64)
    return {"mean": float(v.mean()), "std": float(v.std()), "min": float(v.min()), "max": float(v.max())}


def evaluate_corpus(
    chunks: Sequence[GuideChunk],
    attackers: Mapping[str, Attacker],
    *,
    seed: int = 0,
    rewritten: Sequence[str] | None = None,
) -> dict:
    """The guide's figures on one corpus's test chunks (see the module docstring). `rewritten`: the
    eval's rewrites of the same chunks (at its --strength), in order, set beside the diligent
    writer's on the chunks it replayed (those with `diligent`)."""
    rng = np.random.default_rng(seed)
    batch = _Batch()
    original = [batch.add(c.text) for c in chunks]
    left_out = [[batch.add(without(c.text, [(s, e)])) for s, e, _ in c.sentences] for c in chunks]
    guided = {k: [batch.add(_remove(c, top_sentences(c.sentences, k))) for c in chunks] for k in REMOVED}
    drawn = {
        k: [
            [batch.add(_remove(c, _draw(rng, len(c.sentences), k))) for c in chunks]
            for _ in range(RANDOM_DRAWS)
        ]
        for k in REMOVED
    }
    replayed = [i for i, c in enumerate(chunks) if c.diligent is not None]
    diligent = [batch.add(chunks[i].diligent or "") for i in replayed]
    authors = [c.author for c in chunks]

    per_attacker: dict[str, dict] = {}
    for name, attacker in attackers.items():
        classes = attacker.classes()
        probabilities = attacker.probabilities(batch.texts)
        named = [classes[i] for i in np.argmax(probabilities, axis=1)]

        def accuracy(rows: Sequence[int], of: Sequence[str] = authors, predicted: list[str] = named) -> float:
            return float(np.mean([predicted[r] == a for r, a in zip(rows, of, strict=True)]))

        rhos: list[float | None] = []
        own: list[float] = []  # the same with the contribution of the family that imitates this attacker
        for c, row, rows in zip(chunks, original, left_out, strict=True):
            truth = classes.index(c.author)
            drops = probabilities[row, truth] - probabilities[rows, truth]
            enough = len(c.sentences) >= MIN_SENTENCES
            rhos.append(spearman([s[2] for s in c.sentences], drops) if enough else None)
            if enough and c.families and all(name in f for f in c.families):
                rho = spearman([f[name] for f in c.families], drops)
                own += [] if rho is None else [rho]
        measured = [r for r in rhos if r is not None]
        per_attacker[name] = {
            "spearman": {
                "mean": float(np.mean(measured)) if measured else None,
                "chunks": len(measured),
                "per_chunk": [None if r is None else round(r, 4) for r in rhos],
                # diagnosis: the family of the same name alone (what the mixed score loses)
                "own_family_mean": float(np.mean(own)) if own else None,
            },
            "original": accuracy(original),
            "removed": {
                str(k): {
                    "guided": accuracy(guided[k]),
                    "random": _distribution([accuracy(rows) for rows in drawn[k]]),
                }
                for k in REMOVED
            },
        }
        if replayed:
            of = [authors[i] for i in replayed]
            per_attacker[name]["diligent"] = {
                "chunks": len(replayed),
                "original": accuracy([original[i] for i in replayed], of),
                "diligent": accuracy(diligent, of),
                "rewritten": None
                if rewritten is None
                else attacker.accuracy([rewritten[i] for i in replayed], of),
            }
    scored = [c.scores for c in chunks if c.scores is not None]
    return {
        "chunks": len(chunks),
        "sentences_per_chunk": float(np.mean([len(c.sentences) for c in chunks])) if chunks else 0.0,
        # the surrogate's mean score before and after the diligent writer, on the chunks it replayed, and
        # on how many of them it accepted at least one alternative (the text changed)
        "diligent_score": {
            "before": float(np.mean([b for b, _ in scored])),
            "after": float(np.mean([a for _, a in scored])),
            "changed": sum(chunks[i].diligent != chunks[i].text for i in replayed),
        }
        if scored
        else None,
        "attackers": per_attacker,
    }


def _remove(chunk: GuideChunk, picked: Sequence[int]) -> str:
    return without(chunk.text, [chunk.sentences[i][:2] for i in picked])


def _draw(rng: np.random.Generator, n: int, k: int) -> list[int]:
    return [int(i) for i in rng.choice(n, size=min(k, n), replace=False)] if n else []


def summarize(corpora: Sequence[dict], top_source: str) -> dict:
    """The guide's figures over all corpora (`corpora`: each corpus report's "guide"), and whether the
    issue's goals are met: a mean rho of at least GOAL_SPEARMAN per attacker (the mean of the corpora's
    means, each corpus weighing the same, as the attacker table's mean row), and guided removal of
    the most sentences lowering every attacker's accuracy more than random removal, in every corpus."""
    names = list(corpora[0]["attackers"]) if corpora else []
    spearman_mean: dict[str, float | None] = {}
    for name in names:
        means = [c["attackers"][name]["spearman"]["mean"] for c in corpora]
        present = [m for m in means if m is not None]
        spearman_mean[name] = float(np.mean(present)) if present else None
    k = str(max(REMOVED))
    beats_random = all(
        c["attackers"][n]["removed"][k]["guided"] < c["attackers"][n]["removed"][k]["random"]["mean"]
        for c in corpora
        for n in names
    )
    return {
        "method": {
            "removed": list(REMOVED),
            "random_draws": RANDOM_DRAWS,
            "top_sentences": DILIGENT_SENTENCES,
            "min_sentences_for_spearman": MIN_SENTENCES,
            "diligent_alternatives": top_source,
            "note": "removing a sentence stands in for the writer rewriting it",
        },
        "spearman": spearman_mean,
        "goals": {
            "spearman_at_least_0_5": bool(names)
            and all(v is not None and v >= GOAL_SPEARMAN for v in spearman_mean.values()),
            f"guided_removal_of_{k}_beats_random": bool(names) and beats_random,
        },
    }


# -- the diligent writer -----------------------------------------------------------------------------

Alternative = Callable[[str, int, int, Any], str | None]


def diligent_writer(text: str, ident: Any, best_alternative: Alternative) -> tuple[str, list[Sentence]]:
    """The guide's top DILIGENT_SENTENCES sentences of `text`, and the text after the writer accepts the
    best alternative offered for each (`best_alternative(text, start, end, ident)` → the whole text
    with that sentence replaced, or None when nothing is offered). The sentences are rewritten from
    the last to the first, so the offsets of the ones still to do stay valid."""
    sentences = guide_ranking(ident, text)
    top = [sentences[i] for i in top_sentences(sentences, DILIGENT_SENTENCES)]
    current = text
    for start, end, _ in sorted(top, key=lambda s: -s[0]):
        current = best_alternative(current, start, end, ident) or current
    return current, sentences


def offered_alternative(embedder: Any, engine: Any = None) -> Alternative:
    """The best alternative the guide offers for one sentence (guide/alternatives.py: the search's
    rule edits confined to the sentence, and with `engine` the model's candidates for it, each through
    every guard): the one that lowers the text's score most."""
    from native_host.guide.alternatives import AlternativesError, sentence_alternatives

    def best(text: str, start: int, end: int, ident: Any) -> str | None:
        try:
            offered = sentence_alternatives(text, start, end, ident=ident, embedder=embedder, engine=engine)
        except AlternativesError:  # the span is no longer one sentence of the text
            return None
        return offered[0].text if offered else None

    return best


def format_lines(report: dict) -> list[str]:
    """The guide's tables, printed under the attacker table."""
    guide = report.get("guide")
    if not guide:
        return []
    lines = [
        "guide: does it point at the sentences the attackers use? (held-out chunks; removing a sentence "
        "stands in for rewriting it)",
        f"{'corpus':<22} {'attacker':<15} {'rho':>6} {'original':>9} "
        + " ".join(f"{'top ' + str(n):>7} {'random ' + str(n):>13}" for n in REMOVED),
    ]
    replays = []
    for corpus in report["corpora"]:
        figures = corpus.get("guide")
        if not figures:
            continue
        for name, a in figures["attackers"].items():
            rho = a["spearman"]["mean"]
            removed = " ".join(
                f"{a['removed'][str(n)]['guided'] * 100:6.1f}% "
                f"{a['removed'][str(n)]['random']['mean'] * 100:6.1f}±"
                f"{a['removed'][str(n)]['random']['std'] * 100:4.1f}%"
                for n in REMOVED
            )
            lines.append(
                f"{corpus['corpus']:<22} {name:<15} {'n/a' if rho is None else f'{rho:.2f}':>6} "
                f"{a['original'] * 100:8.1f}% {removed}"
            )
            if a.get("diligent"):
                d = a["diligent"]
                after = "n/a" if d["rewritten"] is None else f"{d['rewritten'] * 100:.1f}%"
                replays.append(
                    f"{corpus['corpus']:<22} {name:<15} {d['chunks']:>6} {d['original'] * 100:8.1f}% "
                    f"{d['diligent'] * 100:8.1f}% {after:>10}"
                )
    means = ", ".join(f"{n} {'n/a' if v is None else f'{v:.2f}'}" for n, v in guide["spearman"].items())
    lines.append(f"guide: mean Spearman rho per attacker (mean of the corpora's): {means}")
    own = []
    for corpus in report["corpora"]:
        for name, a in (corpus.get("guide") or {}).get("attackers", {}).items():
            if a["spearman"].get("own_family_mean") is not None:
                own.append(f"{corpus['corpus']} {name} {a['spearman']['own_family_mean']:.2f}")
    if own:
        lines.append(
            "guide: rho of the same-named family's contribution alone (diagnosis): " + ", ".join(own)
        )
    lines.append(f"guide: top k removed vs k random ({RANDOM_DRAWS} draws, mean±std)")
    if replays:
        strength = report.get("options", {}).get("strength", "")
        lines.append(
            f"diligent writer: the best alternative ({guide['method']['diligent_alternatives']}) accepted in "
            f"each of the guide's top {DILIGENT_SENTENCES} sentences"
        )
        lines.append(
            f"{'corpus':<22} {'attacker':<15} {'chunks':>6} {'original':>9} {'diligent':>9} {strength:>10}"
        )
        lines.extend(replays)
        moved = [
            f"{c['corpus']} {c['guide']['diligent_score']['before']:.2f} → {c['guide']['diligent_score']['after']:.2f}"
            for c in report["corpora"]
            if (c.get("guide") or {}).get("diligent_score")
        ]
        if moved:
            lines.append("diligent writer: the surrogate's mean score before → after: " + ", ".join(moved))
    lines.append(
        "guide goals: " + ", ".join(f"{g}={'yes' if v else 'no'}" for g, v in guide["goals"].items())
    )
    return lines

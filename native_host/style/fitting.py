"""Fitting the surrogates: their weights and calibrations, from the population and your samples.

    trained_typicality(pop) -> {family: model}                       no profile: how typical a text is
    trained_profile(pop, samples, rivals) -> {family: model}         you against the authors most like you
    profile_cache_key(pop, samples, rivals)                          what a trained profile depends on

Each profile family is one linear contrast of you against each of your nearest population authors (and
each rival), fitted by weighted ridge regression and calibrated on held-out values (CV_FOLDS folds);
`_fit_contrasts` is that step for char3 and function words, Delta's contrasts are centroids. Trained
models are kept per population and profile (a host trains one; the eval one per author).

Apart from surrogates.py: fitting runs once per profile (seconds), scoring runs on every edit the
search tries, and needs none of this.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgpack
import numpy as np

from native_host.style.counting import PUNCTUATION, DocCounts, function_words
from native_host.style.population import Population
from native_host.style.samples import Rivals
from native_host.style.surrogates import (
    Calibration,
    Char3Model,
    DeltaModel,
    FunctionWordModel,
    Mix,
    combine_contrasts,
)

MFW = 300  # as the Delta attacker
RIDGE_LAMBDA = 0.01  # per unit of (class-balanced) sample weight; chosen on Federalist train chunks
CV_FOLDS = 5
# A rival with fewer chunks than this gets no contrast of its own (one chunk says too little about a
# writer to aim at); it stays stored and counts once more are added.
MIN_RIVAL_CHUNKS = 2


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


def _fw_matrix(
    word_counts: np.ndarray, n_words: np.ndarray, punct: np.ndarray, n_chars: np.ndarray
) -> np.ndarray:
    return np.hstack(
        [word_counts / np.maximum(1, n_words)[:, None], 1000 * punct / np.maximum(1, n_chars)[:, None]]
    )


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
    (research/probes/anonymization_aim.py)."""

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


def _labels_and_authors(
    n_user: int, own_authors: np.ndarray, pop_authors: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per row of yours, your rivals' (`_own_rows`) then the population's: whether it is yours, and
    its author label."""
    n_others = len(own_authors) - n_user + len(pop_authors)
    labels = np.concatenate([np.ones(n_user, dtype=bool), np.zeros(n_others, dtype=bool)])
    return labels, np.concatenate([own_authors, pop_authors.astype(object)])


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
    labels, authors = _labels_and_authors(n_u, own_authors, pop.authors[pop_rows])
    idf = _idf((counts > 0).sum(axis=0), len(counts))
    x = _tfidf_rows(counts, idf).astype(np.float32)
    gram = (x @ x.T).astype(np.float64)  # one Gram matrix serves every contrast and every CV fold

    def fit(rows: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, float]:
        beta, b, _ = _dual_ridge(gram, rows, targets, weights, RIDGE_LAMBDA)
        s_norm = weights / weights.sum()
        xr = x[rows].astype(np.float64)
        return xr.T @ beta - (s_norm @ xr) * float(beta.sum()), b

    def held_out(train: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> np.ndarray:
        return _dual_ridge(gram, train, targets, weights, RIDGE_LAMBDA)[2]

    fitted = _fit_contrasts(
        labels, _contrasts(labels, authors, rival_keys, near, whole, settings), fit, held_out, settings.tau
    )
    return Char3Model(vocab, idf, fitted.w, fitted.b, fitted.cal, settings.tau, fitted.mix, near)


# A contrast's fit on some rows, from their targets (+1 you, -1 the other author) and class-balanced
# weights: (w, b) for FitContrast; every row's value for HeldOutValues (a contrast trained on those rows only).
FitContrast = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, float]]
HeldOutValues = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass
class _FittedContrasts:
    w: np.ndarray  # features x contrasts
    b: np.ndarray  # per contrast
    cal: Calibration
    mix: Mix | None


def _fit_contrasts(
    labels: np.ndarray, plan: _Contrasts, fit: FitContrast, held_out: HeldOutValues, tau: float
) -> _FittedContrasts:
    """What char3 and function words share: one linear contrast per row group of `plan`, and the
    calibration between your held-out values and the others' (CV_FOLDS folds)."""
    y = np.where(labels, 1.0, -1.0)
    ws, bs = [], []
    for rows in plan.rows:
        w, b = fit(rows, y[rows], _balanced(labels[rows]))
        ws.append(w)
        bs.append(b)
    held = _cv_contrasts(
        labels,
        plan.rows,
        lambda train: held_out(train, y[train], _balanced(labels[train])),
        tau,
        plan.mix,
    )
    cal = Calibration.between(held[labels], held[~labels], plan.other_weights[~labels])
    return _FittedContrasts(np.stack(ws, axis=1), np.asarray(bs), cal, plan.mix)


def _cv_contrasts(
    labels: np.ndarray,
    groups: list[np.ndarray],
    fit_values: Callable[[np.ndarray], np.ndarray],
    tau: float,
    mix: Mix | None = None,
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
    return np.asarray([combine_contrasts(v, tau, mix) for v in values])


_CHAR_SUMMARY: dict[str, dict[str, Any]] = {}
_SUMMARY_LOCK = threading.Lock()


def _population_char_summary(pop: Population) -> dict[str, Any]:
    """idf over the population and each author's mean tf-idf row (to find the authors nearest you)."""
    with _SUMMARY_LOCK:  # not _LOCK: this runs inside trained_profile, which holds it
        if pop.digest not in _CHAR_SUMMARY:
            idf = _idf((pop.char_counts > 0).sum(axis=0), len(pop.authors))
            x = _tfidf_rows(pop.char_counts, idf)
            centroids = {a: x[pop.authors == a].mean(axis=0) for a in sorted(set(pop.authors))}
            _CHAR_SUMMARY[pop.digest] = {"idf": idf, "centroids": centroids}
        return _CHAR_SUMMARY[pop.digest]


def _profile_delta(
    pop: Population, samples: Sequence[DocCounts], settings: ProfileSettings, rivals: Rivals
) -> DeltaModel:
    n_u = len(samples)
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
    labels, all_authors = _labels_and_authors(n_u, own_authors, pop.authors)
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
        loo.append(probe.value_of(user_words[i], int(n_words[i])))
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
        other_values.append(probe.value_of(freqs[r] * max(1.0, n_words[r]), int(n_words[r])))
        other_weights.append(plan.other_weights[r])
    delta.cal = Calibration.between(np.asarray(loo), np.asarray(other_values), np.asarray(other_weights))
    return delta


def _profile_function_words(
    pop: Population, samples: Sequence[DocCounts], settings: ProfileSettings, rivals: Rivals
) -> FunctionWordModel:
    n_u = len(samples)
    own, own_authors, rival_keys = _own_rows(samples, rivals)
    n_o = len(own)
    labels, authors = _labels_and_authors(n_u, own_authors, pop.authors)
    fw_words = pop.word_column(function_words())
    own_fw = np.asarray([[d.words.get(t, 0) for t in function_words()] for d in own], dtype=np.float64)
    own_punct = np.asarray([[d.punct.get(p, 0) for p in PUNCTUATION] for d in own], dtype=np.float64)
    n_words = np.concatenate([[d.n_words for d in own], pop.n_words])
    n_chars = np.concatenate([[d.n_chars for d in own], pop.n_chars])
    f = _fw_matrix(np.vstack([own_fw, fw_words]), n_words, np.vstack([own_punct, pop.punct]), n_chars)
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
    fw_lambda = RIDGE_LAMBDA * s.shape[1]  # standardized features are ~1 each, not a unit-norm row

    def fit(rows: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, float]:
        return _ridge(s[rows], targets, weights, fw_lambda)

    def held_out(train: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> np.ndarray:
        w, b = _ridge(s[train], targets, weights, fw_lambda)
        return s @ w + b

    fitted = _fit_contrasts(
        labels, _contrasts(labels, authors, rival_keys, near, whole, settings), fit, held_out, settings.tau
    )
    return FunctionWordModel(fmean, fstd, fitted.w, fitted.b, fitted.cal, settings.tau, fitted.mix)


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


# -- trained models, kept ---------------------------------------------------------------------------

_MODEL_CACHE: dict[str, dict[str, Any]] = {}
_LOCK = threading.Lock()


def trained_typicality(pop: Population) -> dict[str, Any]:
    """The typicality models of `pop` (no profile), trained once per population."""
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


def trained_profile(
    pop: Population, samples: Sequence[DocCounts], rivals: Rivals | None = None
) -> dict[str, Any]:
    """The profile models of your samples (and rivals) against `pop`, trained once per profile_cache_key."""
    key = profile_cache_key(pop, samples, rivals)
    with _LOCK:
        if key not in _MODEL_CACHE:
            if len(_MODEL_CACHE) > 16:  # the eval trains one per author; a host needs one
                _MODEL_CACHE.clear()
            _MODEL_CACHE[key] = _profile_models(pop, samples, rivals=rivals)
        return _MODEL_CACHE[key]

"""The three surrogates: what each attacker family's stand-in computes from a text's counts.

Surrogates of the three attacker families of `native_host.eval.attackers`, in numpy only:

| family | attacker | surrogate (profile) | surrogate (typicality, no profile) |
|---|---|---|---|
| `char3` | char 3-gram TF-IDF + linear SVM | weighted ridge, you vs the population, on the same features | cosine to the population centroid |
| `delta` | Cosine Delta over the 300 MFW | cosine to your centroid minus the mean over population authors | RMS z-score vs the population |
| `function_words` | function words + punctuation, logistic regression | weighted ridge, you vs the population | RMS z-score vs the population |

Each model turns a text's counts into a value and its `Calibration` turns the value into z (0 = the
decision boundary, > 0 = linked / atypical). A model keeps running sums per text (`prepare`), so an
edit is scored from its counts delta (`value_with`) without re-reading the text.

Apart from fitting.py, which finds the weights and calibrations these models are built with: scoring a
text needs only this module, and the search scores thousands of edits per text.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from native_host.style.counting import PUNCTUATION, CountsDelta, DocCounts, function_words


def _tf(c: float) -> float:
    return 1.0 + math.log(c) if c > 0 else 0.0


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
    (ProfileSettings.rival_weight). Without rivals there is one group and no Mix (`combine_contrasts`
    is then the plain soft minimum)."""

    def __init__(self, groups: Sequence[np.ndarray], weights: Sequence[float]):
        self.parts = [(np.asarray(g, dtype=np.int64), float(w)) for g, w in zip(groups, weights, strict=True)]
        self.parts = [(g, w) for g, w in self.parts if len(g) and w > 0]

    def __call__(self, values: np.ndarray, tau: float | None) -> float:
        """tau None: each group's mean instead of its soft minimum."""
        if tau is None:
            return float(sum(w * float(np.mean(values[g])) for g, w in self.parts))
        return float(sum(w * _softmin(values[g], tau) for g, w in self.parts))


def combine_contrasts(values: np.ndarray, tau: float, mix: Mix | None) -> float:
    """The contrasts' values as one: their soft minimum, or the Mix's with rivals."""
    return _softmin(values, tau) if mix is None else mix(values, tau)


def _plus_counts(cache: np.ndarray, changes: Iterable[tuple[int | None, int]]) -> np.ndarray:
    """A count vector plus the changes (index, count) the model reads (index None: a word it does not
    count); copied only when one applies, as most edits the search tries touch no counted word."""
    out = cache
    for i, dc in changes:
        if i is not None:
            if out is cache:
                out = cache.copy()
            out[i] += dc
    return out


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
        near: Sequence[str] = (),
    ):
        self.index = {g: i for i, g in enumerate(vocab)}
        self.idf, self.cal, self.tau, self.mix = idf, cal, tau, mix
        self.near = list(near)  # the population authors contrasted with you (the guide's "writers like you")
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
        return combine_contrasts(cache[:-1] / math.sqrt(q) + self.b if q > 0 else self.b, self.tau, self.mix)

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

    def value_of(self, word_counts: np.ndarray, n_words: int) -> float:
        """The value of a text with these MFW counts and this many words (fitting scores its
        held-out chunks with it)."""
        z = (word_counts / max(1, n_words) - self.mean) / self.std
        if self.user is None or self.others is None:
            return float(np.sqrt(np.mean(z * z)))
        zn = z / (np.linalg.norm(z) + 1e-12)
        near = self.others @ zn
        if self.tau is None:  # the mean over the given authors (per group with rivals)
            other = float(np.mean(near)) if self.mix is None else self.mix(near, None)
        else:  # a smooth maximum
            other = -combine_contrasts(-near, self.tau, self.mix)
        return float(zn @ self.user) - other

    def value(self, counts: DocCounts, cache: np.ndarray) -> float:
        return self.value_of(cache, counts.n_words)

    def _moved(self, cache: np.ndarray, delta: CountsDelta) -> np.ndarray:
        return _plus_counts(cache, ((self.index.get(w), dc) for w, dc in delta.words.items()))

    def value_with(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> float:
        return self.value_of(self._moved(cache, delta), counts.n_words + delta.n_words)

    def update(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> np.ndarray:
        return self._moved(cache, delta)


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
        return combine_contrasts(s @ self.w + self.b, self.tau, self.mix)

    def value(self, counts: DocCounts, cache: np.ndarray) -> float:
        return self._value(cache, counts.n_words, counts.n_chars)

    def _moved(self, cache: np.ndarray, delta: CountsDelta) -> np.ndarray:
        changes = list(delta.words.items()) + [(k, v) for k, v in delta.punct.items()]
        return _plus_counts(
            cache,
            (
                (self.index.get(key) if key not in self.p_index else self.p_index[key], dc)
                for key, dc in changes
            ),
        )

    def value_with(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> float:
        return self._value(
            self._moved(cache, delta), counts.n_words + delta.n_words, counts.n_chars + delta.n_chars
        )

    def update(self, counts: DocCounts, cache: np.ndarray, delta: CountsDelta) -> np.ndarray:
        return self._moved(cache, delta)

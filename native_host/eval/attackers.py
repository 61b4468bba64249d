"""Four authorship attackers, trained on original chunks, asked to name the author of test chunks.

- `char3`: character 3-gram TF-IDF (sublinear) + a linear SVM — the strongest simple baseline in
  authorship attribution; it sees spelling, punctuation and morphology at once.
- `delta`: Cosine Delta (Smith & Aldridge 2011) over the most frequent words: z-scored relative
  frequencies, nearest author centroid by cosine.
- `function_words`: relative frequencies of English function words and punctuation marks, scaled,
  + logistic regression.
- `writeprints`: Writeprints-Static (Brennan, Afroz & Greenstadt 2012; writeprints.py), scaled, + a
  linear SVM: the attacker people who ask for proof against stylometry name.

scikit-learn is an eval-only dependency (the `eval` extra); this module imports it lazily.

`mask_kept(text)`: the text an attacker reads when the calibration asks what it finds in *how* a writer
writes: every word the writer is told to keep (names, number words, subject words, the people the text
is about; style/reasons.py `keep_words`) written "Xx".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from native_host.eval import writeprints

# One tokenizer, word list and set of marks for the attackers and the surrogates that imitate them.
from native_host.style.counting import PUNCTUATION, function_words, words

MFW = 300  # most frequent words used by Cosine Delta
KEPT_MASK = "Xx"  # what a kept word becomes in mask_kept
_WORD = re.compile(r"[^\W\d_][\w']*")


def mask_kept(text: str) -> str:
    """`text` with every word the writer keeps written KEPT_MASK (see the module's docstring)."""
    from native_host.style.reasons import keep_words

    keep = keep_words(text)
    return _WORD.sub(lambda m: KEPT_MASK if m.group(0).lower() in keep else m.group(0), text)


class Attacker:
    name = ""

    def fit(self, texts: Sequence[str], authors: Sequence[str]) -> Attacker:
        raise NotImplementedError

    def predict(self, texts: Sequence[str]) -> list[str]:
        raise NotImplementedError

    def accuracy(self, texts: Sequence[str], authors: Sequence[str]) -> float:
        predicted = self.predict(texts)
        return float(np.mean([p == a for p, a in zip(predicted, authors, strict=True)])) if authors else 0.0

    def classes(self) -> list[str]:
        """The candidate authors, in the order of `decisions`' columns."""
        raise NotImplementedError

    def decisions(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, one decision value per candidate (`classes`); the highest is `predict`'s."""
        raise NotImplementedError

    def probabilities(self, texts: Sequence[str]) -> np.ndarray:
        """The softmax of `decisions` (the logistic regression's own probabilities; for the SVM and
        Cosine Delta a share of their decision values): how sure the attacker is of each candidate,
        for measuring how much a change of the text moves it (eval/guide_vs_attackers.py)."""
        d = self.decisions(texts)
        e = np.exp(d - d.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


class CharNgramAttacker(Attacker):
    name = "char3"

    def fit(self, texts, authors):
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.svm import LinearSVC

        self.vectorizer = TfidfVectorizer(analyzer="char", ngram_range=(3, 3), sublinear_tf=True, min_df=2)
        self.model = LinearSVC(C=1.0).fit(self.vectorizer.fit_transform(texts), list(authors))
        return self

    def predict(self, texts):
        return list(self.model.predict(self.vectorizer.transform(texts)))

    def classes(self):
        return [str(c) for c in self.model.classes_]

    def decisions(self, texts):
        return _one_column_per_class(self.model.decision_function(self.vectorizer.transform(texts)))


class CosineDeltaAttacker(Attacker):
    name = "delta"

    def fit(self, texts, authors):
        counts = [Counter(words(t)) for t in texts]
        total: Counter[str] = Counter()
        for c in counts:
            total.update(c)
        self.vocab = [w for w, _ in total.most_common(MFW)]
        x = self._frequencies(counts)
        self.mean = x.mean(axis=0)
        self.std = x.std(axis=0) + 1e-9
        z = (x - self.mean) / self.std
        self.authors = sorted(set(authors))
        labels = np.array(list(authors))
        self.centroids = np.stack([z[labels == a].mean(axis=0) for a in self.authors])
        return self

    def _frequencies(self, counts: list[Counter]) -> np.ndarray:
        rows = []
        for c in counts:
            n = max(1, sum(c.values()))
            rows.append([c[w] / n for w in self.vocab])
        return np.asarray(rows, dtype=np.float64)

    def predict(self, texts):
        return [self.authors[i] for i in np.argmax(self.decisions(texts), axis=1)]

    def classes(self):
        return list(self.authors)

    def decisions(self, texts):
        """The cosine of each text's z-scores with each author's centroid."""
        z = (self._frequencies([Counter(words(t)) for t in texts]) - self.mean) / self.std
        zn = z / (np.linalg.norm(z, axis=1, keepdims=True) + 1e-12)
        cn = self.centroids / (np.linalg.norm(self.centroids, axis=1, keepdims=True) + 1e-12)
        return zn @ cn.T


def function_word_features(texts: Sequence[str]) -> np.ndarray:
    vocab = function_words()
    rows = []
    for text in texts:
        tokens = Counter(words(text))
        n_words = max(1, sum(tokens.values()))
        n_chars = max(1, len(text))
        rows.append(
            [tokens[w] / n_words for w in vocab] + [1000 * text.count(p) / n_chars for p in PUNCTUATION]
        )
    return np.asarray(rows, dtype=np.float64)


class FunctionWordAttacker(Attacker):
    name = "function_words"

    def fit(self, texts, authors):
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        self.model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.5))
        self.model.fit(function_word_features(texts), list(authors))
        return self

    def predict(self, texts):
        return list(self.model.predict(function_word_features(texts)))

    def classes(self):
        return [str(c) for c in self.model.classes_]

    def decisions(self, texts):
        return _one_column_per_class(self.model.decision_function(function_word_features(texts)))


class WriteprintsAttacker(Attacker):
    name = "writeprints"

    def fit(self, texts, authors):
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import LinearSVC

        self.model = make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=10000))
        self.model.fit(writeprints.features(texts), list(authors))
        return self

    def predict(self, texts):
        return list(self.model.predict(writeprints.features(texts)))

    def classes(self):
        return [str(c) for c in self.model.classes_]

    def decisions(self, texts):
        return _one_column_per_class(self.model.decision_function(writeprints.features(texts)))


def _one_column_per_class(values: np.ndarray) -> np.ndarray:
    """scikit-learn gives two candidates one decision value (for the second); as two columns, 0 for
    the first, its softmax is the logistic regression's probability."""
    values = np.asarray(values, dtype=np.float64)
    return np.stack([np.zeros(len(values)), values], axis=1) if values.ndim == 1 else values


ATTACKERS: dict[str, type[Attacker]] = {
    a.name: a for a in (CharNgramAttacker, CosineDeltaAttacker, FunctionWordAttacker, WriteprintsAttacker)
}

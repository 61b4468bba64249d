"""Writeprints-Static features (Brennan, Afroz & Greenstadt 2012, "Adversarial stylometry"), the feature
set people who ask for proof against stylometry name; the eval's `writeprints` attacker puts a linear SVM
on them (attackers.py).

    features(texts) -> np.ndarray       one row per text, one column per FEATURE_NAMES entry
    FEATURE_NAMES                        the column names, as the writeprints-static package names them

The extraction is the `writeprints-static` 0.0.2 package's (its word lists: data/writeprints_static.json),
feature for feature and in its order, with two differences, both because the package needs spaCy 3.0.8
and its `en_core_web_sm` model, which neither install here (numpy < 2; the model is not on PyPI):
- words are this module's tokens (`\\w+` runs joined by inner apostrophes, lowercased), not spaCy's
  (which splits "don't" into "do" + "n't"); everything counted from the words follows from them;
- the 17 part-of-speech frequencies are left out (they need a trained tagger).
tests/eval/test_writeprints.py runs the package's own extractor functions (installed for its files:
requirements/data.txt) on the same texts and words and checks every other column is equal.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Sequence
from functools import cache
from importlib import resources

import numpy as np

_WORD = re.compile(r"\w+(?:'\w+)*")
SHORT_WORD = 4  # a word shorter than this is "short"


@cache
def table() -> dict[str, list[str]]:
    text = resources.files("native_host.eval").joinpath("data", "writeprints_static.json").read_text("utf-8")
    return {k: v for k, v in json.loads(text).items() if not k.startswith("_")}


@cache
def _function_word_patterns() -> tuple[re.Pattern[str], ...]:
    # the package's \b<word>\b over the lowercased text, one pattern per word (words overlap: "it", "it's")
    return tuple(re.compile(r"\b" + word + r"\b") for word in table()["function_words"])


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def feature_names() -> list[str]:
    t = table()
    return (
        ["total_words", "avg_word_length", "short_words", "total_chars", "digits_ratio", "uppercase_ratio"]
        + [f"special_char_{c}" for c in t["special_characters"]]
        + [f"letter_{c}" for c in string.ascii_lowercase]
        + [f"digit_{d}" for d in string.digits]
        + [f"bigram_{b}" for b in t["letter_bigrams"]]
        + [f"trigram_{g}" for g in t["letter_trigrams"]]
        + ["hapax_legomena_ratio", "dis_legomena_ratio"]
        + [f"function_word_{w}" for w in t["function_words"]]
        + [f"punctuation_{p}" for p in t["punctuation"]]
    )


def _grams(tokens: Sequence[str], n: int) -> Counter[str]:
    return Counter(w[i : i + n] for w in tokens for i in range(len(w) - n + 1))


def text_features(text: str, tokens: Sequence[str] | None = None) -> list[float]:
    """One text's row (`tokens`: its words, by default `words(text)`)."""
    t = table()
    tokens = words(text) if tokens is None else tokens
    n_words = max(1, len(tokens))
    n_chars = max(1, len(text.rstrip()))
    counts = Counter(tokens)
    types = max(1, len(counts))
    bigrams, trigrams = _grams(tokens, 2), _grams(tokens, 3)
    lower = text.lower()
    return (
        [
            float(len(tokens)),
            sum(len(w) for w in tokens) / n_words,
            float(sum(1 for w in tokens if len(w) < SHORT_WORD)),
            float(len(text.rstrip())),
            sum(c.isdigit() for c in text) / n_chars,
            sum(c.isupper() for c in text) / n_chars,
        ]
        + [float(text.count(c)) for c in t["special_characters"]]
        # the package counts lower-case letters only (its "case insensitive" reads the raw text)
        + [float(text.count(c)) for c in string.ascii_lowercase]
        + [float(text.count(d)) for d in string.digits]
        + [float(bigrams[b]) for b in t["letter_bigrams"]]
        + [float(trigrams[g]) for g in t["letter_trigrams"]]
        + [
            sum(1 for w in tokens if counts[w] == 1) / types,
            sum(1 for w in tokens if counts[w] == 2) / (2 * types),
        ]
        + [float(len(p.findall(lower))) for p in _function_word_patterns()]
        + [float(text.count(p)) for p in t["punctuation"]]
    )


def features(texts: Sequence[str]) -> np.ndarray:
    return np.asarray([text_features(t) for t in texts], dtype=np.float64).reshape(len(texts), -1)

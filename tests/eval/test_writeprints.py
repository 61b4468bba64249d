"""The eval's Writeprints-Static extraction against the writeprints-static package's own extractor
functions (installed for its files, requirements/data.txt): every column equal on the same texts and
words. The package's entry point needs spaCy and a model that do not install here, so its two feature
modules are loaded from their files; the part-of-speech columns are the one family it has and we do not."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from native_host.eval import writeprints
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus

EDGES = [
    "I don't think it's the 3rd time -- they'd said 1,250 dollars @ 5% & more: {a|b} [c] <d> ~e^f*g_h=i+j\\k/l#m$!",
    "ALL CAPS HERE?! \"Quoted,\" she said; 'single' too. Y'all won't, can't, shouldn't've... 0123456789",
    "The the the and and a. Hapax dis dis legomena legomena legomena.   \n\n",
]


def _package_module(name: str) -> ModuleType:
    spec = importlib.util.find_spec("writeprints_static")
    assert spec is not None and spec.submodule_search_locations, (
        "writeprints-static is not installed: `make install` installs requirements/data.txt"
    )
    path = Path(next(iter(spec.submodule_search_locations))) / f"{name}.py"
    module_spec = importlib.util.spec_from_file_location(f"_writeprints_static_{name}", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def _package_features(texts: list[str]) -> tuple[np.ndarray, list[str]]:
    """The package's WriteprintsStatic.transform, column for column, without its spaCy steps: the words
    are ours, the part-of-speech columns left out."""
    lex, syn = _package_module("lexical_features"), _package_module("syntactic_features")
    tokens = [writeprints.words(t) for t in texts]
    parts = [
        lex.total_words_extractor(tokens),
        lex.avg_word_length_extractor(tokens),
        lex.short_words_extractor(tokens),
        lex.total_chars_extractor(texts),
        lex.digits_ratio_extractor(texts),
        lex.uppercase_ratio_extractor(texts),
        lex.special_char_extractor(texts),
        lex.letter_extractor(texts),
        lex.digit_extractor(texts),
        lex.bigram_extractor(tokens),
        lex.trigram_extractor(tokens),
        lex.hapax_legomena_ratio_extractor(tokens),
        lex.dis_legomena_ratio_extractor(tokens),
        syn.function_word_extractor(texts),
        syn.punctuation_extractor(texts),
    ]
    values = np.concatenate([np.asarray(v, dtype=np.float64) for v, _ in parts], axis=1)
    return values, [name for _, labels in parts for name in labels]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    split = split_corpus(find_corpus("brontes", load_manifest()), 3, 2, 2)
    return [c.text for c in split.test] + EDGES


def test_every_column_equals_the_package(texts):
    expected, labels = _package_features(texts)
    ours = writeprints.features(texts)
    assert ours.shape == expected.shape == (len(texts), len(writeprints.feature_names()))
    for j, label in enumerate(labels):
        np.testing.assert_allclose(ours[:, j], expected[:, j], rtol=1e-12, err_msg=label)
    # the lists are the package's, in its order
    syn = _package_module("syntactic_features")
    assert writeprints.table()["function_words"] == syn.FUNCTION_WORDS
    assert len(labels) == len(writeprints.feature_names()) == 535  # 552 less the 17 part-of-speech columns


def test_the_attacker_names_authors_from_these_features():
    from native_host.eval.attackers import ATTACKERS

    split = split_corpus(find_corpus("brontes", load_manifest()), 3, 4, 12)
    attacker = ATTACKERS["writeprints"]().fit([c.text for c in split.train], [c.author for c in split.train])
    assert attacker.accuracy([c.text for c in split.test], [c.author for c in split.test]) >= 0.5

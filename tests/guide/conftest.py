"""What the guide's tests share: Hamilton's Federalist profile and the held-out test texts."""

from __future__ import annotations

import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.style.identify import Identifiability


@pytest.fixture(scope="module")
def hamilton() -> tuple[Identifiability, list[str]]:
    """Hamilton's profile (his training chunks; the population without the Federalist) and the test
    chunks of a 3-author split."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 4, 30)
    ident = Identifiability.from_texts(
        [c.text for c in split.train if c.author == "Hamilton"], exclude_corpora=(split.corpus,)
    )
    return ident, [c.text for c in split.test]


@pytest.fixture(scope="module")
def hamilton_named() -> tuple[Identifiability, list[str]]:
    """Hamilton's profile holding the split's other two authors as rivals (people a reader might suspect):
    the meter that may say "unlikely" (style/linkability.py says_unlikely); the same test chunks."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 4, 30)
    others = {a: [c.text for c in split.train if c.author == a] for a in split.authors if a != "Hamilton"}
    ident = Identifiability.from_texts(
        [c.text for c in split.train if c.author == "Hamilton"],
        rival_texts=others,
        exclude_corpora=(split.corpus,),
    )
    return ident, [c.text for c in split.test]

"""The guide's cache (native_host/guide/analysis.py `GuideCache`) gives what a fresh guide gives.

The cache keeps each sentence's counts deltas under a key of the sentence and what a delta reads around
it. Texts that differ only in the mark before the next sentence, in double spaces or in blank lines are
guided one after the other through one cache (as the composer asks while the writer types), and each
reply must be exactly the reply of a fresh cache. A sentence's reasons are kept per sentence on purpose
(docs/anonymization.md, "Incremental": a word typed elsewhere does not reread them), so they are
compared with that memo emptied: what must not go stale are the counts the cache keeps.
"""

from __future__ import annotations

import pytest

from native_host.guide.analysis import GuideCache, guide
from native_host.style.counting import PUNCTUATION
from native_host.style.identify import Identifiability

GAPS = (" ", "  ", "\n", "\n\n", " \n\n", "\t", "")
FOLLOWING = ("The", "And", "the")


def texts() -> list[str]:
    out = []
    for mark in PUNCTUATION:
        for gap in GAPS:
            for word in FOLLOWING:
                out.append(
                    f"We met at the station just after nine{mark}{gap}{word} stalls were busy, and the fish "
                    f"looked fresh{mark}{gap}My sister bought bread.  Then we went home.\n\n{word} end."
                )
    return out


@pytest.fixture(scope="module")
def ident() -> Identifiability:
    return Identifiability.load(None)  # typicality: the shipped population, no samples needed


def fresh(ident: Identifiability, text: str) -> dict:
    return guide(ident, text, GuideCache()).to_json()


def test_cached_replies_are_the_fresh_ones_whatever_the_marks_and_spaces_between_sentences(ident):
    cache = GuideCache()
    all_texts = texts()
    for text in all_texts:  # every text once through the one cache: keys that should differ collide here
        guide(ident, text, cache)
    assert cache.hits > 0  # the cache was used across texts
    stale = []
    for text in all_texts:
        for parts in cache.parts.values():
            parts.reasons.clear()
        if guide(ident, text, cache).to_json() != fresh(ident, text):
            stale.append(text)
    assert not stale, (
        f"{len(stale)} of {len(all_texts)} texts got stale counts from the cache, e.g. {stale[:3]}"
    )


def test_whitespace_the_counts_read_alike_shares_a_key(ident):
    """ "x.  Y" reads like "x. Y" (a run of spaces is one space to the char analyzer): one count, not two."""
    cache = GuideCache()
    guide(ident, "We met at nine. The stalls were busy.", cache)
    misses = cache.misses
    text = "We met at nine.  The stalls were busy."
    assert guide(ident, text, cache).to_json()["sentences"] == fresh(ident, text)["sentences"]
    assert cache.misses == misses

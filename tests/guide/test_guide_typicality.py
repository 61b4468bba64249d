"""Without samples (typicality) the guide still names the sentences that make a text stand out
(native_host/guide/analysis.py): a shorter text stands further from other writers, so removing any
sentence raised the figure for 45 of the eval's 90 test chunks and no sentence was ranked."""

from __future__ import annotations

import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.guide.analysis import guide
from native_host.style.identify import Identifiability

ODD = "OMG!!! it was sooo amazing lol 😍😍 cant wait 2 go back!!!"
PLAIN = (
    "We met at the station after nine and walked to the market. The stalls were busy and the fish looked "
    "fresh. {odd} My sister bought bread and apples for the train."
)


@pytest.fixture(scope="module")
def typicality() -> Identifiability:
    return Identifiability.load(None, exclude_corpora=("aaac_problem_c",))


def test_every_chunk_of_several_sentences_has_sentences_ranked(typicality) -> None:
    split = split_corpus(find_corpus("problemC", load_manifest()), 5, 6, 30, held_out="documents")
    for chunk in split.test:
        report = guide(typicality, chunk.text)
        assert len(report.sentences) > 1
        assert report.top, chunk.text[:80]
        shares = [s.share for s in report.sentences]
        assert sum(shares) == pytest.approx(1.0, abs=2e-3)
        assert all(report.sentences[i].weight > 0 for i in report.top)


def test_the_sentence_that_stands_out_ranks_first(typicality) -> None:
    text = PLAIN.format(odd=ODD)
    report = guide(typicality, text)
    first = report.sentences[report.top[0]]
    assert ODD.startswith(text[first.start : first.end][:6]) or text[first.start : first.end] in ODD
    assert first.reasons and "exclamation marks" in first.reasons[0]


def test_a_text_of_one_sentence_is_read_as_it_is(typicality) -> None:
    one = "It was sooo amazing lol 😍😍 cant wait 2 go back!!!"
    report = guide(typicality, one)  # nothing to read it against: its removal as it is
    assert len(report.sentences) == 1 and report.top == [0] and report.sentences[0].share == 1.0

"""What the guide ranks by (native_host/guide/analysis.py `gain`): what rewording a sentence can take off
the meter, i.e. the score minus the score of the text with the sentence reduced to the words the writer
keeps. In the writer studies rewrites realised about all of it, and the sentence of most gain lowered the
meter most; a sentence that gives the writer away through the names and subject they keep is no use to
rewrite."""

from __future__ import annotations

import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.guide.analysis import MIN_GAIN, guide
from native_host.style import linkability, reasons
from native_host.style.identify import Identifiability


@pytest.fixture(scope="module")
def hamilton() -> tuple[Identifiability, list[str]]:
    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 4, 30)
    ident = Identifiability.from_texts(
        [c.text for c in split.train if c.author == "Hamilton"], exclude_corpora=(split.corpus,)
    )
    return ident, [c.text for c in split.test]


def test_kept_of_is_the_names_numbers_subject_and_pronouns_in_order() -> None:
    text = (
        "In 1862 Lincoln wrote to me about the oil, and about the oil wells of Pennsylvania, upon which "
        "he ought to have been silent."
    )
    kept = reasons.kept_of(text, reasons.keep_words(text)).split()
    assert kept[:5] == ["1862", "Lincoln", "me", "oil", "oil"] and "Pennsylvania" in kept and "he" in kept
    assert not {"upon", "which", "ought", "about", "the", "to"} & set(kept), kept


def test_gain_is_the_score_minus_the_score_of_the_sentence_reduced_to_what_is_kept(hamilton) -> None:
    ident, texts = hamilton
    seen = 0
    for text in texts[:6]:
        report = guide(ident, text)
        keep = reasons.keep_words(text)
        for s in report.sentences:
            reduced = text[: s.start] + reasons.kept_of(text[s.start : s.end], keep) + text[s.end :]
            fresh = report.score - ident.score(reduced, sentences=False).score
            assert s.gain == pytest.approx(fresh, abs=1e-6), text[s.start : s.end]
            unlikely = linkability.level(report.score - s.gain) == "unlikely"
            assert s.enough == (report.level != "unlikely" and unlikely)
            seen += 1
        # the ranking: the sentences of most gain (of at least MIN_GAIN), most first; shares by gain
        ranked = sorted(
            (i for i, s in enumerate(report.sentences) if s.gain >= MIN_GAIN),
            key=lambda i: -report.sentences[i].gain,
        )
        assert report.top == ranked[:3]
        total = sum(report.sentences[i].gain for i in ranked)
        for i, s in enumerate(report.sentences):
            assert s.share == pytest.approx(s.gain / total if i in ranked else 0.0, abs=1e-9)
    assert seen > 20


def test_a_sentence_that_gives_you_away_only_through_what_you_keep_has_nothing_to_gain(hamilton) -> None:
    """Two texts alike but for one sentence: written in the writer's own habits, it gains; reduced to
    its kept words already (nothing left to reword), it gains nothing, whatever its contribution."""
    ident, texts = hamilton
    text = texts[0]
    report = guide(ident, text)
    best = report.sentences[report.top[0]]
    keep = reasons.keep_words(text)
    bare = reasons.kept_of(text[best.start : best.end], keep) + "."  # still a sentence of its own
    stripped = text[: best.start] + bare + text[best.end :]
    again = guide(ident, stripped)
    same = next(s for s in again.sentences if s.start == best.start)
    assert stripped[same.start : same.end] == bare
    assert best.gain >= MIN_GAIN
    assert abs(same.gain) < MIN_GAIN and same.share == 0.0, (same, bare)

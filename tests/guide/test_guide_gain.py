"""A sentence's `gain` (native_host/guide/analysis.py): what rewording it can take off the meter, i.e. the
score minus the score of the text with the sentence reduced to the words the writer keeps; `enough`
where that alone reaches "unlikely"; and "mostly the subject itself" only where a rewording gains little."""

from __future__ import annotations

import pytest

from native_host import wording
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.guide.analysis import MIN_REASON_SHARE, SUBJECT_SHARE, guide
from native_host.style import linkability, reasons
from native_host.style.identify import Identifiability


def test_kept_of_is_the_names_numbers_subject_and_pronouns_in_order() -> None:
    text = (
        "In 1862 Lincoln wrote to me about the oil, and about the oil wells of Pennsylvania, upon which "
        "he ought to have been silent."
    )
    kept = reasons.kept_of(text, reasons.keep_words(text)).split()
    assert kept[:5] == ["1862", "Lincoln", "me", "oil", "oil"] and "Pennsylvania" in kept and "he" in kept
    assert not {"upon", "which", "ought", "about", "the", "to"} & set(kept), kept


@pytest.mark.parametrize("meter", ["hamilton", "hamilton_named"])
def test_gain_is_the_score_minus_the_score_of_the_sentence_reduced_to_what_is_kept(meter, request) -> None:
    """`enough` where the gain alone reaches "unlikely": never for a meter that knows no one a reader might
    suspect (it says "possibly" at most), so only with rivals."""
    ident, texts = request.getfixturevalue(meter)
    says = linkability.says_unlikely(ident.mode, ident.rivals)
    assert says == (meter == "hamilton_named")
    seen = enough = 0
    for text in texts[:6]:
        report = guide(ident, text)
        keep = reasons.keep_words(text)
        for i, s in enumerate(report.sentences):
            reduced = text[: s.start] + reasons.kept_of(text[s.start : s.end], keep) + text[s.end :]
            fresh = report.score - ident.score(reduced, sentences=False).score
            assert s.gain == pytest.approx(fresh, abs=1e-6), text[s.start : s.end]
            unlikely = linkability.level(report.score - s.gain, says) == "unlikely"
            named = i in report.top  # only a sentence the guide names to reword
            assert s.enough == (
                report.level != "unlikely" and s.share >= MIN_REASON_SHARE and unlikely and named
            )
            seen += 1
            enough += s.enough
    assert seen > 20
    assert says or enough == 0


def test_a_sentence_that_gives_you_away_only_through_what_you_keep_has_nothing_to_gain(hamilton) -> None:
    """Two texts alike but for one sentence: written in the writer's own habits, it gains; reduced to
    its kept words already (nothing left to reword), it gains nothing, whatever its contribution."""
    ident, texts = hamilton
    text = texts[0]
    report = guide(ident, text)
    best = max(report.sentences, key=lambda s: s.gain)
    keep = reasons.keep_words(text)
    bare = reasons.kept_of(text[best.start : best.end], keep) + "."  # still a sentence of its own
    stripped = text[: best.start] + bare + text[best.end :]
    again = guide(ident, stripped)
    same = next(s for s in again.sentences if s.start == best.start)
    assert stripped[same.start : same.end] == bare
    assert best.gain >= 0.005  # a sentence's give-away the meter shows (two decimals)
    assert abs(same.gain) < 0.005, (same, bare)


SUBJECT_SAID = wording.REASON_SUBJECT.split("{")[0]  # the subject reason, whatever kinds of word it names


def test_the_subject_is_said_to_be_what_is_left_only_where_rewording_gains_little() -> None:
    """'mostly the subject itself … rewording will not hide that' never under a sentence the guide names
    to reword: only where its gain is under half its contribution and its share is small. A sailor's
    memoir (AAAC problem C, the writer study's first author), full of ships and their names."""
    split = split_corpus(find_corpus("aaac_problem_c", load_manifest()), 5, 6, 30, held_out="documents")
    author = split.authors[0]
    ident = Identifiability.from_texts(
        [c.text for c in split.train if c.author == author], exclude_corpora=(split.corpus,)
    )
    texts = [c.text for c in split.test if c.author == author]
    said = 0
    for text in texts:
        report = guide(ident, text)
        for i, s in enumerate(report.sentences):
            if any(r.startswith(SUBJECT_SAID) for r in s.reasons):
                said += 1
                assert i not in report.top or s.share < SUBJECT_SHARE, s
                assert s.gain < s.contribution / 2 and s.share < SUBJECT_SHARE, s
    assert said, "no sentence of these texts is mostly its subject: the check read nothing"

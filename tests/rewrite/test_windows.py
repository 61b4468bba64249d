"""Cutting text into sentences/windows and putting it back loses nothing and keeps the layout."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from native_host.rewrite.windows import group_windows, split_pieces

TEXT = """Hi there!  I think Mr. Smith is right. See https://x.com/a.b?c=1. OK?

Second para here... yes.
Line two.
```
code. Here
```
end"""


def test_pieces_cover_the_text_exactly():
    pieces = split_pieces(TEXT)
    assert "".join(p.text for p in pieces) == TEXT
    for p in pieces:
        assert TEXT[p.start : p.start + len(p.text)] == p.text
    sentences = [p.text for p in pieces if p.rewritable]
    assert sentences == [
        "Hi there!",
        "I think Mr. Smith is right.",
        "See https://x.com/a.b?c=1.",
        "OK?",
        "Second para here... yes.",
        "Line two.",
        "end",
    ]
    assert not any("code." in s for s in sentences)  # fenced code is never rewritable


def test_windows_never_cross_line_breaks_and_respect_the_word_cap():
    pieces = split_pieces(TEXT)
    windows = group_windows(pieces, set(range(len(pieces))), max_words=8)
    assert [w.text for w in windows] == [
        "Hi there!  I think Mr. Smith is right.",
        "See https://x.com/a.b?c=1. OK?",
        "Second para here... yes.",
        "Line two.",
        "end",
    ]
    for w in windows:
        assert "\n" not in w.text


def test_unselected_sentences_split_windows():
    pieces = split_pieces("One here. Two here. Three here.")
    rewritable = [i for i, p in enumerate(pieces) if p.rewritable]
    windows = group_windows(pieces, {rewritable[0], rewritable[2]})
    assert [w.text for w in windows] == ["One here.", "Three here."]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?\n`A1 ")), max_size=200))
def test_any_text_round_trips(text):
    pieces = split_pieces(text)
    assert "".join(p.text for p in pieces) == text
    windows = group_windows(pieces, set(range(len(pieces))))
    for w in windows:
        assert w.text == "".join(p.text for p in pieces[w.first : w.last + 1])


MEDIUM_TEXT = (
    "To be fair, I reckon the new parking policy is a bit of a shambles, and nobody read the survey. "
    "Honestly, the whole thing was decided in one meeting that ran for ten minutes. "
    "The car park behind the library used to be free after six, which suited the evening classes. "
    "I have asked twice for the figures behind the change and have had no answer at all. "
    "If the council wants people in town in the evenings, it should not make it harder for them. "
    "Anyway, I will raise it again at the residents' meeting on the fourth."
)


def test_medium_windows_a_restructuring_model_only_on_the_sentences_that_matter_most():
    from native_host.rewrite.llm_windows import MEDIUM_WINDOW_SHARE, select_pieces
    from native_host.style.identify import Identifiability

    pieces = split_pieces(MEDIUM_TEXT)
    every = {i for i, p in enumerate(pieces) if p.rewritable}
    contributions = Identifiability.load(None).score(MEDIUM_TEXT).sentences
    assert len(contributions) == len(every) == 6
    chosen = select_pieces(pieces, MEDIUM_TEXT, "medium", True, contributions=contributions)
    # the top third by contribution, as pieces: the same sentences, found by their offsets
    ranked = sorted(contributions, key=lambda part: -part[2])[: round(6 * MEDIUM_WINDOW_SHARE)]
    assert {pieces[i].start for i in chosen} == {start for start, _, _ in ranked}
    # without contributions (no identifiability model) and in strong: every sentence, as before
    assert select_pieces(pieces, MEDIUM_TEXT, "medium", True) == every
    assert select_pieces(pieces, MEDIUM_TEXT, "strong", True, contributions=contributions) == every
    # the highest contribution wins wherever it is
    flipped = [(s, e, -c) for s, e, c in contributions]
    assert select_pieces(pieces, MEDIUM_TEXT, "medium", True, contributions=flipped) != chosen


def test_a_sentence_too_short_for_a_window_does_not_take_a_windows_place():
    from native_host.rewrite.llm_windows import select_pieces
    from native_host.style.sentences import sentence_spans

    text = "Thanks all. " + MEDIUM_TEXT
    pieces = split_pieces(text)
    spans = sentence_spans(text)
    # the greeting gives the author away most, the rest in order; it is too short for a window
    contributions = [(s, e, 1.0 - k / 10) for k, (s, e) in enumerate(spans)]
    chosen = select_pieces(pieces, text, "medium", True, contributions=contributions)
    assert [pieces[i].start for i in sorted(chosen)] == [spans[1][0], spans[2][0]]  # a third of the six

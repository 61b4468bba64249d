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

"""The deterministic neutralizer: target style, case keeping, protected spans, edits, idempotence."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from native_host.style import Target, apply_edits, neutralize, protected_spans

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "forum_post.txt"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Colour of the Centre", "The Color of the Center"),
        ("I LOVE the CENTRE", "I love the center"),
        ("“Quoted” and it’s", '"Quoted" and it\'s'),
        ("tbh u r right lol", "To be honest you are right"),
        ("Tbh, idk.", "To be honest, I don't know."),
        ("so good 😂😂 really :-)", "so good really"),
        ("Wow!! Really?!", "Wow! Really?"),
        ("One.  Two", "One. Two"),
        ("word , next", "word, next"),
        ("ages — whilst", "ages, while"),
        ("z\u200bero\u00a0space p\u0430ypal", "zero space paypal"),
        ("i think i'm right", "I think I'm right"),
        ("I definately recieve alot", "I definitely receive a lot"),
        ("a\n\n\n\nb", "a\n\nb"),
        ("trailing  \nline", "trailing\nline"),
        ("Hiya all!\n\nText.\n\nCheers,\nM.", "Hi all!\n\nText.\n\nThanks,\nM."),
        # a two-step case: the ellipsis becomes a full stop, then the space before it goes
        ("so tired ... The end", "so tired. The end"),
    ],
)
def test_neutral_target(text: str, expected: str) -> None:
    assert neutralize(text)[0] == expected


def test_british_target_and_keep_emoji() -> None:
    assert neutralize("The color 🙂", Target(spelling="british", keep_emoji=True))[0] == "The colour 🙂"


def test_edits_are_spans_of_the_original_and_rebuild_the_output() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    new_text, edits = neutralize(text)
    assert edits, "the example is full of markers"
    assert apply_edits(text, edits) == new_text
    for e in edits:
        assert text[e.start : e.end] == e.original
        assert e.family and e.to_json()["replacement"] == e.replacement
    assert all(a.end <= b.start for a, b in itertools.pairwise(edits))


def test_composed_edits_cover_multi_pass_changes() -> None:
    text = "so tired ... The end"
    new_text, edits = neutralize(text)
    assert apply_edits(text, edits) == new_text == "so tired. The end"
    assert [(e.start, e.end, e.replacement) for e in edits] == [(8, 12, ".")]


def test_protected_spans_kinds() -> None:
    text = "See `x` https://a.b/c. x@y.com @h #t 1,200.50\n```\ncolour tbh\n```\nend"
    kinds = [(text[s:e], k) for s, e, k in protected_spans(text)]
    assert kinds == [
        ("`x`", "code"),
        ("https://a.b/c", "url"),
        ("x@y.com", "email"),
        ("@h", "handle"),
        ("#t", "tag"),
        ("1,200.50", "number"),
        ("```\ncolour tbh\n```", "code"),
    ]


def test_protected_spans_are_untouched() -> None:
    text = "Colour tbh `colour tbh` https://colour.org/tbh?x=u #colour @tbh me@colour.org 3,50 u\n```\ncolour u\n```"
    new_text, edits = neutralize(text)
    for start, end, _ in protected_spans(text):
        assert not any(e.start < end and start < e.end for e in edits)
        assert text[start:end] in new_text
    assert new_text.startswith("Color to be honest `colour tbh`")
    assert new_text.endswith("3,50 you\n```\ncolour u\n```")


def test_idempotent_on_example() -> None:
    once, _ = neutralize(EXAMPLE.read_text(encoding="utf-8"))
    twice, edits = neutralize(once)
    assert twice == once and edits == []


def test_numbers_keep_their_values() -> None:
    text = "It went from £1,200 to €3.450,50 in 6 weeks — 29/11/2026 at 14:30"
    new_text, _ = neutralize(text)
    for value in ("1,200", "3.450,50", "6", "29/11/2026", "14:30"):
        assert value in new_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the summary card's defect: "… SO gorgeous! to be honest I'd ship it"
        ("It is SO gorgeous!!! tbh I'd ship it tmrw", "It is SO gorgeous! To be honest I'd ship it tmrw"),
        ("tbh I'd ship it.", "To be honest I'd ship it."),
        ("Great. imo it works.", "Great. In my opinion it works."),
        ("Fine.\ntbh yes", "Fine.\nTo be honest yes"),
        ('It works." tbh yes', 'It works." To be honest yes'),
        # not a sentence start: inside a sentence, after an abbreviation, inside a quotation
        ("I think tbh it works", "I think to be honest it works"),
        ("e.g. tbh it works", "e.g. to be honest it works"),
        ('He said "tbh no" and left', 'He said "to be honest no" and left'),
    ],
)
def test_a_replaced_span_at_a_sentence_start_is_capitalised(text: str, expected: str) -> None:
    out, edits = neutralize(text)
    assert out == expected
    assert apply_edits(text, edits) == out and neutralize(out)[0] == out


def test_a_replacement_opens_its_sentence_with_a_capital_when_another_edit_cleared_the_way() -> None:
    """The summary card's text: ":)" and "!!!" are edited in the same pass as "tbh"."""
    text = "OMG the colour of the new logo is SO gorgeous!!! :) tbh I'd ship it tmrw, innit... Cheers, mate."
    out, edits = neutralize(text)
    assert "gorgeous! To be honest I'd ship it" in out, out
    assert apply_edits(text, edits) == out

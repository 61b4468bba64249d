"""Written dialect is not a slip to correct, nor is a name a spelling: the neutralizer's misspelling and lowercase-"i" fixes leave
"goin' teh see" and Joseph's "i' their faces" alone (read in the eval's changed sentences, issue 10),
and still correct the same slips in plain prose."""

from __future__ import annotations

from native_host.style.neutralize import neutralize


def test_dialect_keeps_its_spelling() -> None:
    for text in (
        "\"I was goin' teh see a frien' of mine,\" he said.",
        "'Go teh hell an' git off deh eart',' like dat.",
        "I'd just slam t' boards i' their faces all on 'em, gentle and simple!",
    ):
        out, _ = neutralize(text)
        assert out.replace("’", "'") == text.replace("’", "'"), out


def test_plain_prose_is_still_corrected() -> None:
    out, _ = neutralize("We went to teh shop and i bought bread, and it was definately fresh.")
    assert "the shop" in out and "I bought" in out and "definitely" in out, out
    out, _ = neutralize("He would of gone home, but he said 'no' to me.")
    assert "would have gone" in out, out


def test_of_before_a_reflexive_is_not_would_have() -> None:
    out, _ = neutralize("Reasoning would of themselves teach us that the power is safe.")
    assert "would of themselves" in out, out


def test_a_capitalized_name_keeps_its_spelling() -> None:
    out, _ = neutralize(
        "\u201cMiss Grey was a queer creature: she never flattered.\u201d The grey sky. Colour is nice."
    )
    assert "Miss Grey" in out and "gray sky" in out and "Color is" in out, out

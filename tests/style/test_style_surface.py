"""Surface markers that slipped through on texts the rules were not tuned on (issue 30): fullwidth
letters, a sign-off with a comma in it, slang spelled out next to its own meaning, stretched words and
"&" for "and". Each with the cases it must change and the ones it must leave as written (quoted text,
code, URLs, names, numbers)."""

from __future__ import annotations

import math

import pytest
from style_helpers import marked, markers

from native_host.style import Target, analyze, neutralize

# --- fullwidth letters and digits ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I love ＸＹＺ and ｔｅｘｔ here.", "I love XYZ and text here."),
        ("Call me at ３ or ４, ｏｋ？", "Call me at 3 or 4, ok?"),
        ("Ｈｅｌｌｏ！", "Hello!"),
    ],
)
def test_fullwidth_latin_is_normalized(text: str, expected: str) -> None:
    assert neutralize(text)[0] == expected
    assert "invisible.fullwidth" in markers(text + " " + "plain words here " * 3)


def test_fullwidth_punctuation_stays_in_chinese_and_japanese_text() -> None:
    # "，" and "。" are the ordinary punctuation of CJK text, not a habit; the Latin letters still go
    out, _ = neutralize("我们明天见，好吗？ＯＫ。")
    assert out == "我们明天见，好吗？OK。"


def test_fullwidth_inside_a_url_or_code_stays() -> None:
    text = "see `ＡＢＣ` and https://x.org/ＡＢＣ now"
    assert neutralize(text)[0] == text


# --- sign-offs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Thanks for sorting the tickets out.\n\nCheers, mate",
            "Thanks for sorting the tickets out.\n\nThanks",
        ),
        (
            "Thanks for sorting the tickets out.\nCheers, mate!",
            "Thanks for sorting the tickets out.\nThanks!",
        ),
        ("See you on Friday.\n\ncheers mate", "See you on Friday.\n\nThanks"),
    ],
)
def test_a_one_line_signoff_with_a_comma_is_reported_and_neutralized(text: str, expected: str) -> None:
    assert "greetings.signoff" in markers(text)
    assert neutralize(text)[0] == expected


@pytest.mark.parametrize(
    "text",
    [
        '"Cheers, mate," he said, and raised his glass.',
        "Cheers, mate, that was a great night.\n\nAnyway, see you on Friday.\n\nWe leave at six.\n\nBring food.",
    ],
)
def test_cheers_mate_inside_the_body_is_not_a_signoff(text: str) -> None:
    assert "greetings.signoff" not in markers(text)


# --- slang spelled out next to its own meaning ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Honestly tbh it is fine.", "Honestly it is fine."),
        ("Honestly, tbh, it is fine.", "Honestly, it is fine."),
        ("Tbh honestly it is fine.", "Honestly it is fine."),
        ("It is fine, to be honest, tbh.", "It is fine, to be honest."),
        ("Imo I think we should go.", "I think we should go."),
        ("Btw, by the way, the shop is shut.", "By the way, the shop is shut."),
        ("btw by the way the shop is shut.", "by the way the shop is shut."),
        ("All the ppl people came.", "All the people came."),
        ("I'm gonna going to be late.", "I'm going to be late."),
        # two slang terms that say the same thing: one is spelled out, the other goes
        ("tbh ngl it is fine.", "To be honest it is fine."),
        ("I think imo it is fine.", "I think it is fine."),
    ],
)
def test_slang_expansion_never_doubles_what_is_next_to_it(text: str, expected: str) -> None:
    assert neutralize(text)[0] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tbh it is honest work.", "To be honest it is honest work."),
        ("Honestly. Tbh, it is fine.", "Honestly. To be honest, it is fine."),
        ("I said it, imo it is fine.", "I said it, in my opinion it is fine."),
    ],
)
def test_slang_next_to_unrelated_words_is_still_spelled_out(text: str, expected: str) -> None:
    assert neutralize(text)[0] == expected


def test_slang_kept_when_expansion_is_off_even_next_to_its_meaning() -> None:
    assert neutralize("Honestly tbh it is fine.", Target(expand_slang=False))[0] == "Honestly tbh it is fine."


# --- stretched words ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("that was sooo long, pleeease stop", "that was so long, please stop"),
        ("Sooo good. It is tooo late now.", "So good. It is too late now."),
        ("Noooo, that is way cooool and yesss", "No, that is way cool and yes"),
        ("well ummm ohhh I seee", "well um oh I see"),
        ("I am sooooo tired", "I am so tired"),
    ],
)
def test_stretched_words_are_reported_and_normalized(text: str, expected: str) -> None:
    assert "slang.elongation" in {o.marker for o in _observed(text) if o.spans}
    assert neutralize(text)[0] == expected


@pytest.mark.parametrize(
    "text",
    [
        "Mmm, that smells good. Zzz.",  # one letter repeated: a sound, no neutral spelling
        "The snake went hisss and the dog went grrr. Brrr, it is cold. Shhh!",  # sound words stay
        "We met Ollly and the Baaad Boys at the Hilll Club.",  # capitalized mid-sentence: a name
        "See https://sooo.example.org/pleeease and `sooo = 1` and #sooo and @pleeease",
        'She wrote "sooo long" in the card.',  # quoted text stays as written
        "Chapter xiii and part viii, in 1999 and 2000.",  # roman numerals and numbers
        "The AAAS and the WWW began.",  # acronyms in capitals
    ],
)
def test_names_sounds_quotes_and_code_keep_their_letters(text: str) -> None:
    assert neutralize(text)[0] == text
    assert "slang.elongation" not in markers(text)


def test_stretched_words_follow_the_slang_switch() -> None:
    text = "that was sooo long"
    assert neutralize(text, Target(expand_slang=False))[0] == text
    assert marked(text, "slang.elongation", Target(expand_slang=False)) == "that was {sooo} long"


# --- "&" for "and" --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("me & you went to the shop & back", "me and you went to the shop and back"),
        ("Salt & pepper, please.", "Salt and pepper, please."),
        ("Tom & me will come.", "Tom and me will come."),
    ],
)
def test_ampersand_for_and_in_prose(text: str, expected: str) -> None:
    assert "punctuation.ampersand" in {o.marker for o in _observed(text) if o.spans}
    assert neutralize(text)[0] == expected


@pytest.mark.parametrize(
    "text",
    [
        "I work at AT&T in R&D, and we do a Q&A.",  # initials joined by "&"
        "Procter & Gamble and Johnson & Johnson.",  # names: capitals on both sides
        "Ask R & D about it.",
        "See https://x.org/?a=1&b=2 and `a & b` and a && b",  # URL, code
        "Tom &amp; Jerry &nbsp; &#38;",  # HTML entities
        "Rooms 3 & 4 are free.",  # numbers
        '"me & you," she sang.',  # quoted text
    ],
)
def test_ampersand_stays_in_names_code_urls_and_entities(text: str) -> None:
    assert neutralize(text)[0] == text


def _observed(text: str):
    from native_host.style.analyze import observe
    from native_host.style.document import Document

    return observe(Document(text), Target())


ASSUMED_PER_1K = 0.1  # data/baseline.json's assumed rate for both markers (the corpora are edited prose)


def poisson_identifiability(count: int, words: int, rate_per_1k: float = ASSUMED_PER_1K) -> float:
    """What docs/style.md says a count scores, computed here from scratch: p = P(X >= count) for X ~
    Poisson(rate × words / 1000), surprise = -log10 p, identifiability = 1 - exp(-surprise / 3) (so
    p = 0.1 gives 0.28 and p = 0.001 gives 0.63)."""
    expected = rate_per_1k * words / 1000
    tail = sum(math.exp(-expected) * expected**k / math.factorial(k) for k in range(count, count + 60))
    return 1 - math.exp(math.log10(tail) / 3)


def test_new_markers_are_scored_against_an_assumed_rate() -> None:
    message = "that was sooo long & boring, pleeease stop " * 3  # 21 words
    found = {f.marker: f for f in analyze(message).findings}
    for marker, count in (("slang.elongation", 6), ("punctuation.ampersand", 3)):
        finding = found[marker]
        assert finding.count == count and finding.baseline_per_1k == ASSUMED_PER_1K, finding
        assert finding.rate_per_1k == pytest.approx(1000 * count / 21)
        assert finding.identifiability == pytest.approx(poisson_identifiability(count, 21), abs=1e-6)
        assert finding.identifiability > 0.9  # hundreds of times the assumed rate: it gives the writer away
    # One "&" in 2,000 words is twice the assumed rate, not hundreds of times: it scores far lower.
    prose = "The report was read aloud and the members agreed to meet again next week. " * 143
    long_text = "The vote was close & the motion passed. " + prose
    words = analyze(long_text).words
    assert 1990 <= words <= 2020, words
    rare = {f.marker: f for f in analyze(long_text).findings}.get("punctuation.ampersand")
    expected = poisson_identifiability(1, words)
    assert expected < 0.3
    if rare is None:  # below what a report shows
        assert expected < 0.05
    else:
        assert rare.identifiability == pytest.approx(expected, abs=1e-6)

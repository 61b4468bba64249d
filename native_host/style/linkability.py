"""How likely a text is to be linked to its writer, on one scale a person can read: the guide's meter, the
after-rewrite card, the popup and the CLI all say a score with these words (the number is shown on demand).

    says_unlikely(mode, rivals) -> bool   may the meter say "unlikely" (profile: only with rivals)
    level(score, unlikely) -> "likely" | "possibly" | "unlikely"
    words(score, mode, unlikely) -> str   e.g. "likely to be linked to you" (profile) or "stands out from
                                          other writers" (typicality, where no samples say who "you" are)
    held(score, unlikely) -> bool         below POSSIBLY, yet "possibly": the meter knows no suspects

A score is an identifiability report's `score` (native_host/style/identify.py): the mean over the three
attacker families of the probability that the family links the text to the writer (profile mode) or
how far the text stands from other writers (typicality). Imports only native_host/wording.py, the words.
"""

from __future__ import annotations

from collections.abc import Sequence

from native_host import wording

LIKELY = 0.5  # as identify.LINK_THRESHOLD: at or above, the attackers on average still link the text
POSSIBLY = 0.3  # below LIKELY and at or above this: some attacker may still link it
LEVELS = ("likely", "possibly", "unlikely")  # their words: native_host/wording.py, LEVEL_WORDS_*
DIGITS = 2  # every place that shows a score shows it with two decimals (CLI, card, composer's meter)


def shown(score: float) -> float:
    """The score as it is shown: one number, one level, so 0.50 never reads "possibly"."""
    return round(score, DIGITS)


def says_unlikely(mode: str, rivals: Sequence[str]) -> bool:
    """Whether the meter may say "unlikely": in profile mode only where it holds samples of someone a
    reader might suspect (rivals). Measured on 2,548 held-out texts (docs/results.md, "The meter's
    calibration"): where a meter without rivals put a text below POSSIBLY, char 3-grams still named the
    writer 46% of the time (chance 20%), as often as at "possibly"; with the other candidates as rivals,
    14% (with only two of four, 12%). Typicality's lowest words ("reads like many other writers") say
    nothing of the writer, so that mode keeps its three levels."""
    return mode != "profile" or len(rivals) > 0


def band(score: float) -> str:
    """The band of the figure shown for a score, before the meter's floor: what the automatic rewrite
    stops at (below POSSIBLY, further change is past what the meter can tell)."""
    figure = shown(score)
    if figure >= LIKELY:
        return "likely"
    if figure >= POSSIBLY:
        return "possibly"
    return "unlikely"


def level(score: float, unlikely: bool) -> str:
    """The level the meter says for a score (0–1): its shown figure's band, where `unlikely` is False
    (says_unlikely) held at "possibly"."""
    found = band(score)
    return "possibly" if found == "unlikely" and not unlikely else found


def held(score: float, unlikely: bool) -> bool:
    """The score is in the lowest band, yet the meter says "possibly": it knows no one a reader might
    suspect. Where this holds the composer, the card and the CLI say how to let it say more."""
    return band(score) == "unlikely" and not unlikely


def words(score: float, mode: str, unlikely: bool) -> str:
    """The level in words; typicality mode speaks of other writers, not of "you"."""
    table = wording.LEVEL_WORDS_TYPICALITY if mode == "typicality" else wording.LEVEL_WORDS_PROFILE
    return table[level(score, unlikely)]

"""How likely a text is to be linked to its writer, on one scale a person can read: the guide's meter, the
after-rewrite card, the popup and the CLI all say a score with these words (the number is shown on demand).

    level(score) -> "likely" | "possibly" | "unlikely"
    words(score, mode) -> str     e.g. "likely to be linked to you" (profile) or "stands out from other
                                  writers" (typicality, where no samples say who "you" are)

A score is an identifiability report's `score` (native_host/style/identify.py): the mean over the three
attacker families of the probability that the family links the text to the writer (profile mode) or
how far the text stands from other writers (typicality). Imports only native_host/wording.py, the words.
"""

from __future__ import annotations

from native_host import wording

LIKELY = 0.5  # as identify.LINK_THRESHOLD: at or above, the attackers on average still link the text
POSSIBLY = 0.3  # below LIKELY and at or above this: some attacker may still link it
LEVELS = ("likely", "possibly", "unlikely")  # their words: native_host/wording.py, LEVEL_WORDS_*
DIGITS = 2  # every place that shows a score shows it with two decimals (CLI, card, composer's meter)


def shown(score: float) -> float:
    """The score as it is shown: one number, one level, so 0.50 never reads "possibly"."""
    return round(score, DIGITS)


def level(score: float) -> str:
    """The level of an identifiability score (0–1): the level of the figure shown for it."""
    figure = shown(score)
    if figure >= LIKELY:
        return "likely"
    if figure >= POSSIBLY:
        return "possibly"
    return "unlikely"


def words(score: float, mode: str = "profile") -> str:
    """The level in words; typicality mode speaks of other writers, not of "you"."""
    table = wording.LEVEL_WORDS_TYPICALITY if mode == "typicality" else wording.LEVEL_WORDS_PROFILE
    return table[level(score)]

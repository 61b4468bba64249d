"""How likely a text is to be linked to its writer, on one scale a person can read: the guide's meter, the
after-rewrite card, the popup and the CLI all say a score with these words (the number is shown on demand).

    level(score) -> "likely" | "possibly" | "unlikely"
    words(score, mode) -> str     e.g. "likely to be linked to you" (profile) or "stands out from other
                                  writers" (typicality, where no samples say who "you" are)

A score is an identifiability report's `score` (native_host/style/identify.py): the mean over the three
attacker families of the probability that the family links the text to the writer (profile mode) or
how far the text stands from other writers (typicality). Imports nothing from the package.
"""

from __future__ import annotations

LIKELY = 0.5  # as identify.LINK_THRESHOLD: at or above, the attackers on average still link the text
POSSIBLY = 0.3  # below LIKELY and at or above this: some attacker may still link it
LEVELS = ("likely", "possibly", "unlikely")

# The attacker families of native_host/style/identify.py (FAMILIES), by what each one reads: the words the
# after-rewrite summary and the guide use for them (no family code reaches a person).
ATTACKER_WORDS = {
    "char3": "the letter patterns of your spelling",  # character 3-grams
    "delta": "your choice of common words",  # Cosine Delta over the 300 most frequent words
    "function_words": "your punctuation and small words",  # function words + punctuation marks
}

_PROFILE_WORDS = {
    "likely": "likely to be linked to you",
    "possibly": "possibly linked to you",
    "unlikely": "unlikely to be linked to you",
}
_TYPICALITY_WORDS = {
    "likely": "stands out from other writers",
    "possibly": "stands out a little from other writers",
    "unlikely": "reads like many other writers",
}


def level(score: float) -> str:
    """The level of an identifiability score (0–1)."""
    if score >= LIKELY:
        return "likely"
    if score >= POSSIBLY:
        return "possibly"
    return "unlikely"


def words(score: float, mode: str = "profile") -> str:
    """The level in words; typicality mode speaks of other writers, not of "you"."""
    table = _TYPICALITY_WORDS if mode == "typicality" else _PROFILE_WORDS
    return table[level(score)]

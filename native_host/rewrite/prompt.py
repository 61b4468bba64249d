"""The chat the model sees: a fixed instruction and example (cached as a warm prefix), then one window.

The instruction names the markers the analyzer found in the window, so the model is told what to
remove, and lists the tokens it must copy verbatim. A model above the size threshold
(models/size_class.py) gets the restructuring instruction and example instead (`restructure=True`).
"""

from __future__ import annotations

from collections.abc import Iterable

SYSTEM = (
    "You rewrite text so that nobody can tell who wrote it. Keep the meaning and every fact. "
    "Copy names, numbers, links, e-mail addresses and code exactly. Write plain, neutral, standard "
    "English with ordinary words and ordinary punctuation. Reply with the rewritten text only."
)

# One worked example: small models follow a demonstration far better than a description.
EXAMPLE_USER = (
    "Rewrite this text in a plain, neutral style. Remove: slang, exclamation marks.\n"
    "Keep exactly: Friday\n\n"
    "Text:\nHonestly the meeting on Friday was a total waste of time!!! Nobody even bothered to show up on time."
)
# No link or e-mail in the example: the small model copies those into unrelated answers.
EXAMPLE_ASSISTANT = "The meeting on Friday was not useful. Most people arrived late."

# Models above the size threshold: what a small model cannot do. Changing how sentences are built moves
# what word edits cannot (sentence length, function words, character n-grams across word boundaries).
# The example keeps every fact the guards check (the name, the negation, the duration) and changes the
# structure: split in two, cause before effect, plainer words.
RESTRUCTURE_SYSTEM = (
    "You rewrite text so that nobody can tell who wrote it. Keep the meaning and every fact. "
    "Copy names, numbers, links, e-mail addresses and code exactly. Change how the sentences are "
    "built: split a long sentence, join short ones, put clauses in another order, and use plainer, "
    "more common words. Write plain, neutral, standard English with ordinary punctuation. "
    "Reply with the rewritten text only."
)
RESTRUCTURE_EXAMPLE_USER = (
    "Rewrite this text in a plain, neutral style, and build its sentences differently. "
    "Remove: slang, exclamation marks.\n"
    "Keep exactly: Friday\n\n"
    "Text:\nHonestly the meeting on Friday was a total waste of time!!! Nobody had read the report, "
    "so we went round in circles for an hour."
)
RESTRUCTURE_EXAMPLE_ASSISTANT = (
    "Nobody had read the report. Because of that, the meeting on Friday went round in circles for an "
    "hour and achieved little."
)

# Plain-words names for marker families (unknown families are shown with underscores as spaces).
FAMILY_WORDS = {
    "punctuation": "unusual punctuation",
    "quotes": "curly quotes",
    "spelling": "regional spelling",
    "contractions": "contractions",
    "capitalization": "odd capitalization",
    "emoji": "emoji and emoticons",
    "slang": "slang and abbreviations",
    "signature_phrases": "pet phrases",
    "rare_vocabulary": "rare words",
    "function_words": "habitual filler words",
    "sentence_length": "unusual sentence length",
    "layout": "line-break habits",
    "formats": "unusual number and date formats",
    "misspellings": "misspellings",
    "greetings": "greetings and sign-offs",
    "invisible": "invisible characters",
}


def describe_markers(families: Iterable[str]) -> str:
    words = []
    for family in families:
        phrase = FAMILY_WORDS.get(family, family.replace("_", " "))
        if phrase not in words:
            words.append(phrase)
    return ", ".join(words[:6])


def build_messages(
    window: str, marker_families: Iterable[str], keep: Iterable[str], restructure: bool = False
) -> list[dict]:
    markers = describe_markers(marker_families) or "personal habits of style"
    keep_list = ", ".join(list(dict.fromkeys(keep))[:12])
    request = "Rewrite this text in a plain, neutral style"
    request += ", and build its sentences differently. " if restructure else ". "
    request += f"Remove: {markers}.\n"
    if keep_list:
        request += f"Keep exactly: {keep_list}\n"
    request += f"\nText:\n{window}"
    return [*prefix_messages(restructure), {"role": "user", "content": request}]


def prefix_messages(restructure: bool = False) -> list[dict]:
    """The part of every prompt that never changes (worth caching in the engine)."""
    if restructure:
        system, user, assistant = RESTRUCTURE_SYSTEM, RESTRUCTURE_EXAMPLE_USER, RESTRUCTURE_EXAMPLE_ASSISTANT
    else:
        system, user, assistant = SYSTEM, EXAMPLE_USER, EXAMPLE_ASSISTANT
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
        {"role": "assistant", "content": assistant},
    ]

"""Spelling dialect: British / American / Canadian variants (colour/color, -ise/-ize, whilst, amongst, ...)."""

from __future__ import annotations

from functools import cache

from native_host.style import data
from native_host.style.document import Document
from native_host.style.families._common import keep_case
from native_host.style.model import Observation, Span, Target

FAMILY = "spelling"
EDITS = True  # whether this family proposes replacements for the neutralizer


@cache
def _tables() -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    """british -> (american, category) and american -> (british, category) for reversible pairs."""
    to_american: dict[str, tuple[str, str]] = {}
    to_british: dict[str, tuple[str, str]] = {}
    for british, american, category, reversible in data.tsv("spelling_variants.tsv"):
        to_american[british] = (american, category)
        if reversible == "1":
            to_british.setdefault(american, (british, category))
    return to_american, to_british


@cache
def _vocabulary_replacements() -> dict[str, tuple[str, frozenset[str]]]:
    """british word -> (american word, next words that keep it as it is); see british_vocabulary.tsv."""
    table = {}
    for row in data.tsv("british_vocabulary.tsv"):
        british, american = row[0], row[1]
        not_before = frozenset(row[2].split(",")) if len(row) > 2 and row[2] else frozenset()
        table[british] = (american, not_before)
    return table


_HONORIFICS = frozenset(
    "miss mr mrs ms dr lady sir lord master mistress madam madame mme captain colonel major general st".split()
)


# lower-case words inside a title-cased heading ("The Colour of the Centre")
_TITLE_SMALL_WORDS = frozenset("a an the of and or in on at to for by with from".split())


def _name_position(text: str, start: int) -> bool:
    """The capitalized word at `start` follows a lower-case word or an honorific: a name."""
    before = text[max(0, start - 30) : start].split()
    if not before:
        return False
    prev = before[-1].strip("\"'“‘(").rstrip(".")
    return prev.isalpha() and (
        prev.lower() in _HONORIFICS or (prev.islower() and prev not in _TITLE_SMALL_WORDS)
    )


def observe(doc: Document, target: Target) -> list[Observation]:
    to_american, to_british = _tables()
    british: list[Span] = []
    american: list[Span] = []
    categories: dict[str, int] = {}
    for (start, end, word), lower in zip(doc.words, doc.lower_words, strict=True):
        if word[:1].isupper() and not doc.at_sentence_start(start) and _name_position(doc.text, start):
            continue  # "Miss Grey", "met Grey": a name, no "Gray" (title case, "The Colour of", still is)
        if lower in to_american:
            variant, category = to_american[lower]
            replacement = keep_case(word, variant) if target.spelling == "american" else None
            british.append(Span(start, end, word, replacement))
            categories["british_" + category] = categories.get("british_" + category, 0) + 1
        elif lower in to_british:
            variant, category = to_british[lower]
            replacement = keep_case(word, variant) if target.spelling == "british" else None
            american.append(Span(start, end, word, replacement))
            categories["american_" + category] = categories.get("american_" + category, 0) + 1
    british_words = data.words("british_words.txt")
    replacements = _vocabulary_replacements()
    vocabulary: list[Span] = []
    for (start, end, word), lower in zip(doc.words, doc.lower_words, strict=True):
        if not (lower in british_words or lower in replacements) or not word.islower():
            continue
        replacement = None
        if target.spelling == "american" and lower in replacements:
            american_word, not_before = replacements[lower]
            following = doc.text[end : end + 40].split(maxsplit=1)
            if not (following and following[0].lower().strip(".,;:!?") in not_before):
                replacement = american_word
        vocabulary.append(Span(start, end, word, replacement))
    observations = [
        Observation(FAMILY, "spelling.british", "British spellings", british),
        Observation(FAMILY, "spelling.british_vocabulary", "British everyday words", vocabulary),
        # American spelling is the population majority: reported (low score) so a British target
        # can rewrite it, never scored as rare.
        Observation(FAMILY, "spelling.american", "American spellings", american),
    ]
    # Canadian (and Oxford) usage: British -our/-re with American -ize in the same text.
    if categories.get("american_ise") and (categories.get("british_our") or categories.get("british_re")):
        mixed = [s for s in british if to_american[s.text.lower()][1] in ("our", "re")]
        mixed += [s for s in american if to_british[s.text.lower()][1] == "ise"]
        observations.append(
            Observation(
                FAMILY,
                "spelling.canadian",
                "Canadian/Oxford spelling mix (-our with -ize)",
                [Span(s.start, s.end, s.text, None) for s in sorted(mixed, key=lambda s: s.start)],
            )
        )
    return observations

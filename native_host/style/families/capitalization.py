"""Capitalization quirks: lowercase "i", all-lowercase writing, ALL-CAPS emphasis."""

from __future__ import annotations

import re

from native_host.style import data
from native_host.style.document import Document
from native_host.style.model import Observation, Span, Target

FAMILY = "capitalization"
EDITS = True  # whether this family proposes replacements for the neutralizer

_LOWER_I = frozenset({"i", "i'm", "i've", "i'll", "i'd"})
_MIN_SENTENCES = 3
_LOWERCASE_SHARE = 0.75
_CAPS_MIN_LEN = 3
_CAPS_MIN_ZIPF = 3.5  # the lower-case form must be an ordinary word, so "NASA" is not shouting
# Roman numerals up to 399 ("CHAPTER VIII", "Part XIV") are numbers, not shouting; "viii" would lose the
# number. D and M are left out so that words such as MIX and DIM still count.
_ROMAN = re.compile(r"C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
# The short words a shouted run lowers with it ("SUCH A SITUATION", "I AM SO TIRED"). Any other short
# capitals are initials or numerals: "CHAPTER II" keeps its number, "BB AND ALISON BB" is a name.
_SHORT_WORDS = frozenset(
    "a am an as at be by do go he if in is it me my no of oh on or so to up us we".split()
)


def observe(doc: Document, target: Target) -> list[Observation]:
    text = doc.text
    acronyms = data.words("acronyms.txt")
    lower_i: list[Span] = []
    caps: list[Span] = []
    titled = _titled_mid_sentence(doc)
    for (start, end, word), lower in zip(doc.words, doc.lower_words, strict=True):
        if lower in _LOWER_I and word[0] == "i":
            after = text[end : end + 1]
            before = text[start - 1 : start] if start else ""
            # dialect "i'" for "in" ("slam t' boards i' their faces") is no pronoun
            elided = word == "i" and after in ("'", "’") and not text[end + 1 : end + 2].isalpha()
            if after not in (".", "-") and before not in (".", "-", "/") and not elided:
                lower_i.append(Span(start, end, word, "I" + word[1:]))
        elif (
            len(word) >= _CAPS_MIN_LEN
            and word.isupper()
            and word not in acronyms
            and not _ROMAN.fullmatch(word)
            and "'" not in lower
            and data.zipf(lower) >= _CAPS_MIN_ZIPF
        ):
            replacement = lower.capitalize() if doc.at_sentence_start(start) else lower
            caps.append(Span(start, end, word, replacement))
    caps = _with_short_words(doc, caps)
    caps = _whole_or_nothing(doc, caps, acronyms)
    caps = _keep_names(caps, titled, text)
    observations = [
        Observation(FAMILY, "capitalization.lowercase_i", 'lowercase "i"', lower_i),
        Observation(FAMILY, "capitalization.all_caps_emphasis", "ALL-CAPS words for emphasis", caps),
    ]
    observations.extend(_all_lowercase(doc))
    return observations


def _with_short_words(doc: Document, caps: list[Span]) -> list[Span]:
    """Short capitalized words inside a run of shouted ones ("SUCH A SITUATION", "IT IS A DISGRACE")
    are part of the shouting: lowering only the long words would leave "such A situation". A run is
    lowered only when every long word of it is shouted ("END OF STORY" with END an acronym stays)."""
    text = doc.text
    flagged = {span.start for span in caps}
    runs: list[list[tuple[int, int, str, str]]] = []
    last_end = -1
    for (start, end, word), lower in zip(doc.words, doc.lower_words, strict=True):
        if not (word.isupper() and word.isalpha()):
            last_end = -1
            continue
        if runs and last_end >= 0 and not text[last_end:start].strip():
            runs[-1].append((start, end, word, lower))
        else:
            runs.append([(start, end, word, lower)])
        last_end = end
    extra: list[Span] = []
    names: set[int] = set()  # flagged words of runs set in capitals with initials: names, not shouting
    for run in runs:
        long_words = [w for w in run if len(w[2]) >= _CAPS_MIN_LEN]
        short = [w for w in run if len(w[2]) < _CAPS_MIN_LEN and w[2] != "I"]
        if any(lower not in _SHORT_WORDS and not _ROMAN.fullmatch(word) for _, _, word, lower in short):
            names.update(w[0] for w in long_words)
            continue
        if not long_words or not all(w[0] in flagged for w in long_words):
            continue
        for start, end, word, lower in short:
            if lower in _SHORT_WORDS:
                replacement = lower.capitalize() if doc.at_sentence_start(start) else lower
                extra.append(Span(start, end, word, replacement))
    kept = [span for span in caps if span.start not in names]
    return sorted(kept + extra, key=lambda span: span.start)


def _whole_or_nothing(doc: Document, caps: list[Span], acronyms: frozenset[str]) -> list[Span]:
    """A stretch of capitals (words in capitals with nothing but punctuation and spaces between them, on
    one line: "CHAPTER IX--SOLDIER BOY AND SHEKELS AGAIN") that holds a long word we would not lower (a
    rare word or a name: SHEKELS, KNICKERBOCKER) stays as written: lowering the rest gave "Chapter IX,
    soldier boy and SHEKELS again" and "TO the editor OF the KNICKERBOCKER." in the 2026-12-02 eval
    sample, worse than either form. Acronyms and roman numerals do not hold a stretch ("I HATE NASA"
    still lowers HATE)."""
    text = doc.text
    flagged = {span.start for span in caps}
    stretches: list[list[tuple[int, int, str]]] = []
    last_end = -1
    for start, end, word in doc.words:
        if not any(ch.isalpha() for ch in word):
            continue
        if not word.isupper():
            last_end = -1
            continue
        if stretches and last_end >= 0 and "\n" not in text[last_end:start]:
            stretches[-1].append((start, end, word))
        else:
            stretches.append([(start, end, word)])
        last_end = end
    held: set[int] = set()
    for stretch in stretches:
        if any(
            len(word) >= _CAPS_MIN_LEN
            and start not in flagged
            and word not in acronyms
            and not _ROMAN.fullmatch(word)
            for start, _end, word in stretch
        ):
            held.update(start for start, _end, _word in stretch)
    return [span for span in caps if span.start not in held]


def _titled_mid_sentence(doc: Document) -> frozenset[str]:
    """Lower-case forms of the words this text writes Title-cased inside a sentence: its names."""
    return frozenset(
        lower
        for (start, _end, word), lower in zip(doc.words, doc.lower_words, strict=True)
        if word[:1].isupper() and word[1:].islower() and not doc.at_sentence_start(start)
    )


def _keep_names(caps: list[Span], titled: frozenset[str], text: str) -> list[Span]:
    """ "UNITED AMERICA" is a name set in capitals, not shouting: a run of adjacent ALL-CAPS words
    becomes Title Case when any word of it is a name elsewhere in the text ("America"), and so does a
    lone capitalized name ("AMERICA" -> "America"); lowering it would turn a name into a common word."""
    runs: list[list[Span]] = []
    for span in caps:
        if runs and not text[runs[-1][-1].end : span.start].strip():
            runs[-1].append(span)
        else:
            runs.append([span])
    kept: list[Span] = []
    for run in runs:
        if any(span.text.lower() in titled for span in run):
            kept.extend(
                Span(
                    s.start,
                    s.end,
                    s.text,
                    s.text.lower() if k and len(s.text) < _CAPS_MIN_LEN else s.text.capitalize(),
                )
                for k, s in enumerate(run)
            )
        else:
            kept.extend(run)
    return kept


def _all_lowercase(doc: Document) -> list[Observation]:
    """Sentences that start in lower case, when that is the writer's habit rather than a slip."""
    starts: list[tuple[int, int, str]] = []
    word_starts = {s: (s, e, w) for s, e, w in doc.words}
    for s, _ in doc.sentences:
        pos = s
        while pos < len(doc.text) and doc.text[pos] in "\"'“‘(":
            pos += 1
        if pos in word_starts:
            starts.append(word_starts[pos])
    if len(starts) < _MIN_SENTENCES:
        return []
    lower = [(s, e, w) for s, e, w in starts if w[0].islower() and w.lower() == w]
    if len(lower) / len(starts) < _LOWERCASE_SHARE:
        return []
    spans = [Span(s, e, w, w[0].upper() + w[1:]) for s, e, w in lower]
    return [
        Observation(
            FAMILY,
            "capitalization.all_lowercase",
            "sentences starting in lower case",
            spans,
            evidence=f"{len(lower)} of {len(starts)} sentences start with a lower-case letter; "
            "most writers capitalize nearly all of them",
            surprise=3.0 + 0.5 * len(lower),
        )
    ]

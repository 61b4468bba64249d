"""Internet abbreviations and slang (tbh, imo, lol, u, r, gonna, ...), spelled out by the neutralizer."""

from __future__ import annotations

import re
from functools import cache

from native_host.style import data
from native_host.style.document import Document
from native_host.style.families._common import keep_case, removal_span, word_alternation
from native_host.style.model import Observation, Span, Target

FAMILY = "slang"
EDITS = True  # whether this family proposes replacements for the neutralizer

_LAUGHTER = r"(?:ha){2,}h?|(?:he){2,}h?|(?:hi){3,}"
# Single letters are slang only in lower case and not as part of "U.S." or "R&D".
_SINGLE_LETTER_GUARD = re.compile(r"[.&'’-]")


@cache
def _table() -> tuple[dict[str, str], re.Pattern[str]]:
    table = {row[0]: (row[1] if len(row) > 1 else "") for row in data.tsv("slang.tsv")}
    pattern = re.compile(rf"(?<![\w'’@#./-])(?:{word_alternation(table)}|{_LAUGHTER})(?![\w'’@/]|\.\w)", re.I)
    return table, pattern


def observe(doc: Document, target: Target) -> list[Observation]:
    table, pattern = _table()
    text = doc.text
    spans: list[Span] = []
    for m in doc.finditer(pattern):
        word = m.group()
        lower = word.lower().replace("’", "'")
        if len(word) == 1 and (
            word != lower or _SINGLE_LETTER_GUARD.match(text[m.end() : m.end() + 1] or " ")
        ):
            continue
        expansion = table.get(lower, "")
        if not target.expand_slang:
            spans.append(Span(m.start(), m.end(), word, None))
        elif expansion:
            spans.append(Span(m.start(), m.end(), word, keep_case(word, expansion)))
        else:
            spans.append(removal_span(doc, m.start(), m.end()))
    return [Observation(FAMILY, "slang.abbreviations", "internet abbreviations and slang", spans)]

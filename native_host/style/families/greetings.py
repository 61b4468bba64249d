"""Greetings and sign-offs ("Hiya all!", "Cheers,") and a signature line after the sign-off."""

from __future__ import annotations

import math
import re
from functools import cache

from native_host.style import data
from native_host.style.document import Document
from native_host.style.families._common import keep_case, word_alternation
from native_host.style.model import Observation, Span, Target

FAMILY = "greetings"
EDITS = True  # whether this family proposes replacements for the neutralizer

_SIGNATURE = re.compile(r"^[ \t]*(?:-{1,2}\s*)?[A-Z][\w.'-]{0,20}(?:[ \t]+[A-Z][\w.'-]{0,20}){0,2}[ \t]*$")
_COMMON_SHARE = 0.05  # forms at least this common are not worth reporting


@cache
def _tables() -> tuple[dict[str, tuple[str, float, str]], re.Pattern[str], re.Pattern[str]]:
    table = {
        row[0]: (row[1], float(row[2]), row[3] if len(row) > 3 else "") for row in data.tsv("greetings.tsv")
    }
    greetings = [p for p, (kind, _, _) in table.items() if kind == "greeting"]
    signoffs = [p for p, (kind, _, _) in table.items() if kind == "signoff"]
    greeting_re = re.compile(
        rf"^[ \t]*({word_alternation(greetings)})\b(?=[ \t]*[,!.:\-—]*[ \t]*(?:\w+[ \t]*[,!.:]*)?[ \t]*$|[ \t]*[,!])",
        re.I | re.M,
    )
    # A comma may sit between a sign-off's words ("Cheers, mate", "Thanks, guys"): the same form.
    signoff_alternation = word_alternation(signoffs).replace(r"\ ", r",?[ \t]+")
    signoff_re = re.compile(rf"^[ \t]*({signoff_alternation})[ \t]*[,!.]*[ \t]*$", re.I | re.M)
    return table, greeting_re, signoff_re


def observe(doc: Document, target: Target) -> list[Observation]:
    table, greeting_re, signoff_re = _tables()
    text = doc.text
    observations: list[Observation] = []
    first_line_end = text.find("\n", len(text) - len(text.lstrip()))
    opening = greeting_re.match(
        text, len(text) - len(text.lstrip()), first_line_end if first_line_end >= 0 else len(text)
    )
    if opening and not doc.is_protected(*opening.span(1)):
        observations.append(_observation(doc, table, opening, "greetings.greeting", "greeting"))
    # The sign-off is one of the last three non-empty lines.
    tail_start = _tail_start(text, lines=3)
    closing = None
    for m in signoff_re.finditer(text, tail_start):
        closing = m
    if closing and not doc.is_protected(*closing.span(1)):
        observations.append(_observation(doc, table, closing, "greetings.signoff", "sign-off"))
        after = text[closing.end() :].strip("\n")
        first = after.split("\n", 1)[0] if after else ""
        if first and _SIGNATURE.match(first) and after.strip() == first.strip():
            start = text.index(first, closing.end())
            observations.append(
                Observation(
                    FAMILY,
                    "greetings.signature",
                    "a name or initials signed after the sign-off",
                    [Span(start, start + len(first), first, None)],
                    evidence=f'signed "{first.strip()}" after the sign-off: a name or initials identify directly',
                    surprise=4.0,
                )
            )
    return observations


def _observation(doc: Document, table: dict, m: re.Match[str], marker: str, label: str) -> Observation:
    phrase = m.group(1)
    _, share, neutral = table[" ".join(phrase.lower().replace(",", " ").split())]
    replacement = keep_case(phrase, neutral) if neutral else None
    surprise = -math.log10(share)
    common = share >= _COMMON_SHARE
    return Observation(
        FAMILY,
        marker,
        f'{label} "{phrase}"',
        [Span(m.start(1), m.end(1), phrase, replacement)],
        evidence=f'opens with "{phrase}"' if label == "greeting" else f'signs off with "{phrase}"',
        surprise=0.0 if common else surprise,
        report=not common,
    )


def _tail_start(text: str, lines: int) -> int:
    pos = len(text.rstrip())
    for _ in range(lines):
        nl = text.rfind("\n", 0, pos)
        if nl < 0:
            return 0
        pos = nl
        while pos > 0 and text[pos - 1] == "\n":
            pos -= 1
    return pos

"""Quote and apostrophe style: curly vs straight, guillemets, ``TeX'' quotes, and mixing them."""

from __future__ import annotations

import re
from dataclasses import replace

from native_host.style.document import Document
from native_host.style.families._common import spans_for
from native_host.style.model import Observation, Target

FAMILY = "quotes"
EDITS = True  # whether this family proposes replacements for the neutralizer

_CURLY_DOUBLE = re.compile(r"[“”„‟]")
_GUILLEMETS = re.compile(r"[«»]")
_TEX_QUOTES = re.compile(r"``|''(?=\W|$)")
_CURLY_APOSTROPHE = re.compile(r"(?<=[^\W\d_])[’‛](?=[^\W\d_])")
_CURLY_SINGLE = re.compile(r"[‘’‚‛]")
_STRAIGHT_DOUBLE = re.compile(r'"')
_STRAIGHT_APOSTROPHE = re.compile(r"(?<=[^\W\d_])'(?=[^\W\d_])")


def observe(doc: Document, target: Target) -> list[Observation]:
    apostrophes = spans_for(doc, _CURLY_APOSTROPHE, "'")
    apostrophe_starts = {s.start for s in apostrophes}
    single = [s for s in spans_for(doc, _CURLY_SINGLE, "'") if s.start not in apostrophe_starts]
    curly_double = spans_for(doc, _CURLY_DOUBLE, '"')
    straight = spans_for(doc, _STRAIGHT_DOUBLE) + spans_for(doc, _STRAIGHT_APOSTROPHE)
    curly_any = bool(curly_double or apostrophes or single)
    if target.keep_mark_rates and not straight:
        # One consistent style is the device's, shared by millions; straightening it changes the rates of
        # ' and " the detector reads. Mixed styles are still unified (below, and quotes.mixed).
        apostrophes, single, curly_double = (
            [replace(s, replacement=None) for s in spans] for spans in (apostrophes, single, curly_double)
        )
    observations = [
        Observation(FAMILY, "quotes.curly_double", "curly double quotes (“ ”)", curly_double),
        Observation(FAMILY, "quotes.curly_apostrophe", "curly apostrophes (’)", apostrophes),
        Observation(FAMILY, "quotes.curly_single", "curly single quotes (‘ ’)", single),
        Observation(FAMILY, "quotes.guillemets", "guillemets (« »)", spans_for(doc, _GUILLEMETS, '"')),
        Observation(
            FAMILY, "quotes.tex_quotes", "``double backtick'' quotes", spans_for(doc, _TEX_QUOTES, '"')
        ),
    ]
    if curly_any and straight:
        # Mixing both kinds usually means hand-edited text pasted from two tools: a fingerprint.
        observations.append(
            Observation(
                FAMILY,
                "quotes.mixed",
                "straight and curly quotes mixed",
                sorted(straight, key=lambda s: s.start),
            )
        )
    return observations

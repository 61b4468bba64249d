"""Paragraph and line-break habits: blank-line runs, trailing spaces, hard-wrapped lines, indents."""

from __future__ import annotations

import bisect
import re

from native_host.style.document import Document
from native_host.style.families._common import spans_for
from native_host.style.model import Observation, Span, Target

FAMILY = "layout"
EDITS = True  # whether this family proposes replacements for the neutralizer

_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_TRAILING_SPACE = re.compile(r"(?<![ \t])[ \t]++(?=\r?\n)")
# A line that ends mid-sentence and is followed by a line continuing it in lower case.
_HARD_WRAP = re.compile(r"[^\s.!?:;,\n][ \t]*\n(?=[ \t]*[a-z])")
_INDENTED_PARAGRAPH = re.compile(r"(?:^|\n[ \t]*\n)([ \t]+)(?=[^\s])")
_MIN_PARAGRAPHS = 3


def observe(doc: Document, target: Target) -> list[Observation]:
    text = doc.text
    indents = [
        Span(m.start(1), m.end(1), m.group(1), None)
        for m in _INDENTED_PARAGRAPH.finditer(text)
        if not doc.is_protected(m.start(1), m.end(1) + 1)
    ]
    wraps = [Span(m.end() - 1, m.end(), "\n", None) for m in doc.finditer(_HARD_WRAP)]
    observations = [
        Observation(
            FAMILY,
            "layout.blank_line_runs",
            "runs of several blank lines",
            spans_for(doc, _BLANK_RUNS, "\n\n"),
        ),
        Observation(
            FAMILY,
            "layout.trailing_spaces",
            "spaces at the end of lines",
            spans_for(doc, _TRAILING_SPACE, ""),
        ),
        Observation(FAMILY, "layout.hard_wrapped", "lines broken mid-sentence (hard wrapping)", wraps),
        Observation(FAMILY, "layout.indented_paragraphs", "indented paragraph starts", indents),
    ]
    paragraphs = doc.paragraphs
    if len(paragraphs) >= _MIN_PARAGRAPHS:
        sentence_starts = [s for s, _, _ in doc.counted_sentences]
        single = []
        for ps, pe in paragraphs:
            # sentence starts are sorted: count those in [ps, pe) by bisection (linear in the text overall)
            inside = bisect.bisect_left(sentence_starts, pe) - bisect.bisect_left(sentence_starts, ps)
            if inside == 1:
                single.append(Span(ps, pe, text[ps:pe], None))
        share = len(single) / len(paragraphs)
        if share >= 0.6 and len(single) >= _MIN_PARAGRAPHS:
            observations.append(
                Observation(
                    FAMILY,
                    "layout.one_sentence_paragraphs",
                    "one-sentence paragraphs",
                    single,
                    evidence=f"{len(single)} of {len(paragraphs)} paragraphs are a single sentence; "
                    "most writers group two or more sentences",
                    surprise=1.0 + 0.5 * len(single),
                )
            )
    return observations

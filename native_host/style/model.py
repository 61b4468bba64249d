"""Plain data types shared by every marker family: spans, observations, findings, reports, edits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

REPORT_VERSION = 1


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of the original text (code-point offsets, end exclusive) and its neutral form, if any."""

    start: int
    end: int
    text: str
    replacement: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "text": self.text, "replacement": self.replacement}


@dataclass(slots=True)
class Observation:
    """What a family detector saw, before scoring. `count` defaults to the number of spans.

    Detectors whose statistic is not a count (sentence length, function words) set `surprise`
    (-log10 of a p-value against the baseline) and `evidence` themselves.
    """

    family: str
    marker: str
    label: str
    spans: list[Span]
    count: int | None = None
    evidence: str | None = None
    surprise: float | None = None
    # Spans with a replacement that the neutralizer applies but that are not worth reporting
    # on their own (e.g. a single curly apostrophe still becomes straight).
    report: bool = True

    @property
    def n(self) -> int:
        return len(self.spans) if self.count is None else self.count


@dataclass(frozen=True, slots=True)
class Finding:
    family: str
    marker: str
    label: str
    spans: tuple[Span, ...]
    count: int
    rate_per_1k: float
    baseline_per_1k: float | None
    identifiability: float  # 0..1, how much this narrows down who wrote the text
    evidence: str
    personal: bool = False  # one of the habits learned into the user's profile

    @property
    def has_replacement(self) -> bool:
        return any(s.replacement is not None for s in self.spans)

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "marker": self.marker,
            "label": self.label,
            "count": self.count,
            "rate_per_1k": round(self.rate_per_1k, 3),
            "baseline_per_1k": None if self.baseline_per_1k is None else round(self.baseline_per_1k, 3),
            "identifiability": round(self.identifiability, 3),
            "personal": self.personal,
            "evidence": self.evidence,
            "spans": [s.to_json() for s in self.spans],
        }


@dataclass(frozen=True, slots=True)
class Report:
    text_length: int
    words: int
    score: int  # 0..100 overall identifiability
    reasons: tuple[str, ...]  # one line per top contributor
    findings: tuple[Finding, ...]  # personal habits first, then most identifying first
    profile_used: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "score": self.score,
            "words": self.words,
            "characters": self.text_length,
            "profile_used": self.profile_used,
            "reasons": list(self.reasons),
            "findings": [f.to_json() for f in self.findings],
        }


@dataclass(frozen=True, slots=True)
class Edit:
    """One replacement in the original text's coordinates; applying all edits gives the new text."""

    start: int
    end: int
    original: str
    replacement: str
    family: str
    marker: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "original": self.original,
            "replacement": self.replacement,
            "family": self.family,
            "marker": self.marker,
        }


@dataclass(frozen=True, slots=True)
class Target:
    """The one neutral style the neutralizer writes towards."""

    spelling: Literal["american", "british"] = "american"
    keep_emoji: bool = False
    expand_slang: bool = True
    families: frozenset[str] | None = field(default=None)  # None = every family
    # True: dashes and consistent curly quotes are reported, not replaced — how often a text uses them is a
    # rate the function-word attacker and the stealth detector read, and taking it to zero is what gave
    # the medium / strong rewrites away (docs/decisions.md "The rewrite keeps the marks' rates").
    keep_mark_rates: bool = False

    def wants(self, family: str) -> bool:
        return self.families is None or family in self.families

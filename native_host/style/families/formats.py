"""Number, date, time and currency formats: "£1,200", "29/11/2026", "14:30", "3 p.m.", "10 €".

Values are protected spans, so these findings never carry a replacement: they tell the writer which
formats give away a region, and the rewrite may rephrase around them.
"""

from __future__ import annotations

import re

from native_host.style.document import Document
from native_host.style.model import Observation, Span, Target

FAMILY = "formats"
EDITS = False  # whether this family proposes replacements for the neutralizer

_MONTHS = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("formats.currency_pound", "pound sterling amounts (£)", re.compile(r"£\s?\d[\d,.]*(?<=\d)")),
    (
        "formats.currency_euro",
        "euro amounts (€)",
        re.compile(r"€\s?\d[\d,.]*(?<=\d)|(?<![\d.,])\d[\d,.]*[ \u00a0]?€"),
    ),
    (
        "formats.currency_after",
        "currency symbol after the number (10 €, 5$)",
        re.compile(r"(?<![\d.,])\d[\d,.]*[ \u00a0]?[€$£¥₹](?!\d)"),
    ),
    (
        "formats.currency_code",
        "currency codes (USD, EUR, GBP)",
        re.compile(r"\b(?:USD|EUR|GBP|CAD|AUD|CHF|JPY|INR)\b"),
    ),
    (
        "formats.thousands_dot",
        "dots as thousands separators (1.200.000)",
        re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3}){2,}(?![\d.])|(?<![\d.,])\d{1,3}\.\d{3},\d{1,2}(?!\d)"),
    ),
    (
        "formats.thousands_space",
        "spaces as thousands separators (1 200)",
        re.compile(
            r"(?<![\d.,])\d{1,3}(?:[\u00a0\u202f\u2009 ]\d{3})+(?![\d])(?=\s*(?:€|\$|£|kr|km|kg|euros?|dollars?|people|\b))"
        ),
    ),
    (
        "formats.decimal_comma",
        "decimal commas (3,50 €)",
        re.compile(r"(?:[€$£]\s?\d+,\d{2}(?!\d))|(?:\d+,\d{2}\s?(?:€|EUR|euros?)\b)"),
    ),
    ("formats.date_iso", "ISO dates (2026-11-29)", re.compile(r"\b\d{4}-\d{2}-\d{2}\b")),
    (
        "formats.date_day_first",
        "day/month/year dates (29/11/2026)",
        re.compile(r"\b(?:1[3-9]|2\d|3[01])/(?:0?[1-9]|1[0-2])/\d{2,4}\b"),
    ),
    (
        "formats.date_month_first",
        "month/day/year dates (11/29/2026)",
        re.compile(r"\b(?:0?[1-9]|1[0-2])/(?:1[3-9]|2\d|3[01])/\d{2,4}\b"),
    ),
    ("formats.date_dotted", "dotted dates (29.11.2026)", re.compile(r"\b\d{1,2}\.\d{1,2}\.\d{2,4}\b")),
    (
        "formats.date_day_month",
        "day-before-month dates (29th November)",
        re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?(?: of)? {_MONTHS}\b"),
    ),
    (
        "formats.date_month_day",
        "month-before-day dates (November 29th)",
        re.compile(rf"\b{_MONTHS} \d{{1,2}}(?:st|nd|rd|th)?\b"),
    ),
    ("formats.time_24h", "24-hour times (14:30)", re.compile(r"\b(?:1[3-9]|2[0-3]):[0-5]\d\b")),
    (
        "formats.time_ampm_dots",
        'times with "a.m./p.m."',
        re.compile(r"\b\d{1,2}(?::\d{2})?\s?[ap]\.m\.", re.I),
    ),
    (
        "formats.time_ampm",
        "times with am/pm (3pm, 3:00 PM)",
        re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b", re.I),
    ),
)
# Only code, links and addresses hide a format; numbers themselves are what we look at.
_HIDING = frozenset({"code", "url", "email", "handle", "tag"})


def observe(doc: Document, target: Target) -> list[Observation]:
    hiding = [(s, e) for s, e, kind in doc.protected if kind in _HIDING]
    observations = []
    for marker, label, pattern in _PATTERNS:
        spans = [
            Span(m.start(), m.end(), m.group(), None)
            for m in pattern.finditer(doc.text)
            if not any(s < m.end() and m.start() < e for s, e in hiding)
        ]
        observations.append(Observation(FAMILY, marker, label, spans))
    return observations

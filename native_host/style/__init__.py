"""Authorship markers: find the habits that identify a writer and neutralize the surface ones.

    analyze(text, profile=None) -> Report
    neutralize(text, target=None) -> (text, edits)
    protected_spans(text) -> [(start, end, kind)]

Offsets everywhere are Python string indices (Unicode code points), end exclusive.
"""

from __future__ import annotations

from native_host.style.analyze import analyze
from native_host.style.model import REPORT_VERSION, Edit, Finding, Report, Span, Target
from native_host.style.neutralize import apply_edits, neutralize
from native_host.style.profile import Profile, load_profile
from native_host.style.protect import protected_spans

__all__ = [
    "REPORT_VERSION",
    "Edit",
    "Finding",
    "Profile",
    "Report",
    "Span",
    "Target",
    "analyze",
    "apply_edits",
    "load_profile",
    "neutralize",
    "protected_spans",
]

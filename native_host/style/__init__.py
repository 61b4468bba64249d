"""Authorship markers: find the habits that identify a writer and neutralize the surface ones.

    analyze(text, profile=None) -> Report
    neutralize(text, target=None) -> (text, edits)
    protected_spans(text) -> [(start, end, kind)]

Offsets everywhere are Python string indices (Unicode code points), end exclusive.

`Profile` and `load_profile` are loaded on first use (PEP 562 `__getattr__`), not here: profile.py
imports this package's submodules, and importing it from here made the two import each other, which
broke when two threads imported them at once (the host's reader and worker; issue 14).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from native_host.style.analyze import analyze
from native_host.style.model import REPORT_VERSION, Edit, Finding, Report, Span, Target
from native_host.style.neutralize import apply_edits, neutralize
from native_host.style.protect import protected_spans

if TYPE_CHECKING:
    from native_host.style.profile import Profile, load_profile

_FROM_PROFILE = ("Profile", "load_profile")


def __getattr__(name: str) -> Any:
    if name in _FROM_PROFILE:
        from native_host.style import profile

        return getattr(profile, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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

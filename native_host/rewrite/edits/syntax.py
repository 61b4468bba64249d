"""Syntactic alternations (filled in below)."""

from __future__ import annotations

from native_host.rewrite.edits.text import Doc, Edit

FAMILY = "syntax"


def propose(doc: Doc) -> list[Edit]:
    return []

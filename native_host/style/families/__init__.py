"""One module per marker family. Each exposes FAMILY and `observe(doc, target) -> list[Observation]`.

Each also sets EDITS (False when it only reports, so the neutralizer can skip it).

The order is the neutralizer's priority when two families want to edit the same characters
(invisible characters first: they hide inside words other families look at).
"""

from __future__ import annotations

from types import ModuleType

from native_host.style.families import (
    capitalization,
    contractions,
    emoji,
    formats,
    function_words,
    greetings,
    invisible,
    layout,
    misspellings,
    phrases,
    punctuation,
    quotes,
    rhythm,
    slang,
    spelling,
    vocabulary,
)

FAMILIES: tuple[ModuleType, ...] = (
    invisible,
    emoji,
    slang,
    misspellings,
    greetings,
    spelling,
    quotes,
    punctuation,
    capitalization,
    layout,
    contractions,
    phrases,
    vocabulary,
    function_words,
    rhythm,
    formats,
)
FAMILY_NAMES: tuple[str, ...] = tuple(m.FAMILY for m in FAMILIES)
PRIORITY: dict[str, int] = {name: i for i, name in enumerate(FAMILY_NAMES)}

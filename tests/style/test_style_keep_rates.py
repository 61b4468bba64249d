"""Target(keep_mark_rates=True), what the medium and strong rewrites neutralize towards: dashes and one
consistent quote style are reported and kept, because taking their rates to zero is what the stealth
detector found the rewrites by (docs/decisions.md "The rewrite keeps the marks' rates"). The default
target (light, `fantasma neutralize`) still replaces them; both sides are checked here."""

from __future__ import annotations

import pytest

from native_host.style import Target, analyze, neutralize

KEEP = Target(keep_mark_rates=True)


@pytest.mark.parametrize(
    "text",
    [
        "She was kind — very kind — to us, and we stayed.",
        "The report was late—very late, in fact—and nobody read it.",
        "It was a long road -- longer than we thought -- and the night was cold.",
    ],
)
def test_dashes_are_kept_but_still_reported(text: str) -> None:
    assert neutralize(text, KEEP)[0] == text
    assert neutralize(text)[0] != text  # the default target still turns them into commas
    found = {f.marker for f in analyze(text * 3).findings}
    assert found & {"punctuation.em_dash", "punctuation.en_dash"}


def test_one_curly_style_is_kept() -> None:
    text = "He said “not today” and I’m sure he meant it; ‘soon’ was all he would add."
    assert neutralize(text, KEEP)[0] == text
    assert (
        neutralize(text)[0] == "He said \"not today\" and I'm sure he meant it; 'soon' was all he would add."
    )


def test_mixed_quote_styles_are_still_unified() -> None:
    text = 'He said “not today” and "maybe tomorrow" and I’m sure he meant it.'
    out, _ = neutralize(text, KEEP)
    assert "“" not in out and "’" not in out and out.count('"') == 4


def test_other_punctuation_markers_still_go() -> None:
    # the habits that are forms, not rates, are untouched by the flag
    text = "Wait!!! Is it true?! I think so... ok ."
    assert neutralize(text, KEEP)[0] == neutralize(text)[0] != text

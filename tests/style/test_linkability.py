"""One score, one level: the level the meter says is the level of the figure it shows (issue 43); and a
profile meter that knows no one a reader might suspect never says "unlikely" (it did not keep its promise
without rivals: docs/results.md, "The meter's calibration")."""

from __future__ import annotations

import numpy as np

from native_host import wording
from native_host.style import linkability


def test_a_score_shown_as_0_50_reads_likely_wherever_it_comes_from():
    for unlikely in (True, False):
        for score in (0.4951, 0.4996, 0.5, 0.5049):
            assert f"{score:.2f}" == "0.50"
            assert linkability.level(score, unlikely) == "likely", score
        for score in (0.2951, 0.2999, 0.3):
            assert linkability.level(score, unlikely) == "possibly", score
    assert linkability.level(0.2949, True) == "unlikely"


def test_every_score_reads_the_level_of_its_shown_figure():
    # every surface shows two decimals (summary._shown, the CLI, the composer's toFixed(2))
    for score in np.linspace(0.0, 1.0, 20001):
        shown = float(f"{score:.2f}")
        for unlikely in (True, False):
            assert linkability.level(float(score), unlikely) == linkability.level(shown, unlikely), (
                score,
                shown,
            )
        assert linkability.shown(float(score)) == shown


def test_without_rivals_a_profile_meter_holds_the_lowest_band_at_possibly_and_says_why():
    assert linkability.says_unlikely("profile", ["Ann"]) is True
    assert linkability.says_unlikely("profile", []) is False
    assert linkability.says_unlikely("typicality", []) is True  # its words say nothing of the writer
    for score in (0.0, 0.12, 0.2949):
        assert linkability.band(score) == "unlikely"
        assert linkability.level(score, False) == "possibly"
        assert linkability.held(score, False) and not linkability.held(score, True)
        assert linkability.words(score, "profile", False) == wording.LEVEL_WORDS_PROFILE["possibly"]
        assert linkability.words(score, "profile", True) == wording.LEVEL_WORDS_PROFILE["unlikely"]
    # above the lowest boundary nothing is held: the level is the band's
    for score in (0.3, 0.45, 0.5, 0.9):
        assert not linkability.held(score, False)
        assert linkability.level(score, False) == linkability.level(score, True) == linkability.band(score)

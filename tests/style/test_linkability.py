"""One score, one level: the level the meter says is the level of the figure it shows (issue 43)."""

from __future__ import annotations

import numpy as np

from native_host.style import linkability


def test_a_score_shown_as_0_50_reads_likely_wherever_it_comes_from():
    for score in (0.4951, 0.4996, 0.5, 0.5049):
        assert f"{score:.2f}" == "0.50"
        assert linkability.level(score) == "likely", score
    for score in (0.2951, 0.2999, 0.3):
        assert linkability.level(score) == "possibly", score
    assert linkability.level(0.2949) == "unlikely"


def test_every_score_reads_the_level_of_its_shown_figure():
    # every surface shows two decimals (summary._shown, the CLI, the composer's toFixed(2))
    for score in np.linspace(0.0, 1.0, 20001):
        shown = float(f"{score:.2f}")
        assert linkability.level(float(score)) == linkability.level(shown), (score, shown)
        assert linkability.shown(float(score)) == shown

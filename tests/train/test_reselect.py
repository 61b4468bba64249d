"""train.reselect: the ranking of a finished selection redone for other Delta weights (no engine)."""

from __future__ import annotations

from train.reselect import choose, summarize
from train.select import SelectionConfig

WINDOWS = [
    {
        "id": "w1",
        "source": "s1",
        "candidates": [
            {
                "n": 0,
                "rewrite": "a",
                "similarity": 0.99,
                "score_drop": 0.0,
                "z_drop": {"delta": -0.10, "char3": 0.0},
            },
            {
                "n": 2,
                "rewrite": "b",
                "similarity": 0.96,
                "score_drop": 0.0,
                "z_drop": {"delta": 0.05, "char3": 0.1},
            },
        ],
    },
    {
        "id": "w2",
        "source": "s2",
        "candidates": [
            {"n": 1, "rewrite": "c", "similarity": 0.97, "score_drop": 0.001, "z_drop": {"delta": -0.02}},
        ],
    },
]


def test_choose_follows_the_delta_weight():
    assert [e["n"] for e in choose(WINDOWS, SelectionConfig())] == [0, 1]  # meaning first, as rounds 1-3
    # 0.96 + 0.05 w > 0.99 - 0.10 w once w > 0.2
    assert [e["n"] for e in choose(WINDOWS, SelectionConfig(w_delta=0.1))] == [0, 1]
    assert [e["n"] for e in choose(WINDOWS, SelectionConfig(w_delta=0.5))] == [2, 1]


def test_summary_counts_examples_that_raise_a_family():
    chosen = choose(WINDOWS, SelectionConfig())
    summary = summarize(chosen)
    assert summary["examples"] == 2 and summary["raising_z"]["delta"] == 2
    assert summary["mean_z_drop"]["delta"] == -0.06
    assert summarize([]) == {"examples": 0}

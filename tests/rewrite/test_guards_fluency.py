"""The fluency guard on labelled edits, with the default model through the engine: it rejects edits
broken on purpose and passes most natural ones, rarer synonyms included (calibration table in
docs/anonymization.md; the cases and their labels in fluency_cases.py)."""

from __future__ import annotations

import pytest

from native_host.rewrite import guards, search
from native_host.rewrite.edits import Edit
from tests.rewrite.fluency_cases import CASES, NATURAL, SURVIVORS


@pytest.fixture(scope="module")
def drops(default_model_dir) -> dict[int, float]:
    """fluency_drop of every case, as the search measures it (edit alone in its window)."""
    from native_host.engine import Engine

    checks = search.SearchChecks(None, Engine.load(default_model_dir))
    out: dict[int, float] = {}
    for k, (_, _, sentence, old, new) in enumerate(CASES):
        assert sentence.count(old) == 1, (sentence, old)
        start = sentence.index(old)
        [drop] = search.fluency_drops(
            sentence, [Edit(start, start + len(old), new, "lexical", "test", True)], checks
        )
        assert drop is not None
        out[k] = drop
    return out


def _passes(drop: float) -> bool:
    return guards.check_fluency(drop).ok


def test_edits_broken_in_form_are_rejected(drops):
    """Word order, doubled and dropped words, scrambles: every one fails."""
    kinds = ("broken: order", "broken: doubled", "broken: dropped", "broken: scramble")
    broken = [k for k, case in enumerate(CASES) if case[1] in kinds]
    assert len(broken) >= 14
    passed = [CASES[k][3:] for k in broken if _passes(drops[k])]
    assert not passed


def test_natural_rarer_synonyms_pass(drops):
    """Correct synonyms rarer than the word they replace: the language model pays for their rarity,
    the guard forgives part of it (guards.RARITY_WEIGHT)."""
    wanted = {("y on", "y upon"), ("short", "brief"), ("dangerous", "hazardous"), ("veteran", "seasoned")}
    found = {(c[3], c[4]): k for k, c in enumerate(CASES) if (c[3], c[4]) in wanted}
    assert set(found) == wanted
    for pair, k in found.items():
        assert CASES[k][0] == NATURAL
        assert _passes(drops[k]), (pair, drops[k])
        assert guards.rarity_nats(*_window_texts(k)) > 1.0, pair  # they are rarer
    # the correction is what lets some correct rarer synonyms through: without it, at least one of the
    # labelled natural edits fails (which one depends on the weights: 'on' -> 'upon' with the base model,
    # 'short' -> 'brief' with the shipped one)
    natural = [k for k, c in enumerate(CASES) if c[0] == NATURAL]
    let_through = [
        CASES[k][3:]
        for k in natural
        if _passes(drops[k])
        and not _passes(drops[k] + guards.RARITY_WEIGHT * guards.rarity_nats(*_window_texts(k)))
    ]
    assert let_through


def _window_texts(k: int) -> tuple[str, str]:
    _, _, sentence, old, new = CASES[k]
    return sentence, sentence.replace(old, new)


def test_labelled_set_confusion(drops):
    """Most natural edits pass and most unnatural ones fail. Measured 2026-12-01: with the shipped
    default model (adapter merged, the one the tests export) 59 of 76 natural passed and 48 of 60
    unnatural were rejected; with the base model, 61 and 45. The cases read in the search's output after the guard
    ("eval chunks ..." origins) are left out here: their unnatural ones are there because the guard
    passed them (a biased sample; research/probes/fluency_calibration.py reports them apart)."""
    calibration = [k for k, c in enumerate(CASES) if not c[1].startswith(SURVIVORS)]
    natural = [k for k in calibration if CASES[k][0] == NATURAL]
    unnatural = [k for k in calibration if CASES[k][0] != NATURAL]
    natural_passed = sum(_passes(drops[k]) for k in natural)
    unnatural_rejected = sum(not _passes(drops[k]) for k in unnatural)
    print(
        f"natural passed {natural_passed}/{len(natural)}, unnatural rejected {unnatural_rejected}/{len(unnatural)}"
    )
    assert natural_passed >= 0.7 * len(natural)
    assert unnatural_rejected >= 0.7 * len(unnatural)


def test_rarity_counts_replaced_words_only():
    assert guards.rarity_nats("the usual condition", "the customary condition") > 2.0
    assert guards.rarity_nats("the customary condition", "the usual condition") == 0.0
    # an added rare word earns nothing: forgiving insertions would pass scrambles
    assert guards.rarity_nats("upon the porch", "on of porch the the porch") == pytest.approx(
        guards.rarity_nats("upon the porch", "on of the porch")
    )
    assert guards.rarity_nats("", "") == 0.0

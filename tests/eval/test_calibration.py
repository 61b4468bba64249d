"""The meter's calibration (`fantasma eval`, eval/calibration.py) on a small real run: every test text,
original and rewritten, at the level the meter shows for it, and each attacker's accuracy per level."""

from __future__ import annotations

import json

import pytest

from native_host.cli import main
from native_host.eval import calibration
from native_host.eval.attackers import ATTACKERS
from native_host.style import linkability


@pytest.mark.slow
def test_per_level_accuracies_add_up_to_the_attackers_accuracies(tmp_path, capsys, models_in_home):
    out = tmp_path / "report"
    args = ["eval", "--corpora", "problemC:5", "--chunks-per-author", "1", "--train-chunks", "4"]
    assert main([*args, "--strength", "light", "--profile", "--out", str(out), "--quiet"]) == 0
    table = capsys.readouterr().out
    report = json.loads((out / "eval_report.json").read_text())
    cal = report["calibration"]
    assert cal["setting"] == "--profile" and cal["attackers"] == sorted(ATTACKERS)
    corpus = report["corpora"][0]
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    # each text sits at the level the meter shows for its score (before for originals, after for rewrites)
    for kind, key in (("original", "identifiability_before"), ("rewritten", "identifiability_after")):
        counts = {lv: cal["kinds"][kind]["levels"][lv]["texts"] for lv in linkability.LEVELS}
        # --profile without --rivals: the meter never says "unlikely" (linkability.says_unlikely)
        expected = {
            lv: sum(linkability.level(s[key], False) == lv for s in samples) for lv in linkability.LEVELS
        }
        assert counts["unlikely"] == 0
        assert counts == expected and sum(counts.values()) == len(samples) == 5
        for name in ATTACKERS:
            # the texts at each level, weighted, give the attacker's accuracy in the attacker table
            right = sum(
                cell["texts"] * cell["attackers"][name]
                for cell in cal["kinds"][kind]["levels"].values()
                if cell["texts"]
            )
            assert right / len(samples) == pytest.approx(corpus["attackers"][name][kind])
            assert cal["kinds"][kind]["overall"]["attackers"][name] == pytest.approx(
                corpus["attackers"][name][kind]
            )
    both = cal["kinds"]["all"]["levels"]
    assert sum(c["texts"] for c in both.values()) == 10
    assert all(c["chance"] == pytest.approx(0.2) for c in both.values() if c["texts"])
    # the table printed, and the same made again from the report's texts
    assert "the meter's calibration" in table and "promise (at 'unlikely'" in table
    again = calibration.calibrate(calibration.from_report(report))
    assert again["kinds"] == cal["kinds"] and again["promise_kept"] == cal["promise_kept"]
    # the same texts at the same levels, judged again by attackers that read them with kept words masked
    masked = cal["kept_words_masked"]
    assert [(t["kind"], t["score"]) for t in masked["texts"]] == [
        (t["kind"], t["score"]) for t in cal["texts"]
    ]
    assert "with the words the writer keeps masked" in table


def test_mask_kept_hides_what_the_writer_keeps_and_nothing_else() -> None:
    from native_host.eval.attackers import KEPT_MASK, mask_kept

    text = "Captain Bowen sailed to Boston with two million dollars of coffee. The coffee was sold there."
    masked = mask_kept(text)
    for kept in ("Bowen", "Boston", "million", "coffee"):
        assert kept not in masked, kept
    assert masked.count(KEPT_MASK) >= 5
    for small in (" to ", " with ", "dollars of", "The ", "was sold there."):
        assert small in masked, small


def _texts(right_at_unlikely: int) -> list[calibration.Placed]:
    """10 texts the meter puts at "unlikely" (3 candidates), `right_at_unlikely` of them named by both
    attackers, and 10 at "likely", all named."""
    low = [
        calibration.Placed("c", "rewritten", 0.2, 1 / 3, {"a": i < right_at_unlikely, "b": False})
        for i in range(10)
    ]
    return low + [calibration.Placed("c", "original", 0.6, 1 / 3, {"a": True, "b": True})] * 10


def test_the_promise_is_every_attacker_within_chance_plus_10_at_unlikely():
    kept = calibration.calibrate(_texts(4))  # 40% against 33.3% + 10
    assert kept["promise_kept"] is True
    assert kept["kinds"]["rewritten"]["levels"]["unlikely"]["attackers"] == {"a": 0.4, "b": 0.0}
    assert kept["kinds"]["all"]["overall"]["attackers"]["a"] == pytest.approx(0.7)
    assert calibration.calibrate(_texts(5))["promise_kept"] is False  # 50%
    # nothing at "unlikely": nothing promised, and the table says so
    none = calibration.calibrate([t for t in _texts(0) if t.score > 0.5])
    assert none["promise_kept"] is None
    assert "no text at 'unlikely'" in calibration.format_lines(none)[-1]
    # other boundaries, as the tuning probe asks: "unlikely" below 0.7 takes in every text
    wide = calibration.calibrate(_texts(4), likely=0.8, possibly=0.7)
    assert wide["kinds"]["all"]["levels"]["unlikely"]["texts"] == 20 and wide["promise_kept"] is False

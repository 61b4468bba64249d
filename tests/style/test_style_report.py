"""Report JSON shape (docs/report-format.md), scoring, and profile ranking, in process."""

from __future__ import annotations

import json
from pathlib import Path

from native_host.style import REPORT_VERSION, Profile, analyze, load_profile
from native_host.style.profile import ProfileError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "forum_post.txt"

FINDING_KEYS = {
    "family",
    "marker",
    "label",
    "count",
    "rate_per_1k",
    "baseline_per_1k",
    "identifiability",
    "personal",
    "evidence",
    "spans",
}


def test_report_json_is_stable() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    report = analyze(text).to_json()
    assert report.keys() == {"version", "score", "words", "characters", "profile_used", "reasons", "findings"}
    assert report["version"] == REPORT_VERSION == 1
    json.dumps(report)  # plain JSON types only
    for f in report["findings"]:
        assert f.keys() == FINDING_KEYS
        assert 0.0 <= f["identifiability"] <= 1.0
        for span in f["spans"]:
            assert span.keys() == {"start", "end", "text", "replacement"}
            assert text[span["start"] : span["end"]] == span["text"]
    ranks = [f["identifiability"] for f in report["findings"]]
    assert ranks == sorted(ranks, reverse=True)


def test_score_and_reasons() -> None:
    plain = analyze("The committee met on Tuesday and agreed on the budget for the coming year.")
    marked = analyze(EXAMPLE.read_text(encoding="utf-8"))
    assert plain.score < 30 < 80 < marked.score
    assert 1 <= len(marked.reasons) <= 5 and all(isinstance(r, str) and r for r in marked.reasons)
    assert plain.reasons == ()


def test_profile_ranks_the_persons_own_habits_first(tmp_path: Path) -> None:
    profile = Profile()
    for i in range(3):
        profile.learn(
            f"Text number {i}. Honestly; it works; mostly; at the end of the day it is fine; we go on. " * 8
        )
    assert "punctuation.semicolon" in profile.distinctive_markers()
    assert "end of the day" in profile.habitual_phrases()
    profile.save()
    loaded = load_profile()
    assert loaded is not None and loaded.to_dict() == profile.to_dict()
    text = "Hiya all!! Well; at the end of the day it is fine, tbh."
    without = analyze(text)
    with_profile = analyze(text, loaded)
    assert with_profile.profile_used and not without.profile_used
    firsts = [f.marker for f in with_profile.findings if f.personal]
    assert {"punctuation.semicolon", "phrases.habitual"} <= set(firsts)
    assert with_profile.findings[0].personal
    assert without.findings[0].marker not in firsts


def test_profile_storage_errors(tmp_path: Path) -> None:
    assert load_profile(tmp_path / "none.msgpack") is None
    bad = tmp_path / "bad.msgpack"
    bad.write_bytes(b"\x93\x01\x02")
    try:
        load_profile(bad)
    except ProfileError as exc:
        assert "different version" in str(exc) or "corrupt" in str(exc)
    else:
        raise AssertionError("a corrupt profile must raise ProfileError")


def test_scoring_maths() -> None:
    import math

    from native_host.style import baseline

    assert math.isclose(baseline.poisson_surprise(2, 1.0), -math.log10(1 - 2 * math.exp(-1)), rel_tol=1e-9)
    tail = 1 - math.exp(-0.5) * (1 + 0.5 + 0.125)
    assert math.isclose(baseline.poisson_surprise(3, 0.5), -math.log10(tail), rel_tol=1e-9)
    assert baseline.poisson_surprise(2, 5.0) == 0.0  # fewer than expected is not surprising
    assert baseline.poisson_surprise(5000, 0.001) > 1000  # no overflow far in the tail
    assert math.isclose(baseline.normal_surprise(1.959964), -math.log10(0.05), rel_tol=1e-4)
    assert baseline.identifiability(0.0) == 0.0
    assert 0.62 < baseline.identifiability(3.0) < 0.64

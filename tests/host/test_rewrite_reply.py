"""`rewrite` replies have one shape on every path: `markers_before`/`markers_after` are marker summaries
(PROTOCOL.md §3 `rewrite`), whether the language model took part or the pipeline fell back to the
neutralizer (no model, or the light strength)."""

from __future__ import annotations

from typing import Any

from native_host.host.client import HostProcess, host_env

SAMPLE = "Honestly, I realise the colour was off!!! Anyway... see you tomorrow :) — Jo. Gonna be gr8 tbh."


def assert_marker_summary(value: Any) -> None:
    assert isinstance(value, dict) and set(value) == {"score", "count", "families"}, value
    assert isinstance(value["score"], int) and 0 <= value["score"] <= 100, value
    assert isinstance(value["count"], int) and not isinstance(value["count"], bool), value
    families = value["families"]
    assert isinstance(families, dict) and all(isinstance(n, int) and n > 0 for n in families.values())
    assert sum(families.values()) == value["count"], value


def expected_summary(text: str) -> dict[str, Any]:
    from native_host import style
    from native_host.style.markers import markers_summary

    return markers_summary(style.analyze(text))


def test_neutralizer_fallback_reports_marker_summaries(isolated_home):
    with HostProcess(env=host_env()) as host:  # no model in this home: the pipeline falls back
        hello = host.result("hello")
        assert hello["rewrite_path"] == "llm" and hello["model"]["state"] == "not_installed", hello
        result = host.result("rewrite", {"text": SAMPLE, "options": {"strength": "medium"}}, timeout=90)
        assert result["path"] == "neutralizer" and "model unavailable" in result["reason"], result
        for key in ("markers_before", "markers_after"):
            assert_marker_summary(result[key])
        # the same numbers the pipeline would report for the same texts
        assert result["markers_before"] == expected_summary(SAMPLE)
        assert result["markers_after"] == expected_summary(result["text"])
        assert result["markers_after"]["count"] < result["markers_before"]["count"]
        assert host.close() == 0
    assert not host.violations


def test_pipeline_reply_reports_marker_summaries(isolated_home):
    with HostProcess() as host:
        assert host.result("hello")["rewrite_path"] == "llm"
        result = host.result("rewrite", {"text": SAMPLE, "options": {"strength": "light"}}, timeout=90)
        assert result["path"] == "neutralizer" and not result.get("windows"), result
        for key in ("markers_before", "markers_after"):
            assert_marker_summary(result[key])
        assert result["markers_before"] == expected_summary(SAMPLE)
        assert host.close() == 0


def test_markers_after_count_what_analyze_of_the_result_counts_with_a_profile(isolated_home):
    """The card's "N habits left" (markers_after) and the markers panel on the rewritten text (`analyze`,
    which reads the profile) count the same habits: the markers after are counted with the profile too,
    so a habitual phrase the rewrite left is in both."""
    habitual = "At the end of the day, I reckon the plan holds up. At the end of the day we ship it. "
    text = "At the end of the day, the colour is fine!!! I reckon the plan holds up, mate."
    with HostProcess() as host:
        host.result("profile.add", {"text": habitual * 6})
        result = host.result("rewrite", {"text": text, "options": {"strength": "light"}}, timeout=90)
        after = host.result("analyze", {"text": result["text"]}, timeout=90)
        assert any(f["marker"] == "phrases.habitual" for f in after["findings"]), after["findings"]
        habits = sum(max(1, len(f["spans"])) for f in after["findings"])
        assert result["markers_after"]["count"] == habits, (result["markers_after"], after["findings"])
        assert result["markers_after"]["families"].get("phrases"), result["markers_after"]
        assert host.close() == 0

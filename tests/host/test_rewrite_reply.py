"""`rewrite` replies have one shape on both paths: `markers_before`/`markers_after` are marker summaries
(PROTOCOL.md §3 `rewrite`), whether the pipeline answered or the host's own neutralizer fallback did."""

from __future__ import annotations

import textwrap
from typing import Any

from tests.host.hostproc import HostProcess, host_env

SAMPLE = "Honestly, I realise the colour was off!!! Anyway... see you tomorrow :) — Jo. Gonna be gr8 tbh."

# Makes `import native_host.rewrite` fail in the host process the way a missing pipeline does.
BLOCK_PIPELINE = textwrap.dedent(
    """
    import importlib.abc, sys

    class _NoPipeline(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "native_host.rewrite" or name.startswith("native_host.rewrite."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, _NoPipeline())
    """
)


def assert_marker_summary(value: Any) -> None:
    assert isinstance(value, dict) and set(value) == {"score", "count", "families"}, value
    assert isinstance(value["score"], int) and 0 <= value["score"] <= 100, value
    assert isinstance(value["count"], int) and not isinstance(value["count"], bool), value
    families = value["families"]
    assert isinstance(families, dict) and all(isinstance(n, int) and n > 0 for n in families.values())
    assert sum(families.values()) == value["count"], value


def expected_summary(text: str) -> dict[str, Any]:
    from native_host import style
    from native_host.rewrite.pipeline import markers_summary

    return markers_summary(style.analyze(text))


def test_neutralizer_fallback_reports_marker_summaries(tmp_path, isolated_home):
    (tmp_path / "sitecustomize.py").write_text(BLOCK_PIPELINE)
    env = host_env(PYTHONPATH=str(tmp_path))
    with HostProcess(env=env) as host:
        assert host.result("hello")["rewrite_path"] == "neutralizer"
        result = host.result("rewrite", {"text": SAMPLE, "options": {"strength": "medium"}}, timeout=90)
        assert result["path"] == "neutralizer" and "not installed" in result["reason"], result
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

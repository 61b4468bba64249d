"""The `rewrite` reply, built in one place (native_host/rewrite/reply.py) from a real result: the result's
fields in their order, then `model` and `summary`; the model's note first in `reason`; both figures scored
as the profile setting says. And the words it says live in a module that imports nothing
(native_host/wording.py), so every room may read them."""

from __future__ import annotations

import ast
from pathlib import Path

import native_host
from native_host.rewrite import RewriteOptions, rewrite
from native_host.rewrite.reply import build_reply
from native_host.settings import PROFILE_OFF

SAMPLE = "Honestly, I realise the colour was off!!! Anyway... see you tomorrow :) — Jo. Gonna be gr8 tbh."
NOTE = "the chosen model 'big' failed to load (no model.onnx); the embedded model answers"
MODEL = {"name": "smollm2", "architecture": "llama", "hybrid": False, "layers": 30, "embedded": True}


def test_the_reply_is_the_results_fields_then_the_model_and_the_summary(isolated_home):
    result = rewrite(SAMPLE, RewriteOptions(strength="light"))
    assert result.text != SAMPLE and result.identifiability_before is None  # light runs no search
    reply = build_reply(result, use_profile=True, model=MODEL, model_note=NOTE)
    assert list(reply) == [*result.to_json(), "model", "guide", "summary"]  # the wire order, PROTOCOL.md
    assert reply["model"] == MODEL
    assert reply["reason"] == "; ".join(part for part in (NOTE, result.reason) if part)
    # both figures scored here: `before` of the original, `after` of the rewritten text (each report's
    # sentence spans cover the text it scored), against the samples (none yet: typicality, and the
    # report says why, not that the profile is off)
    before, after = reply["identifiability_before"], reply["identifiability_after"]
    assert before["sentences"][-1][1] == len(SAMPLE.rstrip()), before["sentences"]
    assert after["sentences"][-1][1] == len(result.text.rstrip()), after["sentences"]
    assert before["score"] != after["score"]
    for figure in (before, after):
        assert figure["mode"] == "typicality" and figure["message"] != PROFILE_OFF, figure
        assert "no writing samples" in figure["message"]
    # the summary is built from this reply's own fields: its counts, its figures, the model's note first
    words = reply["summary"]
    assert words["markers"]["before"] == result.markers_before["count"] > 0
    assert words["markers"]["after"] == result.markers_after["count"]
    assert words["identifiability"]["before"] == before["score"]
    assert words["identifiability"]["after"] == after["score"]
    removed = result.markers_before["count"] - result.markers_after["count"]
    assert words["headline"].startswith(f"{removed} habits removed, {result.markers_after['count']} left")
    assert words["details"][0] == "The chosen model 'big' failed to load (no model.onnx)."


def test_without_the_profile_the_figures_say_it_is_off_and_no_model_is_named(isolated_home):
    result = rewrite(SAMPLE, RewriteOptions(strength="light", use_profile=False))
    reply = build_reply(result, use_profile=False)
    assert reply["model"] is None and reply["reason"] == result.reason
    for key in ("identifiability_before", "identifiability_after"):
        assert reply[key]["mode"] == "typicality" and reply[key]["message"] == PROFILE_OFF, reply[key]


def test_the_words_import_nothing():
    """native_host/wording.py sits at the bottom of the import table: the standard library only."""
    path = Path(native_host.__file__).parent / "wording.py"
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
    assert imported <= {"__future__"}, imported


def test_the_reply_names_the_sentences_of_the_rewrite_that_still_give_the_writer_away(isolated_home):
    """`guide`: the guide's report of the rewritten text (not the original), scored as the after figure."""
    text = (
        "Honestly, I realise the colour was off!!! Whilst we waited upon the stairs, Jo read. Cheers, mate."
    )
    result = rewrite(text, RewriteOptions(strength="light"))
    assert result.text != text
    reply = build_reply(result, use_profile=True)
    guide = reply["guide"]
    assert guide["score"] == round(reply["identifiability_after"]["score"], 4)
    assert guide["level"] == reply["summary"]["identifiability"]["levels"][1]
    spans = [(s["start"], s["end"]) for s in guide["sentences"]]
    assert len(spans) == 3 and spans[-1][1] <= len(reply["text"])
    assert [reply["text"][a:b] for a, b in spans][-1].startswith("Cheers")
    assert all(0 <= i < len(spans) for i in guide["top"])
    assert build_reply(rewrite("   ", RewriteOptions(strength="light")), use_profile=True)["guide"] is None

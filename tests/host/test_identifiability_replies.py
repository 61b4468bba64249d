"""Identifiability in the host's replies (PROTOCOL.md `analyze`, `rewrite`, `profile.*`), over real pipes:
typicality with no samples, the user's own samples once `profile.add` has them, gone after `profile.clear`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.style.identify import FAMILIES, IdentifiabilityReport

PROTOCOL = Path(__file__).resolve().parents[2] / "PROTOCOL.md"


@pytest.fixture(scope="module")
def federalist():
    """Hamilton's and Madison's chunks: real writing of two authors (the user is 'Hamilton')."""
    return split_corpus(find_corpus("federalist", load_manifest()), 2, 3, 6)


def check_report(report: dict, text: str) -> None:
    assert set(report) == {"score", "families", "linked_by", "sentences", "mode", "message", "rivals"}
    assert 0.0 <= report["score"] <= 1.0 and set(report["families"]) == set(FAMILIES)
    assert set(report["linked_by"]) <= set(FAMILIES)
    assert report["linked_by"] == [f for f in FAMILIES if report["families"][f] >= 0.5]
    assert report["mode"] in ("profile", "typicality")
    for start, end, _ in report["sentences"]:
        assert 0 <= start < end <= len(text)


def test_every_reply_carries_identifiability_and_samples_switch_it_to_the_profile(host, federalist):
    hamilton = [c.text for c in federalist.train if c.author == "Hamilton"]
    test_text = next(c.text for c in federalist.test if c.author == "Hamilton")

    # No samples yet: typicality, and the report says why.
    report = host.result("analyze", {"text": test_text})["identifiability"]
    check_report(report, test_text)
    assert report["mode"] == "typicality" and "no writing samples" in report["message"]

    rewrite = host.result("rewrite", {"text": test_text, "options": {"strength": "light"}}, timeout=90)
    check_report(rewrite["identifiability_before"], test_text)
    check_report(rewrite["identifiability_after"], rewrite["text"])
    assert rewrite["identifiability_before"]["score"] == pytest.approx(report["score"], abs=1e-4)

    # Samples through the host, as the options page sends them: two ~250-word pieces per request.
    for k in range(0, len(hamilton), 2):
        added = host.result("profile.add", {"text": "\n\n".join(hamilton[k : k + 2])}, timeout=60)["profile"]
    assert added["samples"] >= len(hamilton) - 1 and isinstance(added["phrases"], list)
    assert host.result("profile.show")["profile"]["samples"] == added["samples"]

    scores = {}
    for chunk in federalist.test:
        report = host.result("analyze", {"text": chunk.text}, timeout=60)["identifiability"]
        check_report(report, chunk.text)
        assert report["mode"] == "profile" and report["message"] == ""
        scores.setdefault(chunk.author, []).append(report["score"])
    # The samples are Hamilton's: his held-out chunks link to them more than Madison's do.
    assert sum(scores["Hamilton"]) > sum(scores["Madison"]), scores

    rewrite = host.result("rewrite", {"text": test_text, "options": {"strength": "light"}}, timeout=90)
    assert rewrite["identifiability_before"]["mode"] == rewrite["identifiability_after"]["mode"] == "profile"

    # use_profile false: typicality even with samples stored.
    plain = host.result("analyze", {"text": test_text, "use_profile": False})["identifiability"]
    assert plain["mode"] == "typicality" and plain["message"] == ""

    assert host.result("profile.clear") == {"cleared": True}
    assert host.result("analyze", {"text": test_text})["identifiability"]["mode"] == "typicality"


def test_protocol_documents_the_report_fields_the_code_sends():
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("**Identifiability report**", 1)[1].split("### ", 1)[0]
    documented = re.findall(r"^\|\s*`(\w+)`\s*\|", section, flags=re.MULTILINE)
    report = IdentifiabilityReport(0.5, dict.fromkeys(FAMILIES, 0.5), [], [], "typicality")
    assert documented == list(report.to_json())
    rewrite_section = text.split("### `rewrite`", 1)[1].split("### ", 1)[0]
    assert "`identifiability_before`" in rewrite_section and "`identifiability_after`" in rewrite_section
    assert '"identifiability"' in text.split("### `analyze`", 1)[1].split("### ", 1)[0]

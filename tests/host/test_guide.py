"""The guide over real pipes (PROTOCOL.md `guide`, `guide.alternatives`): per-sentence scores and how
they relate to the text's score, a sentence stuffed with the writer's own habits ranked first, other
wordings that never touch the other sentences or protected spans, and clear errors for bad spans."""

from __future__ import annotations

import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.host.errors import ErrorCode
from native_host.style import reasons
from native_host.style.identify import FAMILIES
from native_host.style.sentences import sentence_spans

# Plain modern sentences, nothing like an 18th-century essayist.
PLAIN = [
    "We met at the station just after nine and walked to the market.",
    "The stalls were busy, and the fish looked fresh.",
    "My sister bought bread and a bag of apples for the train.",
    "We talked about her new job and the flat she hopes to rent.",
    "It rained a little on the way back, so we stopped for coffee.",
    "The café near the bridge had one free table by the window.",
]
# Hamilton's habits (the Federalist: "upon", "ought", long Latinate clauses), in one sentence.
STUFFED = (
    "Upon the whole, it is evident that the powers of the Union ought to be considered upon principles of "
    "the utmost importance to the safety of the States, and upon this ground the government must be vested "
    "with energy."
)
CODES = set(FAMILIES)


@pytest.fixture(scope="module")
def hamilton() -> list[str]:
    """Hamilton's training chunks of the Federalist: the samples of a writer with strong habits."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 2, 3, 6)
    return [c.text for c in split.train if c.author == "Hamilton"]


def stuffed_text() -> str:
    return " ".join([*PLAIN[:3], STUFFED, *PLAIN[3:]])


def add_samples(host, texts: list[str]) -> None:
    for k in range(0, len(texts), 2):
        host.result("profile.add", {"text": "\n\n".join(texts[k : k + 2])}, timeout=60)


def check_guide(reply: dict, text: str) -> None:
    assert set(reply) == {
        "score",
        "level",
        "level_words",
        "mode",
        "compared_with",
        "message",
        "families",
        "sentences",
        "top",
        "needs_suspects",
    }
    # a profile meter that knows no one a reader might suspect says "possibly" at most (linkability.py)
    no_suspects = reply["mode"] == "profile" and "you named" not in reply["compared_with"]
    assert reply["needs_suspects"] == (no_suspects and round(reply["score"], 2) < 0.3)
    assert not (no_suspects and reply["level"] == "unlikely")
    assert [(s["start"], s["end"]) for s in reply["sentences"]] == sentence_spans(text)
    positive = [s["weight"] for s in reply["sentences"] if s["weight"] > 0]
    shares = [s["share"] for s in reply["sentences"]]
    if positive:
        assert sum(shares) == pytest.approx(1.0, abs=2e-3)
    for index, s in enumerate(reply["sentences"]):
        # the share of the give-away: of the sentences that feed the attackers, by weight
        expected = max(0.0, s["weight"]) / sum(positive) if positive else 0.0
        assert s["share"] == pytest.approx(expected, abs=1e-3)
        # the sentence's contribution is the mean of its families' (as the score is the families' mean)
        assert s["contribution"] == pytest.approx(sum(s["families"].values()) / 3, abs=1e-4)
        # "enough": this sentence's gain alone takes the shown score below "possibly", where the meter may
        # say "unlikely"
        enough = (
            not no_suspects
            and reply["level"] != "unlikely"
            and s["share"] >= 0.005
            and round(reply["score"] - s["gain"], 2) < 0.3
            and index in reply["top"]  # said only of a sentence the guide names to reword
        )
        assert s["enough"] == enough, s
        for words in s["feeds"] + s["reasons"]:
            assert not any(code in words for code in CODES), words
        if not s["weight"] > 0:
            assert s["reasons"] == []
    ranked = sorted(
        (i for i, s in enumerate(reply["sentences"]) if s["weight"] > 0),
        key=lambda i: -reply["sentences"][i]["weight"],
    )
    assert reply["top"] == ranked[:3]


def test_guide_scores_relate_to_the_score_and_the_writers_own_habits_rank_first(host, hamilton):
    text = stuffed_text()
    # No samples: typicality, and the reply says what it compared with.
    plain = host.result("guide", {"text": text})
    check_guide(plain, text)
    assert plain["mode"] == "typicality" and plain["compared_with"] == "writers in general (no samples yet)"
    assert plain["level_words"] in (
        "stands out from other writers",
        "stands out a little from other writers",
        "reads like many other writers",
    )

    add_samples(host, hamilton)
    reply = host.result("guide", {"text": text}, timeout=60)
    check_guide(reply, text)
    assert reply["mode"] == "profile" and reply["compared_with"].startswith("your ")
    # The score is the identifiability report's, and a contribution is the score minus the score of the
    # text without that sentence (as `analyze` scores it).
    report = host.result("analyze", {"text": text})["identifiability"]
    assert reply["score"] == pytest.approx(report["score"], abs=1e-4)
    top = reply["sentences"][reply["top"][0]]
    assert text[top["start"] : top["end"]] == STUFFED, (top, reply["top"])
    without = text[: top["start"]] + text[top["end"] :]
    rest = host.result("analyze", {"text": without})["identifiability"]["score"]
    assert top["contribution"] == pytest.approx(reply["score"] - rest, abs=2e-3)
    # Its gain is the score minus the score of the text with the sentence reduced to the words the
    # writer keeps (here the names "Union" and "States"): what rewording it can take off the meter.
    kept = reasons.kept_of(STUFFED, reasons.keep_words(text))
    assert "Union" in kept and "upon" not in kept, kept
    reduced = text[: top["start"]] + kept + text[top["end"] :]
    rest_kept = host.result("analyze", {"text": reduced})["identifiability"]["score"]
    assert top["gain"] == pytest.approx(reply["score"] - rest_kept, abs=2e-3)
    assert top["share"] > 0.5 and top["reasons"], top
    assert any("upon" in r or "ought" in r for r in top["reasons"]), top["reasons"]
    # With the text as it was (`previous`), the changed sentence's reasons say what its new wording brought in.
    was = " ".join([*PLAIN[:3], *PLAIN[3:]])
    again = host.result("guide", {"text": text, "previous": was}, timeout=60)
    assert again["sentences"][again["top"][0]]["reasons"][0].startswith(
        "your new wording brought this in: '"
    ), again

    # A sentence typed in: the reply is for the new text (the host's cache keeps only counts).
    longer = text + " Then we went home."
    check_guide(host.result("guide", {"text": longer}), longer)
    # use_profile false: typicality again, with the samples stored.
    assert host.result("guide", {"text": text, "use_profile": False})["mode"] == "typicality"


def test_bad_spans_and_params_get_a_clear_error(host):
    text = stuffed_text()
    spans = sentence_spans(text)
    bad = [
        ({"text": text, "start": spans[1][0], "end": spans[2][1]}, "not one sentence"),  # two sentences
        ({"text": text, "start": spans[1][0] + 1, "end": spans[1][1]}, "not one sentence"),  # part of one
        ({"text": text, "start": 5, "end": 2}, "start"),
        ({"text": text, "start": 0, "end": len(text) + 10}, "end"),
        ({"text": text, "start": "0", "end": spans[0][1]}, "start"),
        ({"text": text, "end": spans[0][1]}, "start"),
        ({"text": "  ", "start": 0, "end": 1}, "empty"),
    ]
    for params, words in bad:
        reply = host.request("guide.alternatives", params)
        assert reply["type"] == "error", (params, reply)
        assert reply["error"]["code"] == ErrorCode.invalid_params and words in reply["error"]["message"], (
            reply
        )
    for params in (
        {"text": 3},
        {"text": ""},
        {"text": "x", "use_profile": "yes"},
        {"text": "x", "previous": 3},
    ):
        reply = host.request("guide", params)
        assert reply["type"] == "error" and reply["error"]["code"] == ErrorCode.invalid_params, reply


# Hamilton's habits again, around spans a rewrite must keep byte for byte: a URL, a number, a name the
# user protects (settings `protected_terms`).
GUARDED = (
    "Upon the whole, as https://example.org/plan shows, Publius held that the 13 States ought to be "
    "considered upon principles of the utmost importance, and upon this ground the government must be "
    "vested with energy."
)
KEPT = ("https://example.org/plan", "Publius", "13")


def test_alternatives_change_only_that_sentence_keep_protected_spans_and_lower_the_score(
    models_installed, hamilton
):
    from native_host.host.client import HostProcess

    text = " ".join([*PLAIN[:2], GUARDED, *PLAIN[2:]])
    with HostProcess() as host:
        host.result("settings.set", {"settings": {"protected_terms": ["Publius"]}})
        add_samples(host, hamilton)
        start, end = next((s, e) for s, e in sentence_spans(text) if text[s:e] == GUARDED)

        # A cancel while the models load: the job stops with `cancelled`, nothing else is sent.
        rid = host.send("guide.alternatives", {"text": text, "start": start, "end": end})
        host.send("cancel", {"target": rid})
        reply, _ = host.final(rid, timeout=120)
        assert reply["type"] == "error" and reply["error"]["code"] == ErrorCode.cancelled, reply

        guided = host.result("guide", {"text": text})
        rid = host.send("guide.alternatives", {"text": text, "start": start, "end": end})
        reply, progress = host.final(rid, timeout=300)
        assert reply["type"] == "result", reply
        found = reply["result"]
        assert (found["start"], found["end"]) == (start, end)
        assert found["score"] == pytest.approx(guided["score"], abs=1e-4)
        assert {p["stage"] for p in progress} >= {"alternatives"}
        assert 1 <= len(found["alternatives"]) <= 3, found
        for alt in found["alternatives"]:
            new = alt["text"]
            assert new[:start] == text[:start] and new[alt["end"] :] == text[end:], alt
            assert new[alt["start"] : alt["end"]] == alt["sentence"] != GUARDED
            assert all(kept in alt["sentence"] for kept in KEPT), alt["sentence"]
            assert alt["changes"] and alt["source"] in ("rules", "model")
            assert alt["score"] < found["score"]
            # the figure is the whole text's, as `guide` scores the text with the alternative in it
            assert host.result("guide", {"text": new})["score"] == pytest.approx(alt["score"], abs=1e-4)
        scores = [alt["score"] for alt in found["alternatives"]]
        assert scores == sorted(scores)
        assert (
            host.result("guide.alternatives", {"text": text, "start": start, "end": end, "max": 1})[
                "alternatives"
            ]
            == found["alternatives"][:1]
        )
        assert host.close() == 0 and host.violations == []

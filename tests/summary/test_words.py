"""The rewrite summary's words (native_host/rewrite/summary.py, from native_host/wording.py): no family code ever reaches them, a figure
that got worse says so and why, and the next step is the one that helps most. Replies built by hand for
every case, and real ones: the real pipeline (light strength, no model) and the real identifiability
model on real texts."""

from __future__ import annotations

import json
import re

import pytest

from native_host import wording
from native_host.rewrite import summary
from native_host.settings import PROFILE_OFF
from native_host.style import linkability
from native_host.style.families import FAMILY_NAMES
from native_host.style.identify import FAMILIES

# What a person cannot read: the attacker families, the marker families' code names, the model's words.
CODES = sorted({*FAMILIES, *(f for f in FAMILY_NAMES if "_" in f), "typicality", "linked_by", "mode"})
SAMPLE = "Honestly, I realise this colour is gorgeous!!! :) Cheers, mate. I'll send it tomorrow, innit."


def words(built: dict) -> list[str]:
    """Every string of the summary a surface shows."""
    out = [built["headline"], *built["details"], built["next_step"] or "", *built["markers"]["left"]]
    out.append(built["next_step_browser"] or "")
    figure = built["identifiability"]
    if figure is not None:
        out += [figure["text"], figure["line"], *figure["shown"]]
    return out


def assert_no_code(text: str) -> None:
    for code in CODES:
        assert not re.search(rf"\b{re.escape(code)}\b", text), (code, text)


def assert_plain(built: dict) -> None:
    for text in words(built):
        assert_no_code(text)


def report(
    score: float,
    families: dict[str, float] | None = None,
    mode: str = "profile",
    message: str = "",
    rivals: list[str] | None = None,
) -> dict:
    families = families or dict.fromkeys(FAMILIES, score)
    return {
        "score": score,
        "families": families,
        "linked_by": [f for f in FAMILIES if families[f] >= 0.5],
        "sentences": [],
        "mode": mode,
        "message": message,
        "rivals": rivals or [],
    }


def reply(before: dict | None, after: dict | None, **extra) -> dict:
    base = {
        "text": "rewritten",
        "edits": [{"start": 0, "end": 1}],
        "markers_before": {
            "score": 80,
            "count": 14,
            "families": {"slang": 6, "rhythm": 1, "function_words": 7},
        },
        "markers_after": {"score": 20, "count": 2, "families": {"rhythm": 1, "function_words": 1}},
        "path": "llm",
        "reason": "",
        "strength": "medium",
        "cancelled": False,
        "identifiability_before": before,
        "identifiability_after": after,
        "search": {"applied": [{"family": "lexical"}], "words_changed": 3},
        "model": {"name": "smollm2-135m-instruct-int4", "embedded": True},
    }
    return {**base, **extra}


NO_SAMPLES = "no writing samples yet (fantasma profile add); scored by typicality instead"
CASES = {
    "profile, lower": reply(report(0.82), report(0.41, {"char3": 0.6, "delta": 0.3, "function_words": 0.33})),
    "profile, higher, light": reply(report(0.64), report(0.75), strength="light", search=None, model=None),
    "profile, higher, searched": reply(report(0.5), report(0.58)),
    "profile, same, rivals": reply(report(0.97, rivals=["Ann", "Bob"]), report(0.968, rivals=["Ann", "Bob"])),
    "typicality, no samples": reply(
        report(0.99, mode="typicality", message=NO_SAMPLES),
        report(0.97, mode="typicality", message=NO_SAMPLES),
    ),
    "typicality, profile off": reply(
        report(0.9, mode="typicality", message=PROFILE_OFF),
        report(0.8, mode="typicality", message=PROFILE_OFF),
    ),
    "no model": reply(
        report(0.9, mode="typicality", message=NO_SAMPLES),
        report(0.95, mode="typicality", message=NO_SAMPLES),
        path="neutralizer",
        search=None,
        reason="model unavailable, used the neutralizer: language model not installed; run: fantasma setup",
    ),
    "no figures": reply(None, None),
    "cancelled": reply(None, None, cancelled=True, edits=[], markers_before={}, markers_after={}),
    "more markers": reply(
        report(0.3),
        report(0.2),
        markers_before={"count": 1, "families": {"function_words": 1}},
        markers_after={"count": 3, "families": {"function_words": 2, "phrases": 1}},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_family_code_ever_appears(case):
    built = summary.build(CASES[case])
    assert built["headline"]
    assert_plain(built)
    json.dumps(built)  # the reply is JSON


def test_the_headline_says_what_changed_and_how_much_harder_to_link():
    built = summary.build(CASES["profile, lower"])
    assert built["headline"] == (
        "12 habits removed, 2 left: favourite small words, sentence rhythm; the text is now possibly linked "
        "to you (before: likely)."
    )
    assert built["identifiability"] == {
        "before": 0.82,
        "after": 0.41,
        "shown": ["0.82", "0.41"],
        "direction": "lower",
        "mode": "profile",
        "levels": ["likely", "possibly"],
        "level_words": ["likely to be linked to you", "possibly linked to you"],
        "held": False,
        "text": "identifiability 0.82 → 0.41",
        "line": "identifiability 0.82 → 0.41 · much harder to link to you",
    }
    assert "3 words changed to hide your style." in built["details"]
    assert "The letter patterns of your spelling still points to you." not in built["details"]
    assert "The letter patterns of your spelling still point to you." in built["details"]


def test_a_figure_that_got_worse_says_so_and_why():
    light = summary.build(CASES["profile, higher, light"])
    assert light["identifiability"]["direction"] == "higher"
    assert "the text is still likely to be linked to you (more than before)" in light["headline"]
    assert "easier to link to you than before" in light["identifiability"]["line"]
    worse = [d for d in light["details"] if d.startswith("Worse than before")]
    assert len(worse) == 1 and "light strength only fixes surface habits" in worse[0], light["details"]

    searched = summary.build(CASES["profile, higher, searched"])
    worse = [d for d in searched["details"] if d.startswith("Worse than before")]
    assert len(worse) == 1 and "more than the edits that keep your meaning could undo" in worse[0], searched

    no_model = summary.build(CASES["no model"])
    assert "still stands out from other writers (a little more than before)" in no_model["headline"]
    assert "stands out a little more from other writers than before" in no_model["identifiability"]["line"]
    worse = [d for d in no_model["details"] if d.startswith("Worse than before")]
    assert len(worse) == 1 and "without the language model" in worse[0], no_model["details"]

    # Better or unchanged figures never say "worse".
    for case in ("profile, lower", "profile, same, rivals", "typicality, no samples"):
        assert not any("Worse" in d for d in summary.build(CASES[case])["details"]), case


def test_the_digits_are_rounded_once_here():
    """Every surface shows these digits; JavaScript's toFixed(2) would say 0.63 and 0.13 (ties round up)."""
    built = summary.build(reply(report(0.625, rivals=["Ann"]), report(0.125, rivals=["Ann"])))
    assert built["identifiability"]["shown"] == ["0.62", "0.12"]
    assert built["identifiability"]["text"] == "identifiability 0.62 → 0.12"
    assert built["identifiability"]["levels"] == ["likely", "unlikely"]  # 0.625 ≥ 0.5 > 0.3 > 0.125


def test_the_same_digits_read_as_unchanged():
    built = summary.build(CASES["profile, same, rivals"])
    assert built["identifiability"]["direction"] == "same"
    assert built["headline"].endswith("; but the text is still likely to be linked to you.")
    assert built["identifiability"]["line"].startswith("identifiability 0.97 → 0.97 · about as easy to link")
    assert built["identifiability"]["line"].endswith(" · compared with 2 people you named")
    assert "Compared with your own writing and that of 2 people you named (Ann, Bob)." in built["details"]


@pytest.mark.parametrize(
    ("case", "changes", "step"),
    [
        ("no model", {}, "install_model"),
        ("typicality, no samples", {}, "add_samples"),
        ("typicality, no samples", {"strength": "light"}, "strong"),  # light aims at nothing
        ("typicality, profile off", {}, "strong"),  # the user turned the samples off: not asked again
        ("profile, lower", {}, "strong"),
        ("profile, lower", {"strength": "strong"}, "stronger_model"),
        ("profile, lower", {"strength": "strong", "model": {"name": "q", "embedded": False}}, "add_rivals"),
        (
            "profile, same, rivals",
            {"strength": "strong", "model": {"name": "q", "embedded": False}},
            "by_hand",
        ),
        ("no figures", {}, "reinstall"),
        ("cancelled", {}, None),
    ],
)
def test_the_next_step_is_the_one_that_helps_most(case, changes, step):
    built = summary.build({**CASES[case], **changes})
    assert built["next"] == step
    assert built["next_step"] == (summary.next_step_text(step) if step else None)
    assert built["next_step_browser"] == (summary.next_step_text(step, browser=True) if step else None)
    if step == "stronger_model":
        assert "`fantasma setup --model " in built["next_step"]
        assert "`fantasma setup --model " in built["next_step_browser"]  # the browser cannot install


# Steps a person in the browser can take on the options page: no terminal command in their words.
ON_THE_OPTIONS_PAGE = ("add_samples", "strong", "add_rivals")


@pytest.mark.parametrize("step", ON_THE_OPTIONS_PAGE)
def test_the_browser_words_send_a_browser_user_to_the_options_page_not_a_terminal(step):
    cli, browser = summary.next_step_text(step), summary.next_step_text(step, browser=True)
    assert "`fantasma" in cli  # the command line keeps its command
    assert "options page" in browser and "`" not in browser and "fantasma " not in browser, browser
    assert set(wording.NEXT_STEPS_IN_BROWSER) == set(wording.NEXT_STEPS)


@pytest.mark.parametrize("case", ["profile, lower", "typicality, no samples", "typicality, profile off"])
def test_the_standing_of_a_text_is_said_in_the_cards_words_for_the_text_after(case):
    """`analyze`'s `standing` (the markers panel) says of a text what the card says of the text after a
    rewrite: the same level words and the same line on what still stands out."""
    built = summary.build(CASES[case])
    after = CASES[case]["identifiability_after"]
    standing = summary.standing(after)
    assert standing["level_words"] == built["identifiability"]["level_words"][1]
    assert standing["level"] == built["identifiability"]["levels"][1]
    assert standing["level_words"] in built["headline"]
    assert standing["headline"].startswith("This text ") and standing["level_words"] in standing["headline"]
    assert standing["strands"] in built["details"]
    assert all(note in built["details"] for note in standing["notes"])
    for text in [standing["headline"], standing["strands"], *standing["notes"]]:
        assert_no_code(text)
    assert (standing["caveat"] != "") == (standing["level"] == "unlikely" and case.startswith("profile"))
    assert standing["caveat"] in ("", wording.UNLIKELY_CAVEAT)
    assert summary.standing(None) is None


def test_the_markers_panel_says_what_unlikely_does_not_read_in_profile_mode_only():
    unlinked = {"score": 0.12, "families": {}, "linked_by": [], "sentences": [], "mode": "profile"}
    named = {**unlinked, "rivals": ["Ann"]}
    assert summary.standing(named)["level"] == "unlikely"
    assert summary.standing(named)["caveat"] == wording.UNLIKELY_CAVEAT
    assert summary.standing({**named, "score": 0.45})["caveat"] == ""
    assert summary.standing({**unlinked, "mode": "typicality"})["caveat"] == ""
    # no one named a reader might suspect: "possibly", and how to let the meter say more
    held = summary.standing(unlinked)
    assert held["level"] == "possibly" and held["level_words"] == "possibly linked to you"
    assert held["caveat"] == wording.NEEDS_SUSPECTS
    assert summary.standing({**unlinked, "score": 0.45})["caveat"] == ""


def test_nothing_left_to_link_suggests_nothing_with_samples_and_samples_without():
    unlinked = {"char3": 0.2, "delta": 0.3, "function_words": 0.1}
    done = summary.build(reply(report(0.7), report(0.2, unlinked)))
    assert done["next"] is None and "Nothing in it points to you any more." in done["details"]
    plain = summary.build(
        reply(
            report(0.7, mode="typicality", message=NO_SAMPLES),
            report(0.2, unlinked, "typicality", NO_SAMPLES),
        )
    )
    assert plain["next"] == "add_samples"
    assert "Nothing in it stands out from other writers any more." in plain["details"]
    assert (
        "Fantasma has no samples of your writing yet, so the text was compared with writers in general, not with you."
        in plain["details"]
    )


def test_cancelled_and_unmeasured_replies_say_so():
    cancelled = summary.build(CASES["cancelled"])
    assert cancelled["headline"] == "Cancelled before anything was rewritten; the text is unchanged."
    assert cancelled["identifiability"] is None
    unmeasured = summary.build(CASES["no figures"])
    assert "could not be measured" in unmeasured["headline"] and unmeasured["identifiability"] is None
    more = summary.build(CASES["more markers"])
    assert more["headline"].startswith(
        "2 more habits than before (1 → 3): favourite small words, pet phrases;"
    )


@pytest.mark.parametrize(
    "text",
    [
        SAMPLE,
        "ok so i was like totally gonna go but then lol i didnt... anyway c u tmrw!!! xoxo",
        "The committee, having considered the matter at length, resolved that the proposal be deferred; "
        "it is, however, the opinion of this writer that such a delay can only injure the public good.",
    ],
)
def test_real_replies_from_the_pipeline_and_the_identifiability_model(isolated_home, text):
    """The real light rewrite and the real identifiability model (typicality: no samples in this home)."""
    from native_host.rewrite import RewriteOptions, rewrite
    from native_host.rewrite.reply import build_reply

    result = rewrite(text, RewriteOptions(strength="light"))
    finished = build_reply(result, use_profile=True)
    built = finished["summary"]
    assert built == summary.build(finished)
    assert_plain(built)
    before, after = finished["identifiability_before"], finished["identifiability_after"]
    assert before["mode"] == after["mode"] == "typicality"
    assert built["identifiability"]["shown"] == [f"{before['score']:.2f}", f"{after['score']:.2f}"]
    # the headline says the level in words (the scale of style/linkability.py), never a bare number
    assert not re.search(r"\d\.\d", built["headline"]), built["headline"]
    after_words = linkability.words(after["score"], "typicality", True)
    assert after_words in built["headline"] and after_words == built["identifiability"]["level_words"][1]
    assert built["markers"] == {
        "before": finished["markers_before"]["count"],
        "after": finished["markers_after"]["count"],
        "left": [
            summary.habit_words(f)
            for f in sorted(
                finished["markers_after"]["families"],
                key=lambda f: (-finished["markers_after"]["families"][f], f),
            )
        ],
    }
    if built["identifiability"]["direction"] == "higher":
        assert any(d.startswith("Worse than before") for d in built["details"])
    assert built["next"] in ("strong", "add_samples")  # light, no samples: never "nothing to do"


def test_every_family_has_words():
    assert set(wording.ATTACKER_WORDS) == set(FAMILIES)
    assert set(wording.HABIT_WORDS) == set(FAMILY_NAMES)


@pytest.mark.parametrize(
    ("strength", "text", "families", "said"),
    [
        (
            "medium",
            "late — long after — we left; “ok”",
            {"punctuation": 2, "quotes": 2},
            "dashes and curly quotes",
        ),
        ("strong", "late -- we left", {"punctuation": 1}, "dashes"),
        ("medium", "late, we left", {"punctuation": 1}, None),  # no dash in the text: a semicolon habit
        ("light", "late — we left", {"punctuation": 1}, None),  # light turns them plain; nothing was kept
    ],
)
def test_kept_dashes_and_quotes_are_explained(strength, text, families, said):
    built = summary.build(
        reply(
            report(0.8),
            report(0.7),
            strength=strength,
            text=text,
            markers_after={"score": 10, "count": sum(families.values()), "families": families},
        )
    )
    lines = [d for d in built["details"] if "kept on purpose" in d]
    if said is None:
        assert lines == []
    else:
        assert lines == [
            f"Your {said} were kept on purpose: a text stripped of them is easier to spot as rewritten (light strength turns them plain)."
        ]
    assert_plain(built)


def test_habits_removed_but_still_linked_is_one_message_not_two():
    """The card once read "8 habits removed, none left; the text stands out from other writers about as
    much as before (identifiability 1.00 → 1.00)": two messages and a bare number. Now one sentence that
    says the level in words and that it is in spite of the removed habits."""
    built = summary.build(
        reply(
            report(1.0, mode="typicality", message=NO_SAMPLES),
            report(0.999, mode="typicality", message=NO_SAMPLES),
            markers_before={"count": 8, "families": {"slang": 8}},
            markers_after={"count": 0, "families": {}},
        )
    )
    assert (
        built["headline"] == "8 habits removed, none left; but the text still stands out from other writers."
    )
    assert built["identifiability"]["line"].startswith("identifiability 1.00 → 1.00")  # the number, on demand
    better = summary.build(
        reply(
            report(0.7, rivals=["Ann"]),
            report(0.2, rivals=["Ann"]),
            markers_after={"count": 0, "families": {}},
        )
    )
    assert better["headline"] == (
        "14 habits removed, none left; the text is now unlikely to be linked to you (before: likely)."
    )
    # without anyone named a reader might suspect, the meter goes no lower than "possibly"
    held = summary.build(reply(report(0.7), report(0.2), markers_after={"count": 0, "families": {}}))
    assert (
        held["headline"]
        == "14 habits removed, none left; the text is now possibly linked to you (before: likely)."
    )
    assert wording.NEEDS_SUSPECTS in held["details"] and held["identifiability"]["held"] is True


@pytest.mark.parametrize(
    ("after", "caveat"),
    [
        (report(0.2, {"char3": 0.2, "delta": 0.3, "function_words": 0.1}, rivals=["Ann"]), True),
        (report(0.29, rivals=["Ann"]), True),  # the last shown digits below "possibly" (0.30)
        (report(0.2, {"char3": 0.2, "delta": 0.3, "function_words": 0.1}), False),  # no rivals: "possibly"
        (report(0.41, {"char3": 0.6, "delta": 0.3, "function_words": 0.33}), False),
        (report(0.75), False),
        (report(0.2, {"char3": 0.2, "delta": 0.3, "function_words": 0.1}, "typicality", NO_SAMPLES), False),
        (report(0.2, mode="typicality", message=PROFILE_OFF), False),
    ],
    ids=[
        "profile unlikely",
        "profile 0.29",
        "profile held at possibly",
        "profile possibly",
        "profile likely",
        "typicality",
        "profile off",
    ],
)
def test_unlikely_in_profile_mode_says_what_the_level_does_not_read(after, caveat):
    """Where the card says the text is now "unlikely to be linked to you", it also says that only how the
    writer writes was measured: names, places, numbers and the subject can still point to them (the writer
    study: a letter-pattern attacker still names the writer about half the time there, through what the
    writer keeps). Not at "possibly" or "likely", not in typicality mode (which says nothing of the writer)."""
    before = report(0.8, mode=after["mode"], message=after["message"], rivals=after["rivals"])
    built = summary.build(reply(before, after))
    said = wording.UNLIKELY_CAVEAT in built["details"]
    assert said == caveat, built["details"]
    assert_plain(built)
    if caveat:
        assert "the text is now unlikely to be linked to you" in built["headline"], built["headline"]
        assert built["details"].count(wording.UNLIKELY_CAVEAT) == 1
        # right after the line on what still points to the writer, which it qualifies
        at = built["details"].index(wording.UNLIKELY_CAVEAT)
        assert built["details"][at - 1] == summary.strands_line(after), built["details"]
        assert wording.UNLIKELY_CAVEAT == (
            "Only how you write was measured, against the people you named, and that is no guarantee: someone "
            "you did not name, names, places, numbers and what the "
            "text is about can still point to you."
        )
    else:
        assert not any("names, places, numbers" in d for d in built["details"]), built["details"]

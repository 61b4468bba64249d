"""A rewrite's outcome in plain words: the `summary` of the `rewrite` reply (PROTOCOL.md), which the page,
the popup and `fantasma rewrite` show.

    finish(reply, original, use_profile) -> reply   both identifiability figures, then `summary`; the one
                                                    step that ends a rewrite reply, in the host and the CLI
    build(reply) -> dict                            the summary, from the reply JSON alone
    standing(report) -> dict                        an `analyze` report's level and what stands out, in
                                                    the card's words (the markers panel shows them)
    strands_line(report) -> str                     which parts of the style still stand out, in words
    mode_notes(report) -> [str]                     what the figure compared the text with, and why

No family code ("char3", "delta", "function_words", marker family names) reaches the words: every family
is said by what a reader would notice (the attackers are described in docs/anonymization.md). The numbers
are formatted here, once, so the page and the CLI show the same digits.
"""

from __future__ import annotations

import logging
from typing import Any

from native_host.rewrite.options import SEARCH_STRENGTHS
from native_host.settings import PROFILE_OFF
from native_host.style import linkability

log = logging.getLogger(__name__)

ATTACKER_WORDS = linkability.ATTACKER_WORDS  # the families in words (one home: style/linkability.py)
# The marker families of native_host/style/families/ (FAMILY), as habits a person recognises.
HABIT_WORDS = {
    "invisible": "invisible characters",
    "emoji": "emoji",
    "slang": "slang and abbreviations",
    "misspellings": "misspellings",
    "greetings": "greetings and sign-offs",
    "spelling": "British or American spelling",
    "quotes": "the style of your quotes and apostrophes",
    "punctuation": "punctuation habits",
    "capitalization": "capital letters",
    "layout": "line breaks and spacing",
    "contractions": "contractions",
    "phrases": "pet phrases",
    "vocabulary": "rare words",
    "function_words": "favourite small words",
    "rhythm": "sentence rhythm",
    "formats": "number and date formats",
}
SINGULAR = frozenset({ATTACKER_WORDS["delta"]})  # the phrases above that take "stands out", not "stand out"
LINK_THRESHOLD = 0.5  # as native_host/style/identify.py: a report at or above this still links the text
# |after - before| below these reads "a little", below the second plain, else "much".
A_LITTLE, PLAIN = 0.05, 0.15
MOST_NAMED = 3  # habits named in the headline; the rest are counted
NEXT_STEPS = {
    "reinstall": "Reinstall Fantasma: the data it compares writing with is missing or damaged.",
    "install_model": "Install the language model with `fantasma setup`: without it only surface habits are fixed.",
    "add_samples": (
        "Add a few pages of your own writing (options page, “Your writing profile”, or `fantasma profile add "
        "FILE`), so the rewrite aims at what gives you away."
    ),
    "strong": (
        "Rewrite at strong strength (options page, or `fantasma rewrite --strength strong`): it changes up to "
        "a quarter of the words to hide your style."
    ),
    "stronger_model": (
        # the command `models` and the options page offer (native_host/host/model_choice.py)
        "Install a stronger rewriting model: `{install_command}` (the options page's Model section lists "
        "what is installed)."
    ),
    "add_rivals": (
        "Add some writing of the people a reader might suspect (options page, or `fantasma profile add "
        "--rival NAME FILE`): the rewrite then aims at what tells you apart from them."
    ),
    "by_hand": (
        "Reword by hand the sentences that still sound like you: “Write privately…” shades the ones that give "
        "you away most and offers other wordings."
    ),
}
# The same steps for someone in the browser (the card, the popup): the options page, where it can do the
# step; a terminal command only where the browser cannot (installing software). Same keys as NEXT_STEPS.
NEXT_STEPS_IN_BROWSER = {
    **NEXT_STEPS,
    "add_samples": (
        "Add a few pages of your own writing on the options page, under “Your writing profile”, so the "
        "rewrite aims at what gives you away."
    ),
    "strong": (
        "Choose “strong” as the strength on the options page and rewrite again: it changes up to a quarter "
        "of the words to hide your style."
    ),
    "stronger_model": (
        "Install a stronger rewriting model (in a terminal: `{install_command}`); the options page's Model "
        "section then lets you choose it."
    ),
    "add_rivals": (
        "On the options page, add some writing of the people a reader might suspect: the rewrite then aims "
        "at what tells you apart from them."
    ),
}


def finish(reply: dict[str, Any], original: str, use_profile: bool) -> dict[str, Any]:
    """The reply with both identifiability figures (the pipeline's own where its search ran, else scored
    here: the original text and the result, against the stored samples, or by typicality when
    `use_profile` is off) and its `summary`. The host's `rewrite` and `fantasma rewrite` both end with this,
    so they report the same figures for the same text."""
    if reply.get("identifiability_before") is None:
        reply["identifiability_before"] = score(original, use_profile)
    if reply.get("identifiability_after") is None:
        reply["identifiability_after"] = score(reply["text"], use_profile)
    reply["summary"] = build(reply)
    return reply


def score(text: str, use_samples: bool, note: str = PROFILE_OFF) -> dict[str, Any] | None:
    """IdentifiabilityReport.to_json() of `text` against the stored writing samples (typicality without
    them), or by typicality when `use_samples` is off: then the samples and rivals are not read and
    `note` is the report's message. None, logged, when there is nothing to score against."""
    from native_host.style.identify import Identifiability
    from native_host.style.samples import IdentifyError

    try:
        report = Identifiability.load("stored" if use_samples else None).score(text).to_json()
    except Exception as exc:  # a figure for the user, never a reason to lose the rewrite itself
        log.warning("identifiability unavailable: %s", exc, exc_info=not isinstance(exc, IdentifyError))
        return None
    if not use_samples and note:
        report["message"] = note
    return report


def build(reply: dict[str, Any]) -> dict[str, Any]:
    """{"headline", "details", "next_step", "next_step_browser", "next", "markers", "identifiability"} for
    a rewrite reply (PROTOCOL.md `rewrite`, `summary`)."""
    before, after = reply.get("identifiability_before"), reply.get("identifiability_after")
    markers = _markers(reply)
    if reply.get("cancelled") and not reply.get("edits"):
        return {
            "headline": "Cancelled before anything was rewritten; the text is unchanged.",
            "details": [],
            "next_step": None,
            "next_step_browser": None,
            "next": None,
            "markers": markers,
            "identifiability": None,
        }
    figure = _figure(before, after) if before and after else None
    headline = _markers_phrase(markers)
    if figure is None:
        headline += "; how easy the text is to link to you could not be measured here."
    else:
        removed = markers["after"] < markers["before"]
        better = figure["levels"][1] != figure["levels"][0] and figure["direction"] == "lower"
        joint = "; but" if removed and not better and figure["levels"][1] != "unlikely" else ";"
        headline += f"{joint} {_link_phrase(figure)}."
    if reply.get("cancelled"):
        headline = "Stopped part-way. " + headline
    details = _details(reply, before, after, figure)
    step = _next_step(reply, after)
    return {
        "headline": headline,
        "details": details,
        "next_step": next_step_text(step) if step else None,
        "next_step_browser": next_step_text(step, browser=True) if step else None,
        "next": step,
        "markers": markers,
        "identifiability": None if figure is None else {k: v for k, v in figure.items() if k != "words"},
    }


# How a typicality level read before the rewrite (linkability.words says the present one).
_TYPICALITY_BEFORE = {
    "likely": "it stood out",
    "possibly": "it stood out a little",
    "unlikely": "it read like many others",
}


def _link_phrase(figure: dict[str, Any]) -> str:
    """'the text is still likely to be linked to you (a little less than before)', 'the text now reads like
    many other writers (before: it stood out)': the level of linkability.py in words, no number (the card
    shows the number on demand, `line`)."""
    level_before, level_after = figure["levels"]
    now = figure["level_words"][1]
    is_ = "" if figure["mode"] == "typicality" else "is "
    if level_before == level_after:
        phrase = f"the text {is_}still {now}"
        if figure["direction"] != "same":
            how = _how_much(abs(figure["after"] - figure["before"]))
            phrase += f" ({how}{'less' if figure['direction'] == 'lower' else 'more'} than before)"
        return phrase
    was = _TYPICALITY_BEFORE[level_before] if figure["mode"] == "typicality" else level_before
    return f"the text {is_}now {now} (before: {was})"


def standing(report: dict[str, Any] | None) -> dict[str, Any] | None:
    """An identifiability report in the words the after-rewrite card uses for the text after: its level
    (linkability.py), which parts still stand out (strands_line) and what it was compared with. The
    markers panel shows it, so the panel and the card say the same of the same text. None without one."""
    if not report:
        return None
    mode = "profile" if report.get("mode") == "profile" else "typicality"
    now = linkability.words(report["score"], mode)
    return {
        "headline": f"This text {'is ' if mode == 'profile' else ''}{now}.",
        "level": linkability.level(report["score"]),
        "level_words": now,
        "strands": strands_line(report),
        "notes": mode_notes(report),
    }


# --- the parts ----------------------------------------------------------------------------------------


def _markers(reply: dict[str, Any]) -> dict[str, Any]:
    before, after = reply.get("markers_before") or {}, reply.get("markers_after") or {}
    families = after.get("families") or {}
    left = sorted(families, key=lambda f: (-families[f], f))
    return {
        "before": int(before.get("count") or 0),
        "after": int(after.get("count") or 0),
        "left": [habit_words(f) for f in left],
    }


def _markers_phrase(markers: dict[str, Any]) -> str:
    """'14 habits removed, 2 left: sentence rhythm, pet phrases'."""
    before, after, left = markers["before"], markers["after"], markers["left"]
    named = ", ".join(left[:MOST_NAMED]) + (
        f" and {_n(len(left) - MOST_NAMED, 'other kind')}" if len(left) > MOST_NAMED else ""
    )
    if before == 0 and after == 0:
        return "No habits to remove"
    if after == 0:
        return f"{_n(before, 'habit')} removed, none left"
    if after < before:
        return f"{_n(before - after, 'habit')} removed, {after} left: {named}"
    if after == before:
        return f"No habit removed, {after} left: {named}"
    return f"{_n(after - before, 'more habit')} than before ({before} → {after}): {named}"


def _figure(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The identifiability figure: both scores, how they are shown, which way it moved, and in words."""
    shown_before, shown_after = _shown(before["score"]), _shown(after["score"])
    change = after["score"] - before["score"]
    direction = "same" if shown_before == shown_after else ("lower" if change < 0 else "higher")
    typicality = after.get("mode") != "profile"
    how = "" if direction == "same" else _how_much(abs(change))
    if typicality:
        words = {
            "same": "stands out from other writers about as much as before",
            "lower": f"stands out {how}less from other writers",
            "higher": f"stands out {how}more from other writers than before",
        }[direction]
    else:
        words = {
            "same": "is about as easy to link to you as before",
            "lower": f"is {how}harder to link to you",
            "higher": f"is {how}easier to link to you than before",
        }[direction]
    text = f"identifiability {shown_before} → {shown_after}"
    people = len(after.get("rivals") or [])
    line = f"{text} · {words.removeprefix('is ')}" + (" (no writing samples)" if typicality else "")
    if people:
        line += f" · compared with {people} {'person' if people == 1 else 'people'} you named"
    mode = "typicality" if typicality else "profile"
    levels = [linkability.level(before["score"]), linkability.level(after["score"])]
    return {
        "before": before["score"],
        "after": after["score"],
        "shown": [shown_before, shown_after],
        "direction": direction,
        "mode": mode,
        # the one scale the composer's meter speaks (style/linkability.py): the card's words, no number
        "levels": levels,
        "level_words": [linkability.words(before["score"], mode), linkability.words(after["score"], mode)],
        "text": text,
        "line": line,
        "words": words,
    }


def _shown(score: float) -> str:
    """A score as every surface shows it (two decimals, rounded here, never by each surface)."""
    return f"{score:.2f}"


def _how_much(change: float) -> str:
    return "a little " if change < A_LITTLE else ("" if change < PLAIN else "much ")


def _details(
    reply: dict[str, Any], before: dict | None, after: dict | None, figure: dict | None
) -> list[str]:
    out: list[str] = []
    reason = str(reply.get("reason") or "")
    if "the chosen model" in reason:
        out.append(_sentence(reason.split(";")[0]))
    if "model unavailable" in reason:
        why = reason.split("model unavailable", 1)[1].split(": ", 1)[-1].split(";")[0].strip()
        out.append(
            "The language model is not installed, so only surface habits were fixed."
            if "not installed" in why
            else f"The language model could not be loaded ({why}), so only surface habits were fixed."
        )
    words_changed = (reply.get("search") or {}).get("words_changed")
    if words_changed:
        out.append(f"{_n(words_changed, 'word')} changed to hide your style.")
    if kept := _kept_marks(reply):
        out.append(
            f"Your {kept} were kept on purpose: a text stripped of them is easier to spot as rewritten "
            "(light strength turns them plain)."
        )
    if after is None or before is None or figure is None:
        return out
    out.append(strands_line(after))
    if figure["direction"] == "higher":
        out.append(_why_worse(reply, before, after))
    out.extend(mode_notes(after))
    return out


def _kept_marks(reply: dict[str, Any]) -> str:
    """'dashes and curly quotes' where a medium or strong rewrite kept them (Target.keep_mark_rates) and
    the analysis still counts them as habits; '' otherwise."""
    families = (reply.get("markers_after") or {}).get("families") or {}
    if reply.get("strength") not in SEARCH_STRENGTHS:
        return ""
    text = str(reply.get("text") or "")
    kept = []
    if "punctuation" in families and any(d in text for d in ("—", "–", "--")):
        kept.append("dashes")
    if "quotes" in families and any(q in text for q in "“”‘’"):
        kept.append("curly quotes")
    return " and ".join(kept)


def strands_line(report: dict[str, Any]) -> str:
    """'The letter patterns of your spelling and your choice of common words still stand out.' (which
    parts of the style still link the text, or in which it stands out from other writers)."""
    linked = [attacker_words(f) for f in report.get("linked_by") or []]
    typicality = report.get("mode") != "profile"
    if not linked:
        return (
            "Nothing in it stands out from other writers any more."
            if typicality
            else "Nothing in it points to you any more."
        )
    verb = _verb(linked, "stands out" if typicality else "points to you")
    return _sentence(f"{_join(linked)} still {verb}")


def _why_worse(reply: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> str:
    """Why the figure rose: which parts moved, and what in this rewrite let them."""
    rises = {
        f: after["families"][f] - before["families"].get(f, 0.0)
        for f in after.get("families") or {}
        if f in (before.get("families") or {})
    }
    rose = [f for f, d in sorted(rises.items(), key=lambda kv: -kv[1]) if d >= 0.01] or (
        [max(rises, key=lambda f: rises[f])] if rises else []
    )
    search = reply.get("search")
    reason = str(reply.get("reason") or "")
    if reply.get("strength") == "light":
        why = "light strength only fixes surface habits and does not watch this figure"
    elif "model unavailable" in reason:
        why = "without the language model only surface habits were fixed, and nothing watched this figure"
    elif search is not None and not search.get("applied"):
        why = "fixing the surface habits moved it, and no edit that keeps your meaning brought it back down"
    elif search is not None:
        why = "fixing the surface habits moved it more than the edits that keep your meaning could undo"
    else:
        why = "the new wording moved it"
    named = [attacker_words(f) for f in rose] or ["the text"]
    verb = _verb(named, "stands out more" if after.get("mode") != "profile" else "points to you more")
    return f"Worse than before: {_join(named)} now {verb}, because {why}."


def mode_notes(report: dict[str, Any]) -> list[str]:
    """What an identifiability report compared the text with, when that is not simply your samples."""
    message = str(report.get("message") or "")
    rivals = report.get("rivals") or []
    if report.get("mode") == "profile":
        notes = []
        if rivals:
            people = f"{len(rivals)} {'person' if len(rivals) == 1 else 'people'}"
            notes.append(
                f"Compared with your own writing and that of {people} you named ({', '.join(rivals)})."
            )
        if "rivals" in message:
            notes.append("The writing of the people you named could not be read, so only yours was used.")
        return notes
    if message == PROFILE_OFF:
        why = "Your writing profile is switched off (“use my writing profile”)"
    elif "no writing samples" in message:
        why = "Fantasma has no samples of your writing yet"
    elif "only one writing sample" in message:
        why = "Fantasma has only one piece of your writing"
    else:
        why = "Your writing samples could not be read"
    return [f"{why}, so the text was compared with writers in general, not with you."]


def next_step_text(step: str, browser: bool = False) -> str:
    """NEXT_STEPS[step] in full; `browser`: the words for the card and the popup (NEXT_STEPS_IN_BROWSER)."""
    from native_host.models.choice import INSTALL_COMMAND

    table = NEXT_STEPS_IN_BROWSER if browser else NEXT_STEPS
    return table[step].format(install_command=INSTALL_COMMAND)


def _next_step(reply: dict[str, Any], after: dict[str, Any] | None) -> str | None:
    """The one step that would help most, as a key of NEXT_STEPS (None: nothing left to suggest)."""
    if after is None:
        return "reinstall"
    strength = reply.get("strength")
    if strength != "light" and "model unavailable" in str(reply.get("reason") or ""):
        return "install_model"
    typicality = after.get("mode") != "profile"
    samples_help = typicality and after.get("message") != PROFILE_OFF
    if not after.get("linked_by") and after.get("score", 1.0) < LINK_THRESHOLD:
        return "add_samples" if samples_help else None
    if strength == "light":
        return "strong"
    if samples_help:
        return "add_samples"
    if strength != "strong":
        return "strong"
    model = reply.get("model")
    if model is None or model.get("embedded", True):
        return "stronger_model"
    if not typicality and not after.get("rivals"):
        return "add_rivals"
    return "by_hand"


# --- words ------------------------------------------------------------------------------------------


def attacker_words(family: str) -> str:
    return ATTACKER_WORDS.get(family, "another part of your style")


def habit_words(family: str) -> str:
    return HABIT_WORDS.get(family, family.replace("_", " "))


def _verb(subjects: list[str], singular: str) -> str:
    """`singular` ("stands out", "points to you") made plural unless the one subject is singular."""
    if len(subjects) == 1 and (subjects[0] in SINGULAR or subjects[0] == "the text"):
        return singular
    verb, _, rest = singular.partition(" ")
    return f"{verb.removesuffix('s')} {rest}"


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _join(items: list[str]) -> str:
    """'a', 'a and b', 'a, b, and c' (the serial comma: the items have "and" inside)."""
    if len(items) < 3:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."

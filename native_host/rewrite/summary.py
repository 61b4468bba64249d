"""A rewrite's outcome in plain words: the `summary` of the `rewrite` reply (PROTOCOL.md), which the page,
the popup and `fantasma rewrite` show. The words themselves are in native_host/wording.py; this module
chooses among them.

    build(reply) -> dict                            the summary, from the reply JSON alone (the reply is
                                                    put together in native_host/rewrite/reply.py)
    scoring_model(use_samples) -> Identifiability | None   what the figures and the guide score against
    score(text, use_samples) -> dict | None         an identifiability report of a text, for the reply's
                                                    figures and the host's `analyze`
    guide_of(text, use_samples) -> dict | None      the guide's report of the rewritten text: the sentences
                                                    that still give the writer away, for "finish it yourself"
    standing(report) -> dict                        an `analyze` report's level and what stands out, in
                                                    the card's words (the markers panel shows them)
    strands_line(report) -> str                     which parts of the style still stand out, in words
    mode_notes(report) -> [str]                     what the figure compared the text with, and why

The numbers are formatted here, once, so the page and the CLI show the same digits.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from native_host import wording
from native_host.rewrite.options import SEARCH_STRENGTHS
from native_host.settings import PROFILE_OFF
from native_host.style import linkability

if TYPE_CHECKING:
    from native_host.style.identify import Identifiability

log = logging.getLogger(__name__)

LINK_THRESHOLD = 0.5  # as native_host/style/identify.py: a report at or above this still links the text
# |after - before| below these reads "a little", below the second plain, else "much" (wording.HOW_MUCH).
A_LITTLE, PLAIN = 0.05, 0.15
MOST_NAMED = 3  # habits named in the headline; the rest are counted


def scoring_model(use_samples: bool) -> Identifiability | None:
    """The identifiability model a rewrite's figures and guide score against: the stored writing samples
    (typicality without them), or typicality when `use_samples` is off (then the samples and rivals are
    not read). Loading fits the stored samples, so a caller scoring several texts loads it once. None,
    logged, when there is nothing to score against."""
    from native_host.style.identify import Identifiability
    from native_host.style.samples import IdentifyError

    try:
        return Identifiability.load("stored" if use_samples else None)
    except Exception as exc:  # a figure for the user, never a reason to lose the rewrite itself
        log.warning("identifiability unavailable: %s", exc, exc_info=not isinstance(exc, IdentifyError))
        return None


def score(
    text: str, use_samples: bool, note: str = PROFILE_OFF, model: Identifiability | None = None
) -> dict[str, Any] | None:
    """IdentifiabilityReport.to_json() of `text` against `model` (default `scoring_model(use_samples)`);
    with `use_samples` off, `note` is the report's message. None, logged, when there is nothing to score
    against."""
    model = model or scoring_model(use_samples)
    if model is None:
        return None
    try:
        report = model.score(text).to_json()
    except Exception as exc:  # a figure for the user, never a reason to lose the rewrite itself
        log.warning("identifiability unavailable: %s", exc, exc_info=True)
        return None
    return _noted(report, use_samples, note)


def guide_of(
    text: str, use_samples: bool, note: str = PROFILE_OFF, model: Identifiability | None = None
) -> dict[str, Any] | None:
    """GuideReport.to_json() of `text` (PROTOCOL.md `guide`) against the same model as `score`: where the
    composer's guide takes over from the rewrite. None, logged, when there is nothing to score against."""
    from native_host.guide.analysis import guide

    model = model or scoring_model(use_samples)
    if model is None:
        return None
    try:
        report = guide(model, text).to_json()
    except Exception as exc:  # a hint for the user, never a reason to lose the rewrite itself
        log.warning("guide unavailable: %s", exc, exc_info=True)
        return None
    return _noted(report, use_samples, note)


def _noted(report: dict[str, Any], use_samples: bool, note: str) -> dict[str, Any]:
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
            "headline": wording.CANCELLED_UNCHANGED,
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
        headline += wording.NOT_MEASURED
    else:
        removed = markers["after"] < markers["before"]
        better = figure["levels"][1] != figure["levels"][0] and figure["direction"] == "lower"
        but = removed and not better and figure["levels"][1] != "unlikely"
        joint = wording.HEADLINE_BUT if but else wording.HEADLINE_AND
        headline += f"{joint} {_link_phrase(figure)}."
    if reply.get("cancelled"):
        headline = wording.STOPPED_PART_WAY + headline
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


def _link_phrase(figure: dict[str, Any]) -> str:
    """'the text is still likely to be linked to you (a little less than before)', 'the text now reads like
    many other writers (before: it stood out)': the level of style/linkability.py in words, no number (the
    card shows the number on demand, `line`)."""
    level_before, level_after = figure["levels"]
    now = figure["level_words"][1]
    is_ = "" if figure["mode"] == "typicality" else wording.IS
    if level_before == level_after:
        phrase = wording.LINK_STILL.format(is_=is_, now=now)
        if figure["direction"] != "same":
            how = _how_much(abs(figure["after"] - figure["before"]))
            which = wording.LESS if figure["direction"] == "lower" else wording.MORE
            phrase += wording.LINK_MOVED.format(how=how, which=which)
        return phrase
    was = wording.TYPICALITY_BEFORE[level_before] if figure["mode"] == "typicality" else level_before
    return wording.LINK_NOW.format(is_=is_, now=now, was=was)


def standing(report: dict[str, Any] | None) -> dict[str, Any] | None:
    """An identifiability report in the words the after-rewrite card uses for the text after: its level
    (style/linkability.py), which parts still stand out (strands_line) and what it was compared with. The
    markers panel shows it, so the panel and the card say the same of the same text. None without one."""
    if not report:
        return None
    mode = "profile" if report.get("mode") == "profile" else "typicality"
    says = _says_unlikely(report)
    now = linkability.words(report["score"], mode, says)
    level = linkability.level(report["score"], says)
    return {
        "headline": wording.STANDING.format(is_=wording.IS if mode == "profile" else "", now=now),
        "level": level,
        "level_words": now,
        "strands": strands_line(report),
        "caveat": unlikely_caveat(mode, level, linkability.held(report["score"], says)),
        "notes": mode_notes(report),
    }


def _says_unlikely(report: dict[str, Any]) -> bool:
    """Whether the meter may say "unlikely" of an identifiability report (linkability.says_unlikely)."""
    return linkability.says_unlikely(str(report.get("mode")), report.get("rivals") or [])


def unlikely_caveat(mode: str, level: str, held: bool = False) -> str:
    """What "unlikely" does not read (what the writer keeps), said by the card and the markers panel at
    that level in profile mode; where the meter is `held` at "possibly" (linkability.held: no one named
    a reader might suspect), how to let it say more; "" elsewhere, where the level promises nothing."""
    if held:
        return wording.NEEDS_SUSPECTS
    return wording.UNLIKELY_CAVEAT if mode == "profile" and level == "unlikely" else ""


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
        wording.HABITS_OTHERS.format(others=_n(len(left) - MOST_NAMED, wording.OTHER_KIND))
        if len(left) > MOST_NAMED
        else ""
    )
    if before == 0 and after == 0:
        return wording.HABITS_NONE
    if after == 0:
        return wording.HABITS_ALL_REMOVED.format(removed=_n(before, wording.HABIT))
    if after < before:
        return wording.HABITS_SOME_REMOVED.format(
            removed=_n(before - after, wording.HABIT), after=after, named=named
        )
    if after == before:
        return wording.HABITS_NONE_REMOVED.format(after=after, named=named)
    return wording.HABITS_MORE.format(
        more=_n(after - before, wording.MORE_HABIT), before=before, after=after, named=named
    )


def _figure(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The identifiability figure: both scores, how they are shown, which way it moved, and in words."""
    shown_before, shown_after = _shown(before["score"]), _shown(after["score"])
    change = after["score"] - before["score"]
    direction = "same" if shown_before == shown_after else ("lower" if change < 0 else "higher")
    typicality = after.get("mode") != "profile"
    how = "" if direction == "same" else _how_much(abs(change))
    table = wording.FIGURE_TYPICALITY if typicality else wording.FIGURE_PROFILE
    words = table[direction].format(how=how)
    text = wording.FIGURE_TEXT.format(before=shown_before, after=shown_after)
    people = len(after.get("rivals") or [])
    line = wording.FIGURE_LINE.format(text=text, words=words.removeprefix(wording.IS)) + (
        wording.FIGURE_NO_SAMPLES if typicality else ""
    )
    if people:
        line += wording.FIGURE_RIVALS.format(people=_people(people))
    mode = "typicality" if typicality else "profile"
    says = _says_unlikely(after)
    levels = [linkability.level(before["score"], says), linkability.level(after["score"], says)]
    return {
        "before": before["score"],
        "after": after["score"],
        "shown": [shown_before, shown_after],
        "direction": direction,
        "mode": mode,
        # the one scale the composer's meter speaks (style/linkability.py): the card's words, no number
        "levels": levels,
        "level_words": [
            linkability.words(before["score"], mode, says),
            linkability.words(after["score"], mode, says),
        ],
        "held": linkability.held(after["score"], says),
        "text": text,
        "line": line,
        "words": words,
    }


def _shown(score: float) -> str:
    """A score as every surface shows it (two decimals, rounded here, never by each surface)."""
    return f"{score:.2f}"


def _how_much(change: float) -> str:
    a_little, plain, much = wording.HOW_MUCH
    return a_little if change < A_LITTLE else (plain if change < PLAIN else much)


def _details(
    reply: dict[str, Any], before: dict | None, after: dict | None, figure: dict | None
) -> list[str]:
    out: list[str] = []
    # `reason` is the pipeline's and the model choice's own note: read for what happened, never shown
    reason = str(reply.get("reason") or "")
    if "the chosen model" in reason:
        out.append(_sentence(reason.split(";")[0]))
    if "model unavailable" in reason:
        why = reason.split("model unavailable", 1)[1].split(": ", 1)[-1].split(";")[0].strip()
        out.append(
            wording.MODEL_NOT_INSTALLED
            if "not installed" in why
            else wording.MODEL_NOT_LOADED.format(why=why)
        )
    words_changed = (reply.get("search") or {}).get("words_changed")
    if words_changed:
        out.append(wording.WORDS_CHANGED.format(words=_n(words_changed, wording.WORD)))
    if kept := _kept_marks(reply):
        out.append(wording.KEPT_MARKS.format(kept=kept))
    if after is None or before is None or figure is None:
        return out
    out.append(strands_line(after))
    if caveat := unlikely_caveat(figure["mode"], figure["levels"][1], figure["held"]):
        out.append(caveat)
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
        kept.append(wording.DASHES)
    if "quotes" in families and any(q in text for q in "“”‘’"):
        kept.append(wording.CURLY_QUOTES)
    return " and ".join(kept)


def strands_line(report: dict[str, Any]) -> str:
    """'The letter patterns of your spelling and your choice of common words still stand out.' (which
    parts of the style still link the text, or in which it stands out from other writers)."""
    linked = [attacker_words(f) for f in report.get("linked_by") or []]
    typicality = report.get("mode") != "profile"
    if not linked:
        return wording.NOTHING_STANDS_OUT if typicality else wording.NOTHING_POINTS
    verb = _verb(linked, wording.STANDS_OUT if typicality else wording.POINTS_TO_YOU)
    return _sentence(wording.STILL.format(named=_join(linked), verb=verb))


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
        why = "light"
    elif "model unavailable" in reason:
        why = "no_model"
    elif search is not None and not search.get("applied"):
        why = "none_applied"
    elif search is not None:
        why = "searched"
    else:
        why = "wording"
    named = [attacker_words(f) for f in rose] or [wording.THE_TEXT]
    more = wording.STANDS_OUT_MORE if after.get("mode") != "profile" else wording.POINTS_TO_YOU_MORE
    return wording.WORSE.format(named=_join(named), verb=_verb(named, more), why=wording.WORSE_BECAUSE[why])


def mode_notes(report: dict[str, Any]) -> list[str]:
    """What an identifiability report compared the text with, when that is not simply your samples."""
    message = str(report.get("message") or "")  # the identifiability model's note, read, never shown
    rivals = report.get("rivals") or []
    if report.get("mode") == "profile":
        notes = []
        if rivals:
            notes.append(
                wording.COMPARED_WITH_RIVALS.format(people=_people(len(rivals)), names=", ".join(rivals))
            )
        if "rivals" in message:
            notes.append(wording.RIVALS_UNREADABLE)
        return notes
    if message == PROFILE_OFF:
        why = "profile_off"
    elif "no writing samples" in message:
        why = "no_samples"
    elif "only one writing sample" in message:
        why = "one_sample"
    else:
        why = "unreadable"
    return [wording.COMPARED_WITH_WRITERS.format(why=wording.TYPICALITY_BECAUSE[why])]


def next_step_text(step: str, browser: bool = False) -> str:
    """wording.NEXT_STEPS[step] in full; `browser`: the words for the card and the popup
    (wording.NEXT_STEPS_IN_BROWSER)."""
    table = wording.NEXT_STEPS_IN_BROWSER if browser else wording.NEXT_STEPS
    return table[step].format(install_command=wording.INSTALL_COMMAND)


def _next_step(reply: dict[str, Any], after: dict[str, Any] | None) -> str | None:
    """The one step that would help most, as a key of wording.NEXT_STEPS (None: nothing left to suggest)."""
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


# --- putting the words together ---------------------------------------------------------------------


def attacker_words(family: str) -> str:
    return wording.ATTACKER_WORDS.get(family, wording.ANOTHER_ATTACKER)


def habit_words(family: str) -> str:
    return wording.HABIT_WORDS.get(family, family.replace("_", " "))


def _verb(subjects: list[str], singular: str) -> str:
    """`singular` ("stands out", "points to you") made plural unless the one subject is singular."""
    if len(subjects) == 1 and (subjects[0] in wording.SINGULAR or subjects[0] == wording.THE_TEXT):
        return singular
    verb, _, rest = singular.partition(" ")
    return f"{verb.removesuffix('s')} {rest}"


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _people(count: int) -> str:
    """'1 person', '2 people'."""
    return f"{count} {wording.PERSON if count == 1 else wording.PEOPLE}"


def _join(items: list[str]) -> str:
    """'a', 'a and b', 'a, b, and c' (the serial comma: the items have "and" inside)."""
    if len(items) < 3:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."

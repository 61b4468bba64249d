"""The text's own requests, no model: `analyze` (the markers and the identifiability report) and
`neutralize` (the rule-based rewrite); and the target-style object both `neutralize` and `rewrite` read."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from native_host.host import schema
from native_host.host.handlers.context import Context, current_settings, load_profile, profile_off_note
from native_host.rewrite import summary


def analyze(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host import style

    text = schema.text(params)
    conf = current_settings()
    use_profile = schema.boolean(params, "use_profile", default=conf["use_profile"])
    # Off by the setting (not by this request): the report says so, the user may have forgotten it.
    note = "" if "use_profile" in params else profile_off_note(use_profile)
    ctx.progress("analyze", None, "")
    profile = load_profile() if use_profile else None
    identifiability = summary.score(text, use_profile, note)
    return {
        **style.analyze(text, profile).to_json(),
        "identifiability": identifiability,
        "standing": summary.standing(identifiability),  # in the after-rewrite card's words
    }


def neutralize(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host import style

    text = schema.text(params)
    target = target_from_json(schema.obj(params, "target"))
    terms = tuple(current_settings()["protected_terms"])
    ctx.progress("neutralize", None, "")
    new_text, edits = style.neutralize(text, target, terms, check_cancelled=ctx.check_cancelled)
    return {"text": new_text, "edits": [edit.to_json() for edit in edits]}


def target_from_json(value: dict[str, Any] | None) -> Any:
    """A `native_host.style.Target` from its JSON form; unknown keys are ignored, wrong types refused."""
    if value is None:
        return None
    from native_host.style import Target

    hints = typing.get_type_hints(Target)
    kwargs: dict[str, Any] = {}
    for field in dataclasses.fields(Target):
        if field.name not in value:
            continue
        item = value[field.name]
        hint = hints.get(field.name)
        if typing.get_origin(hint) is typing.Literal:
            if item not in typing.get_args(hint):
                allowed = ", ".join(map(str, typing.get_args(hint)))
                raise schema.invalid(f"target.{field.name} must be one of {allowed}")
        elif isinstance(field.default, bool):
            if not isinstance(item, bool):
                raise schema.invalid(f"target.{field.name} must be true or false")
        elif field.name == "families":
            item = None if item is None else frozenset(schema.string_list(value, "families", "target"))
        kwargs[field.name] = item
    return Target(**kwargs)

"""The `rewrite` reply (PROTOCOL.md), put together here and nowhere else: the host's `rewrite`, `fantasma
rewrite` and `fantasma demo` each end with build_reply, so they report the same figures and the same words
for the same text and strength.

    build_reply(result, use_profile, model, model_note) -> dict

The words of the summary are chosen in summary.py, from native_host/wording.py.
"""

from __future__ import annotations

from typing import Any

from native_host.rewrite import summary
from native_host.rewrite.options import RewriteResult


def build_reply(
    result: RewriteResult,
    use_profile: bool,
    model: dict[str, Any] | None = None,
    model_note: str = "",
) -> dict[str, Any]:
    """The reply to `result`, in this key order: the result's fields but `original`
    (RewriteResult.to_json); `model`, which model answered (None at light strength, or where the caller
    ran none of the host's choice); `model_note`, why another model than the chosen one answered, put
    before the result's `reason`; both identifiability figures, the pipeline's own where its search ran,
    else scored here (the original and the rewritten text, against the stored samples, or by typicality
    when `use_profile` is off); `guide`, the guide's report of the rewritten text (the sentences that still
    give the writer away, for the composer to finish by hand); last, the `summary` in words, built from
    the reply's own fields."""
    reply = result.to_json()
    reply["model"] = model
    if model_note:
        reply["reason"] = "; ".join(part for part in (model_note, reply.get("reason")) if part)
    scoring = summary.scoring_model(use_profile)  # once: loading it fits the stored samples
    if scoring is not None:
        if reply.get("identifiability_before") is None:
            reply["identifiability_before"] = summary.score(result.original, use_profile, model=scoring)
        if reply.get("identifiability_after") is None:
            reply["identifiability_after"] = summary.score(reply["text"], use_profile, model=scoring)
    # Where the guide takes over: which sentences of the rewrite still give the writer away, and why.
    has_text = bool(reply["text"].strip())
    reply["guide"] = (
        summary.guide_of(reply["text"], use_profile, model=scoring)
        if scoring is not None and has_text
        else None
    )
    reply["summary"] = summary.build(reply)
    return reply

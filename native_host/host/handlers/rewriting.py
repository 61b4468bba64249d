"""`rewrite`: the request's options and the settings into `RewriteOptions`, the pipeline
(native_host/rewrite/pipeline.py) with progress and cancel, its cost measured (native_host/models/cost.py),
and the reply built once (native_host/rewrite/reply.py)."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from native_host import rewrite as pipeline
from native_host import settings
from native_host.host import schema
from native_host.host.errors import ErrorCode, ProtocolError
from native_host.host.handlers.context import DEBUG_ENV, Context, current_settings
from native_host.host.handlers.texts import target_from_json
from native_host.models import cost as model_cost
from native_host.models import unusable_model_errors
from native_host.rewrite.reply import build_reply

STRENGTHS = ("light", "medium", "strong")
# Tests only, with DEBUG_ENV: medium and strong rewrites write LLM windows whatever the model's class
# (RewriteOptions.llm_windows), so a test sees window progress with the small embedded model.
DEBUG_LLM_WINDOWS_ENV = "FANTASMA_DEBUG_LLM_WINDOWS"


def rewrite(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    text = schema.text(params)
    raw = schema.obj(params, "options") or {}
    where = "params.options"
    conf = current_settings()  # what the request leaves out (PROTOCOL.md, settings)
    strength = schema.choice(raw, "strength", conf["default_strength"], STRENGTHS, where)
    target = target_from_json(schema.obj(raw, "target", where))
    protected_terms = settings.merge_terms(
        conf["protected_terms"], schema.string_list(raw, "protected_terms", where)
    )
    candidates = schema.integer(raw, "candidates", conf["candidates"], 1, 8, where)
    use_profile = bool(conf["use_profile"])
    model_dir, model_note, model, active = _rewrite_model(strength, conf["threads"], ctx)
    options = pipeline.RewriteOptions(
        strength=strength,
        target=target,
        protected_terms=protected_terms,
        candidates=candidates,
        use_profile=use_profile,
        threads=conf["threads"],
        model_dir=model_dir,
    )
    if os.environ.get(DEBUG_ENV) == "1" and os.environ.get(DEBUG_LLM_WINDOWS_ENV) == "1":
        options = dataclasses.replace(options, llm_windows=True)  # tests only: windows for any model
    cost = model_cost.RewriteCost(active, strength, text)
    try:
        result = pipeline.rewrite(
            text, options, on_progress=cost.with_eta(ctx.forward_progress), cancel=ctx.cancel
        )
    except Exception as exc:
        if isinstance(exc, unusable_model_errors()):
            raise ProtocolError(ErrorCode.model_unavailable, str(exc) or type(exc).__name__) from exc
        raise
    ctx.check_cancelled()
    cost.record(result)
    return build_reply(result, use_profile, model, model_note)  # as `fantasma rewrite` and `demo` build it


def _rewrite_model(
    strength: str, threads: int | None, ctx: Context
) -> tuple[Any, str, dict[str, Any] | None, Any]:
    """(model dir, note for `reason`, the reply's `model`, the answering models.registry.Active): the
    active model (native_host/models/choice.py); a light rewrite uses none."""
    from native_host.models import choice as model_choice

    if strength == "light":
        return None, "", None, None
    model_dir, note, active = model_choice.for_rewrite(threads, ctx.progress)
    return model_dir, note, active.answered(), active

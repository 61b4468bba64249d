"""The composer's guide: `guide` (which sentences give the writer away) and `guide.alternatives` (other
wordings of one sentence, a job that loads the models)."""

from __future__ import annotations

from typing import Any

from native_host.host import schema
from native_host.host.errors import ErrorCode, ProtocolError
from native_host.host.handlers.context import Cancelled, Context, current_settings, profile_off_note
from native_host.style import linkability


def guide(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Which sentences give the writer away (native_host/guide/analysis.py): the composer asks as the
    writer types, so the per-sentence counts are kept between requests (native_host/guide/service.py)."""
    from native_host.guide import service

    text = schema.text(params)
    previous = params.get("previous")  # the text as it was: a changed sentence's reasons say what is new
    if previous is not None and not isinstance(previous, str):
        raise schema.invalid("params.previous must be a string")
    ident = _guide_identifiability(params)
    terms = tuple(current_settings()["protected_terms"])
    ctx.progress("guide", None, "")
    return service.report(ident, text, previous=previous, terms=terms).to_json()


def guide_alternatives(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Up to `max` other wordings of one sentence of `text` (native_host/guide/alternatives.py), each
    passed every guard, scored by the whole text's identifiability after it."""
    from native_host import models
    from native_host.guide import alternatives, service

    text = schema.text(params)
    start = schema.integer(params, "start", -1, 0, len(text))
    end = schema.integer(params, "end", -1, 0, len(text))
    limit = schema.integer(params, "max", alternatives.MAX_ALTERNATIVES, 1, alternatives.MAX_ALTERNATIVES)
    try:
        alternatives.check_span(text, start, end)
    except alternatives.AlternativesError as exc:
        raise schema.invalid(f"params.start/end: {exc}") from exc
    conf = current_settings()
    ident = _guide_identifiability(params)
    ctx.progress("load_model", 0.0, "loading the meaning check")
    try:
        embedder = models.get_embedder(threads=conf["threads"])
    except models.ModelUnavailable as exc:
        raise ProtocolError(ErrorCode.model_unavailable, str(exc) or type(exc).__name__) from exc
    engine, reason = service.alternatives_engine(conf["threads"], ctx.progress)
    ctx.check_cancelled()
    try:
        found = alternatives.sentence_alternatives(
            text,
            start,
            end,
            ident=ident,
            embedder=embedder,
            engine=engine,
            protected_terms=tuple(conf["protected_terms"]),
            limit=limit,
            cancel=ctx.cancel,
            progress=lambda stage, fraction, message: ctx.progress(stage, fraction, message),
        )
    except alternatives.Cancelled as exc:
        raise Cancelled from exc
    ctx.check_cancelled()
    says = linkability.says_unlikely(ident.mode, ident.rivals)  # one meter: one answer for every alternative
    return {
        "start": start,
        "end": end,
        "score": round(ident.score(text, sentences=False).score, 4),
        "alternatives": [alt.to_json(ident.mode, says) for alt in found],
        "reason": reason,
    }


def _guide_identifiability(params: dict[str, Any]) -> Any:
    """The identifiability model `guide` and `guide.alternatives` score with: the stored samples when
    `use_profile` (the setting unless the request says) is on, typicality when off (the message says
    so when the setting turned it off); storage_error when there is no population to compare with."""
    from native_host.style.identify import Identifiability
    from native_host.style.samples import IdentifyError

    use_profile = schema.boolean(params, "use_profile", default=current_settings()["use_profile"])
    try:
        ident = Identifiability.load("stored" if use_profile else None)
    except IdentifyError as exc:
        raise ProtocolError(ErrorCode.storage_error, f"cannot score the text: {exc}") from exc
    if not use_profile and "use_profile" not in params:
        ident.message = profile_off_note(use_profile)
    return ident

"""One small handler per message type (PROTOCOL.md §3), and the dispatch table that names them.

A handler takes (params, ctx) and returns the `result` object, or raises ProtocolError. Handlers
marked `immediate` run on the reader thread (answered even while a job runs); the others are jobs,
run one at a time in arrival order by the worker.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import threading
import time
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from native_host import __version__, paths, settings
from native_host import rewrite as pipeline
from native_host.host import framing, schema
from native_host.host.errors import ErrorCode, ProtocolError
from native_host.models import ModelUnavailable
from native_host.rewrite import summary
from native_host.rewrite.reply import build_reply

log = logging.getLogger("native_host.host")

HOST_NAME = "org.fantasma.host"
STRENGTHS = ("light", "medium", "strong")
DEBUG_ENV = "FANTASMA_HOST_DEBUG"
# Tests only, with DEBUG_ENV: medium and strong rewrites write LLM windows whatever the model's class
# (RewriteOptions.llm_windows), so a test sees window progress with the small embedded model.
DEBUG_LLM_WINDOWS_ENV = "FANTASMA_DEBUG_LLM_WINDOWS"
# Pipeline stage names that differ from the wire names in PROTOCOL.md.
WIRE_STAGES = {"load": "load_model"}


class Cancelled(Exception):
    """Raised inside a job when its cancel event is set."""


class HostControl(Protocol):
    def cancel(self, target: str) -> bool: ...


@dataclass
class Context:
    request_id: str
    cancel: threading.Event
    # (stage, fraction, message[, detail]): detail holds the optional `done`, `total`, `eta_s` (PROTOCOL.md §2)
    progress: Callable[..., None]
    host: HostControl

    def check_cancelled(self) -> None:
        if self.cancel.is_set():
            raise Cancelled

    def forward_progress(self, event: dict[str, Any]) -> None:
        """Adapter for `on_progress(dict)` callbacks of the rewrite pipeline."""
        fraction = event.get("fraction")
        if not isinstance(fraction, int | float) or isinstance(fraction, bool):
            fraction = None
        stage = str(event.get("stage", "work"))
        detail = {key: event[key] for key in ("done", "total", "eta_s") if key in event}
        self.progress(WIRE_STAGES.get(stage, stage), fraction, str(event.get("message", "")), detail)


Handler = Callable[[dict[str, Any], Context], dict[str, Any]]


@dataclass(frozen=True)
class Route:
    handler: Handler
    immediate: bool = False


# --- the rewrite pipeline ----------------------------------------------------------------------------


def model_status() -> dict[str, Any]:
    """`hello.model`: the answering model's load state and what it is (native_host/models/choice.py)."""
    from native_host.models import choice as model_choice

    try:
        return model_choice.status()
    except Exception as exc:
        log.exception("model_status failed")
        return {"state": "error", "reason": f"{type(exc).__name__}: {exc}"}


def _model_errors() -> tuple[type[Exception], ...]:
    """What `rewrite` answers with model_unavailable. The engine's errors are imported when a rewrite
    failed, not at start: importing native_host.engine loads onnxruntime (and it is loaded by then
    if one of its errors was raised)."""
    from native_host.engine.errors import EngineError, ModelDirError

    return (ModelUnavailable, ModelDirError, EngineError)


# --- handlers ---------------------------------------------------------------------------------------


def hello(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    wanted = params.get("protocol")
    if wanted is not None and wanted != framing.PROTOCOL_VERSION:
        raise ProtocolError(
            ErrorCode.unsupported_protocol,
            f"this host speaks protocol {framing.PROTOCOL_VERSION}, not {wanted!r}; update Fantasma",
            {"supported": [framing.PROTOCOL_VERSION]},
        )
    return {
        "app": "fantasma",
        "version": __version__,
        "protocol": framing.PROTOCOL_VERSION,
        "host": HOST_NAME,
        "model": model_status(),
        "rewrite_path": "llm",  # the pipeline is part of the host; whether a model is usable is `model`
        "limits": {
            "max_incoming_bytes": framing.MAX_INCOMING_FRAME,
            "max_frame_bytes": framing.MAX_OUTGOING_FRAME,
        },
        "types": sorted(routes()),
    }


def analyze(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host import style

    text = schema.text(params)
    conf = _settings()
    use_profile = schema.boolean(params, "use_profile", default=conf["use_profile"])
    # Off by the setting (not by this request): the report says so, the user may have forgotten it.
    note = "" if "use_profile" in params else _profile_off_note(use_profile)
    ctx.progress("analyze", None, "")
    profile = _load_profile() if use_profile else None
    identifiability = summary.score(text, use_profile, note)
    return {
        **style.analyze(text, profile).to_json(),
        "identifiability": identifiability,
        "standing": summary.standing(identifiability),  # in the after-rewrite card's words
    }


def guide(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Which sentences give the writer away (native_host/style/guide.py): the composer asks as the
    writer types, so the per-sentence counts are kept between requests (_GUIDE_CACHE)."""
    from native_host.style.guide import guide as guide_report

    text = schema.text(params)
    ident = _guide_identifiability(params)
    ctx.progress("guide", None, "")
    return guide_report(ident, text, _guide_cache()).to_json()


def guide_alternatives(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Up to `max` other wordings of one sentence of `text` (native_host/rewrite/alternatives.py), each
    passed every guard, scored by the whole text's identifiability after it."""
    from native_host import models
    from native_host.rewrite import alternatives

    text = schema.text(params)
    start = schema.integer(params, "start", -1, 0, len(text))
    end = schema.integer(params, "end", -1, 0, len(text))
    limit = schema.integer(params, "max", alternatives.MAX_ALTERNATIVES, 1, alternatives.MAX_ALTERNATIVES)
    try:
        alternatives.check_span(text, start, end)
    except alternatives.AlternativesError as exc:
        raise schema.invalid(f"params.start/end: {exc}") from exc
    conf = _settings()
    ident = _guide_identifiability(params)
    ctx.progress("load_model", 0.0, "loading the meaning check")
    try:
        embedder = models.get_embedder(threads=conf["threads"])
    except models.ModelUnavailable as exc:
        raise ProtocolError(ErrorCode.model_unavailable, str(exc) or type(exc).__name__) from exc
    engine, reason = _guide_engine(conf["threads"], ctx)
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
    return {
        "start": start,
        "end": end,
        "score": round(ident.score(text, sentences=False).score, 4),
        "alternatives": [alt.to_json(ident.mode) for alt in found],
        "reason": reason,
    }


def _guide_identifiability(params: dict[str, Any]) -> Any:
    """The identifiability model `guide` and `guide.alternatives` score with: the stored samples when
    `use_profile` (the setting unless the request says) is on, typicality when off (the message says
    so when the setting turned it off); storage_error when there is no population to compare with."""
    from native_host.style.identify import Identifiability
    from native_host.style.samples import IdentifyError

    use_profile = schema.boolean(params, "use_profile", default=_settings()["use_profile"])
    try:
        ident = Identifiability.load("stored" if use_profile else None)
    except IdentifyError as exc:
        raise ProtocolError(ErrorCode.storage_error, f"cannot score the text: {exc}") from exc
    if not use_profile and "use_profile" not in params:
        ident.message = _profile_off_note(use_profile)
    return ident


_guide_caches: list[Any] = []


def _guide_cache() -> Any:
    """One GuideCache per host process (jobs run one at a time, so it is never shared between threads)."""
    from native_host.style.guide import GuideCache

    if not _guide_caches:
        _guide_caches.append(GuideCache())
    return _guide_caches[0]


def _guide_engine(threads: int | None, ctx: Context) -> tuple[Any, str]:
    """(the active model's engine, "") for model candidates and the fluency guard, or (None, why) when
    no model can be loaded: the rule edits still answer."""
    from native_host import models
    from native_host.models import choice as model_choice

    try:
        model_dir, note, _ = model_choice.for_rewrite(threads, ctx.progress)
        return models.get_engine(model_dir, threads=threads), note
    except Exception as exc:
        if not isinstance(exc, _model_errors()):
            raise
        return None, f"no model answered ({exc}); rule edits only"


def neutralize(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host import style

    text = schema.text(params)
    target = target_from_json(schema.obj(params, "target"))
    terms = tuple(_settings()["protected_terms"])
    ctx.progress("neutralize", None, "")
    new_text, edits = style.neutralize(text, target, terms, check_cancelled=ctx.check_cancelled)
    return {"text": new_text, "edits": [edit.to_json() for edit in edits]}


def rewrite(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    text = schema.text(params)
    raw = schema.obj(params, "options") or {}
    where = "params.options"
    conf = _settings()  # what the request leaves out (PROTOCOL.md, settings)
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
    cost = _RewriteCost(active, strength, text)
    try:
        result = pipeline.rewrite(text, options, on_progress=cost.forward(ctx), cancel=ctx.cancel)
    except Exception as exc:
        if isinstance(exc, _model_errors()):
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


# Models that have answered a rewrite in this host process: the first one after start costs more.
_warm_models: set[str] = set()


class _RewriteCost:
    """A rewrite's cost with its model (native_host/models/cost.py): measured when it finishes, and, while
    it runs, the seconds left that the earlier rewrites predict."""

    def __init__(self, active: Any, strength: str, text: str) -> None:
        from native_host.models import cost as model_cost

        self.active, self.strength = active, strength
        self.words = len(text.split())
        self.first = active is not None and active.model.name not in _warm_models
        self.started = time.perf_counter()
        self.expected = (
            model_cost.estimate(self._name, self._stamp, strength, self.words, self.first) if active else None
        )

    @property
    def _name(self) -> str:
        return self.active.model.name

    @property
    def _stamp(self) -> str | None:
        return self.active.model.install.get("installed_at")

    def forward(self, ctx: Context) -> Callable[[dict[str, Any]], None]:
        """Progress with `eta_s`: the whole job's estimate from earlier rewrites while it lasts (it counts
        the edit search after the windows too), else the pipeline's own (the windows' pace so far)."""

        def on_progress(event: dict[str, Any]) -> None:
            if self.expected is not None and event.get("stage") != "done":
                left = self.expected - (time.perf_counter() - self.started)
                if left > 0:
                    event = {**event, "eta_s": left}
            ctx.forward_progress(event)

        return on_progress

    def record(self, result: Any) -> None:
        from native_host.models import cost as model_cost

        if self.active is None or result.cancelled or "load_s" not in result.timings:
            return  # light, cancelled, or the model never loaded (the neutralizer answered)
        seconds = float(result.timings.get("total_s", 0.0)) - float(result.timings.get("load_s", 0.0))
        model_cost.record(self._name, self._stamp, self.strength, self.words, seconds, self.first)
        _warm_models.add(self._name)


def cancel(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    target = params.get("target")
    if not isinstance(target, str) or not target:
        raise schema.invalid("params.target must be the id of the request to cancel")
    return {"cancelled": ctx.host.cancel(target)}


def profile_show(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    profile = _load_profile(strict=True)
    return {"profile": None if profile is None else _profile_json(profile), "rivals": _rivals_json()}


def profile_add(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host.style.profile import Profile
    from native_host.style.samples import add_samples, samples_restored_on_failure

    text = schema.text(params)
    rival = schema.rival(params)
    if rival is not None:
        return _add_rival_sample(rival, text, ctx)
    # A corrupt profile is reported, never overwritten: it is the user's data.
    profile = _load_profile(strict=True) or Profile()
    ctx.progress("profile", None, "learning the sample")
    profile.learn(text)
    ctx.check_cancelled()
    try:  # both files replaced whole, or both left as they were
        with samples_restored_on_failure():
            add_samples([text])  # per-chunk counts the identifiability model trains on, never the text
            profile.save()
    except OSError as exc:
        raise ProtocolError(
            ErrorCode.storage_error, f"cannot save the profile: {paths.storage_reason(exc)}"
        ) from exc
    return {"profile": _profile_json(profile), "rivals": _rivals_json()}


def profile_clear(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host.style.profile import clear_profile
    from native_host.style.samples import clear_rivals, clear_samples

    rival = schema.rival(params)
    if rival is not None:
        with _rivals_storage("delete the rival's samples"):
            cleared = clear_rivals(rival)
        return {"cleared": cleared, "rivals": _rivals_json()}
    try:
        clear_profile()
        clear_samples()
        clear_rivals()
    except OSError as exc:
        raise ProtocolError(
            ErrorCode.storage_error, f"cannot delete the profile: {paths.storage_reason(exc)}"
        ) from exc
    return {"cleared": True}


def settings_get(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return {"settings": settings.load_settings()}


def settings_set(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host.models import choice as model_choice

    changes = params.get("settings")
    try:
        if isinstance(changes, dict) and "model" in changes:
            settings.validate(changes)
            _check_model(changes["model"])  # an installed model's name, like `models` with `use`
        held = settings.update_settings(changes)
        if isinstance(changes, dict) and "model" in changes:
            model_choice.after_settings_change()
        return {"settings": held}
    except settings.SettingsError as exc:
        raise schema.invalid(str(exc)) from exc
    except settings.SettingsStorageError as exc:
        raise ProtocolError(ErrorCode.storage_error, str(exc)) from exc


def models_(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """The installed models and the answering one; with `use` (a name, or null for the embedded
    default) the active model changes first and the old one's engine is dropped (PROTOCOL.md)."""
    from native_host.models import choice as model_choice

    if "use" in params:
        name = params["use"]
        if name is not None and not isinstance(name, str):
            raise schema.invalid("params.use must be the name of an installed model, or null")
        _check_model(name)
        try:
            model_choice.choose(name)
        except settings.SettingsStorageError as exc:
            raise ProtocolError(ErrorCode.storage_error, str(exc)) from exc
    return model_choice.listing()


def _check_model(name: Any) -> None:
    from native_host.models import choice as model_choice
    from native_host.models.registry import RegistryError

    try:
        model_choice.check(name)
    except RegistryError as exc:
        raise ProtocolError(ErrorCode.unknown_model, str(exc)) from exc


def debug_sleep(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Tests only (FANTASMA_HOST_DEBUG=1): a slow, cancellable job with an optional large result."""
    seconds = schema.number(params, "seconds", 1.0, 0.0, 60.0)
    result_bytes = schema.integer(params, "result_bytes", 0, 0, 4_000_000)
    if schema.boolean(params, "stray_output", default=False):
        # What a careless library might do; must land on stderr, never in the frame stream.
        print("stray print from a job")
        os.write(1, b"stray bytes written to fd 1\n")
    start = time.monotonic()
    step = 0
    while (elapsed := time.monotonic() - start) < seconds:
        ctx.check_cancelled()
        if step % 10 == 0:
            ctx.progress("sleep", min(1.0, elapsed / seconds) if seconds else 1.0, "")
        step += 1
        time.sleep(0.01)
    return {"slept": round(time.monotonic() - start, 3), "payload": "x" * result_bytes}


def routes() -> dict[str, Route]:
    table = {
        "hello": Route(hello, immediate=True),
        "analyze": Route(analyze),
        "guide": Route(guide),
        "guide.alternatives": Route(guide_alternatives),
        "neutralize": Route(neutralize),
        "rewrite": Route(rewrite),
        "cancel": Route(cancel, immediate=True),
        "profile.show": Route(profile_show, immediate=True),
        "profile.add": Route(profile_add),
        "profile.clear": Route(profile_clear),
        "settings.get": Route(settings_get, immediate=True),
        "settings.set": Route(settings_set, immediate=True),
        "models": Route(models_, immediate=True),
    }
    if os.environ.get(DEBUG_ENV) == "1":
        table["debug.sleep"] = Route(debug_sleep)
    return table


# --- helpers ------------------------------------------------------------------------------------------


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


def _load_profile(strict: bool = False) -> Any:
    """The saved profile or None. Unreadable: storage_error when `strict`, else None (logged), so a
    corrupt profile never blocks an analysis."""
    from native_host.style.profile import ProfileError, load_profile

    try:
        return load_profile()
    except (OSError, ProfileError) as exc:
        if strict:
            raise ProtocolError(ErrorCode.storage_error, f"cannot read the profile: {exc}") from exc
        log.warning("profile unreadable, analyzing without it: %s", exc)
        return None


def _settings() -> dict[str, Any]:
    """The user's settings, read per job: a `settings.set` applies from the next job on."""
    return settings.load_settings()


def _profile_off_note(use_profile: bool) -> str:
    return "" if use_profile else settings.PROFILE_OFF


def _add_rival_sample(name: str, text: str, ctx: Context) -> dict[str, Any]:
    """`profile.add` with `rival`: learn another person's sample (counts only); your profile is untouched."""
    from native_host.style.samples import add_rival_samples

    profile = _load_profile(strict=True)  # the reply shows it; a corrupt one is reported before any write
    ctx.progress("profile", None, "learning the sample")
    ctx.check_cancelled()
    with _rivals_storage("save the rival's samples"):
        add_rival_samples(name, [text])  # a corrupt rivals file is reported, never replaced
    return {"profile": None if profile is None else _profile_json(profile), "rivals": _rivals_json()}


@contextlib.contextmanager
def _rivals_storage(doing: str) -> Iterator[None]:
    """The rivals file's failures as protocol errors: unreadable or unwritable is storage_error (the file
    is left as it was), a name the storage refuses is invalid_params."""
    from native_host.style.samples import IdentifyError

    try:
        yield
    except IdentifyError as exc:
        raise ProtocolError(ErrorCode.storage_error, f"cannot read the rivals' samples: {exc}") from exc
    except OSError as exc:
        raise ProtocolError(ErrorCode.storage_error, f"cannot {doing}: {paths.storage_reason(exc)}") from exc
    except ValueError as exc:
        raise schema.invalid(f"params.rival: {exc}") from exc


def _rivals_json() -> list[dict[str, Any]] | None:
    """[{"name", "chunks", "words"}] of the stored rivals, by name; None (logged) when unreadable."""
    from native_host.style.samples import IdentifyError, rivals_summary

    try:
        return rivals_summary()
    except (IdentifyError, OSError) as exc:
        log.warning("rivals' samples unreadable: %s", exc)
        return None


def _profile_json(profile: Any) -> dict[str, Any]:
    """A summary: counts, the learned habits and habitual phrases, and how many ~250-word samples the
    identifiability model holds (never the texts; neither keeps them)."""
    from native_host.style.samples import IdentifyError, load_samples

    try:
        samples: int | None = len(load_samples() or [])
    except IdentifyError:
        samples = None  # unreadable: scored by typicality until `profile.clear`
    return {
        "documents": profile.documents,
        "words": profile.words,
        "habits": profile.habits(),
        "phrases": sorted(profile.habitual_phrases()),
        "samples": samples,
    }

"""One small handler per message type (PROTOCOL.md §3), and the dispatch table that names them.

A handler takes (params, ctx) and returns the `result` object, or raises ProtocolError. Handlers
marked `immediate` run on the reader thread (answered even while a job runs); the others are jobs,
run one at a time in arrival order by the worker.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import logging
import os
import threading
import time
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

from native_host import __version__, settings
from native_host.host import framing, schema
from native_host.host.errors import ErrorCode, ProtocolError

log = logging.getLogger("native_host.host")

HOST_NAME = "org.fantasma.host"
STRENGTHS = ("light", "medium", "strong")
DEBUG_ENV = "FANTASMA_HOST_DEBUG"
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
    progress: Callable[[str, float | None, str], None]
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
        self.progress(WIRE_STAGES.get(stage, stage), fraction, str(event.get("message", "")))


Handler = Callable[[dict[str, Any], Context], dict[str, Any]]


@dataclass(frozen=True)
class Route:
    handler: Handler
    immediate: bool = False


# --- the rewrite pipeline, if installed ---------------------------------------------------------


def rewrite_module() -> tuple[ModuleType | None, str]:
    """(native_host.rewrite, "") once it provides rewrite(); else (None, why). Checked per call, so the
    host switches to the LLM path as soon as the module exists, without a protocol change."""
    try:
        module = importlib.import_module("native_host.rewrite")
    except ModuleNotFoundError as exc:
        if exc.name in ("native_host.rewrite", "native_host"):
            return None, "the rewrite pipeline is not installed"
        log.exception("native_host.rewrite failed to import")
        return None, f"the rewrite pipeline failed to load ({exc})"
    except Exception as exc:  # a bug there must not take analyze/neutralize down with it
        log.exception("native_host.rewrite failed to import")
        return None, f"the rewrite pipeline failed to load ({type(exc).__name__})"
    if not callable(getattr(module, "rewrite", None)) or not hasattr(module, "RewriteOptions"):
        return None, "the rewrite pipeline is not installed"
    return module, ""


def model_status() -> dict[str, Any]:
    module, reason = rewrite_module()
    if module is None:
        return {"state": "not_installed", "reason": reason}
    status_fn = getattr(module, "model_status", None)
    if status_fn is None:
        models = getattr(module, "models", None)
        status_fn = getattr(models, "model_status", None)
    if status_fn is None:
        return {"state": "unknown"}
    try:
        return dict(status_fn())
    except Exception as exc:
        log.exception("model_status failed")
        return {"state": "error", "reason": f"{type(exc).__name__}: {exc}"}


def _is_model_error(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"ModelUnavailable", "ModelDirError", "EngineError"})


# --- handlers ---------------------------------------------------------------------------------------


def hello(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    wanted = params.get("protocol")
    if wanted is not None and wanted != framing.PROTOCOL_VERSION:
        raise ProtocolError(
            ErrorCode.unsupported_protocol,
            f"this host speaks protocol {framing.PROTOCOL_VERSION}, not {wanted!r}; update Fantasma",
            {"supported": [framing.PROTOCOL_VERSION]},
        )
    module, _ = rewrite_module()
    return {
        "app": "fantasma",
        "version": __version__,
        "protocol": framing.PROTOCOL_VERSION,
        "host": HOST_NAME,
        "model": model_status(),
        "rewrite_path": "llm" if module is not None else "neutralizer",
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
    return {
        **style.analyze(text, profile).to_json(),
        "identifiability": _identifiability(text, use_profile, note),
    }


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
    module, reason = rewrite_module()
    if module is None:
        return _rewrite_by_neutralizer(text, target, protected_terms, ctx, reason, use_profile)
    options = module.RewriteOptions(
        strength=strength,
        target=target,
        protected_terms=protected_terms,
        candidates=candidates,
        use_profile=use_profile,
        threads=conf["threads"],
    )
    try:
        result = module.rewrite(text, options, on_progress=ctx.forward_progress, cancel=ctx.cancel)
    except Exception as exc:
        if _is_model_error(exc):
            raise ProtocolError(ErrorCode.model_unavailable, str(exc) or type(exc).__name__) from exc
        raise
    ctx.check_cancelled()
    return _with_identifiability(result.to_json(), text, use_profile)


def cancel(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    target = params.get("target")
    if not isinstance(target, str) or not target:
        raise schema.invalid("params.target must be the id of the request to cancel")
    return {"cancelled": ctx.host.cancel(target)}


def profile_show(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    profile = _load_profile(strict=True)
    return {"profile": None if profile is None else _profile_json(profile), "rivals": _rivals_json()}


def profile_add(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host.style.identify import add_samples
    from native_host.style.profile import Profile

    text = schema.text(params)
    rival = schema.rival(params)
    if rival is not None:
        return _add_rival_sample(rival, text, ctx)
    # A corrupt profile is reported, never overwritten: it is the user's data.
    profile = _load_profile(strict=True) or Profile()
    ctx.progress("profile", None, "learning the sample")
    profile.learn(text)
    ctx.check_cancelled()
    try:
        profile.save()
        add_samples([text])  # per-chunk counts the identifiability model trains on, never the text
    except OSError as exc:
        raise ProtocolError(
            ErrorCode.storage_error, f"cannot save the profile: {exc.strerror or exc}"
        ) from exc
    return {"profile": _profile_json(profile), "rivals": _rivals_json()}


def profile_clear(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host.style.identify import clear_rivals, clear_samples
    from native_host.style.profile import clear_profile

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
            ErrorCode.storage_error, f"cannot delete the profile: {exc.strerror or exc}"
        ) from exc
    return {"cleared": True}


def settings_get(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return {"settings": settings.load_settings()}


def settings_set(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    try:
        return {"settings": settings.update_settings(params.get("settings"))}
    except settings.SettingsError as exc:
        raise schema.invalid(str(exc)) from exc
    except settings.SettingsStorageError as exc:
        raise ProtocolError(ErrorCode.storage_error, str(exc)) from exc


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
        "neutralize": Route(neutralize),
        "rewrite": Route(rewrite),
        "cancel": Route(cancel, immediate=True),
        "profile.show": Route(profile_show, immediate=True),
        "profile.add": Route(profile_add),
        "profile.clear": Route(profile_clear),
        "settings.get": Route(settings_get, immediate=True),
        "settings.set": Route(settings_set, immediate=True),
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


def _rewrite_by_neutralizer(
    text: str, target: Any, protected_terms: tuple[str, ...], ctx: Context, reason: str, use_profile: bool
) -> dict[str, Any]:
    """The `rewrite` reply shape, served by the rule-based neutralizer (no LLM installed)."""
    from native_host import style

    started = time.perf_counter()
    ctx.progress("neutralize", 0.0, "rewriting with rules (no language model)")
    before = style.analyze(text)
    ctx.check_cancelled()
    _, edits = style.neutralize(text, target, check_cancelled=ctx.check_cancelled)
    edits = [edit for edit in edits if not _touches_protected(text, edit.start, edit.end, protected_terms)]
    new_text = style.apply_edits(text, edits)
    after = style.analyze(new_text)
    ctx.progress("neutralize", 1.0, "")
    return {
        "text": new_text,
        "edits": [edit.to_json() for edit in edits],
        "markers_before": marker_summary(before),
        "markers_after": marker_summary(after),
        "similarity": None,
        "path": "neutralizer",
        "reason": reason,
        "timings": {"total_ms": round((time.perf_counter() - started) * 1000, 1)},
        "identifiability_before": _identifiability(text, use_profile, _profile_off_note(use_profile)),
        "identifiability_after": _identifiability(new_text, use_profile, _profile_off_note(use_profile)),
    }


def marker_summary(report: Any) -> dict[str, Any]:
    """PROTOCOL.md's marker summary, `{"score", "count", "families"}`: the type of `markers_before` and
    `markers_after` on both rewrite paths. The same numbers as native_host.rewrite.pipeline's
    markers_summary (tested), computed here because this path also serves when the pipeline is absent."""
    families: dict[str, int] = {}
    for finding in report.findings:
        families[finding.family] = families.get(finding.family, 0) + max(1, len(finding.spans))
    return {"score": report.score, "count": sum(families.values()), "families": families}


def _touches_protected(text: str, start: int, end: int, terms: tuple[str, ...]) -> bool:
    for term in terms:
        pos = text.find(term)
        while pos != -1:
            if pos < end and start < pos + len(term):
                return True
            pos = text.find(term, pos + 1)
    return False


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


def _identifiability(text: str, use_samples: bool = True, note: str = "") -> dict[str, Any] | None:
    """IdentifiabilityReport.to_json() against the stored writing samples (typicality without them,
    or when `use_samples` is off: then the samples and rivals are not read, and `note` becomes the
    report's message); None, logged, when there is no population data to score against."""
    try:
        from native_host.style.identify import Identifiability

        report = Identifiability.load("stored" if use_samples else None).score(text).to_json()
        if not use_samples and note:
            report["message"] = note
        return report
    except Exception as exc:  # a figure for the user, never a reason to lose the rewrite itself
        log.warning("identifiability unavailable: %s", exc, exc_info=not _is_identify_error(exc))
        return None


def _is_identify_error(exc: Exception) -> bool:
    from native_host.style.identify import IdentifyError

    return isinstance(exc, IdentifyError)


def _with_identifiability(reply: dict[str, Any], original: str, use_profile: bool) -> dict[str, Any]:
    """The pipeline reports identifiability where its search ran (medium, strong); the other paths get it here,
    so every `rewrite` reply carries both figures (PROTOCOL.md)."""
    note = _profile_off_note(use_profile)
    if reply.get("identifiability_before") is None:
        reply["identifiability_before"] = _identifiability(original, use_profile, note)
    if reply.get("identifiability_after") is None:
        reply["identifiability_after"] = _identifiability(reply["text"], use_profile, note)
    return reply


def _add_rival_sample(name: str, text: str, ctx: Context) -> dict[str, Any]:
    """`profile.add` with `rival`: learn another person's sample (counts only); your profile is untouched."""
    from native_host.style.identify import add_rival_samples

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
    from native_host.style.identify import IdentifyError

    try:
        yield
    except IdentifyError as exc:
        raise ProtocolError(ErrorCode.storage_error, f"cannot read the rivals' samples: {exc}") from exc
    except OSError as exc:
        raise ProtocolError(ErrorCode.storage_error, f"cannot {doing}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise schema.invalid(f"params.rival: {exc}") from exc


def _rivals_json() -> list[dict[str, Any]] | None:
    """[{"name", "chunks", "words"}] of the stored rivals, by name; None (logged) when unreadable."""
    from native_host.style.identify import IdentifyError, rivals_summary

    try:
        return rivals_summary()
    except (IdentifyError, OSError) as exc:
        log.warning("rivals' samples unreadable: %s", exc)
        return None


def _profile_json(profile: Any) -> dict[str, Any]:
    """A summary: counts, the learned habits and habitual phrases, and how many ~250-word samples the
    identifiability model holds (never the texts; neither keeps them)."""
    from native_host.style.identify import IdentifyError, load_samples

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

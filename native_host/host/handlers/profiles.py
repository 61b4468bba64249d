"""The personal style profile and the rivals: `profile.show`, `profile.add`, `profile.clear`."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from native_host import paths
from native_host.host import schema
from native_host.host.errors import ErrorCode, ProtocolError
from native_host.host.handlers.context import Context, load_profile

log = logging.getLogger("native_host.host")


def profile_show(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    profile = load_profile(strict=True)
    return {"profile": None if profile is None else _profile_json(profile), "rivals": _rivals_json()}


def profile_add(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    from native_host.style.profile import Profile
    from native_host.style.samples import add_samples, samples_restored_on_failure

    text = schema.text(params)
    rival = schema.rival(params)
    if rival is not None:
        return _add_rival_sample(rival, text, ctx)
    # A corrupt profile is reported, never overwritten: it is the user's data.
    profile = load_profile(strict=True) or Profile()
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
    from native_host.style.samples import clear_rivals

    rival = schema.rival(params)
    if rival is not None:
        with _rivals_storage("delete the rival's samples"):
            cleared = clear_rivals(rival)
        return {"cleared": cleared, "rivals": _rivals_json()}
    try:
        clear_profile()  # the profile, your samples and the rivals', all three or none
    except OSError as exc:
        raise ProtocolError(
            ErrorCode.storage_error, f"cannot delete the profile: {paths.storage_reason(exc)}"
        ) from exc
    return {"cleared": True}


def _add_rival_sample(name: str, text: str, ctx: Context) -> dict[str, Any]:
    """`profile.add` with `rival`: learn another person's sample (counts only); your profile is untouched."""
    from native_host.style.samples import add_rival_samples

    profile = load_profile(strict=True)  # the reply shows it; a corrupt one is reported before any write
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

"""Which model answers (PROTOCOL.md `hello`, `models`, `rewrite`): which model dir a rewrite runs with,
what `hello` says about it, and switching; the host (host/handlers/, host/stdio.py) and `fantasma
rewrite` call it.

registry.py knows what is installed and what the `model` setting chose; only loading can tell that a
chosen model fails to load. Then the embedded default answers, and `fallback` says why, in `hello` and
in the rewrite's `reason`, until the chosen model's files change (the load cache, cache.py, remembers
the failure) or the user chooses again. Switching drops the old model's engine at once
(`cache.release_engines`), so its memory is free before the next rewrite.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from native_host import paths
from native_host.models import cache, cost, registry
from native_host.wording import INSTALL_COMMAND  # what `models` offers for a stronger rewriter


def answering() -> registry.Active:
    """The model that answers now: the registry's choice, unless it failed to load in this host."""
    active = registry.active()
    if active.model.embedded or active.fallback:
        return active
    failure = cache.load_failure(active.model.dir)
    if not failure:
        return active
    embedded = registry.describe(paths.default_model_dir(), embedded=True)
    why = f"the chosen model '{active.model.name}' failed to load ({failure}); the embedded model answers"
    return registry.Active(embedded, active.chosen, why)


def status() -> dict[str, Any]:
    """`hello.model`: the load state of the answering model (cache.model_status) and what it is."""
    active = answering()
    out = dict(cache.model_status(active.model.dir))
    out.update(active.to_json())
    # what a rewrite costs with it here (cost.py), for the popup
    out["description"] = active.model.description
    out["cost"] = cost.cost(active.model.name, active.model.install.get("installed_at"))
    return out


def listing() -> dict[str, Any]:
    """The `models` reply: every installed model, which one answers, how to add a bigger one."""
    active = answering()
    entries = [m.to_json(active=m.dir == active.model.dir) for m in registry.installed()]
    return {"models": entries, "active": active.to_json(), "install_command": INSTALL_COMMAND}


def choose(name: str | None) -> None:
    """Make `name` the active model (None: the embedded default) and drop every other warm engine.
    registry.RegistryError when it is not installed or not usable."""
    model = registry.use(name)
    cache.release_engines(keep=model.dir)


def check(name: str | None) -> None:
    """settings.set's check of a `model` value, before anything is written."""
    registry.check_usable(name)


def after_settings_change() -> None:
    """After a settings.set that changed `model`: only the answering model stays warm."""
    cache.release_engines(keep=answering().model.dir)


def for_rewrite(threads: int | None, progress: Any) -> tuple[Path, str, registry.Active]:
    """(model dir, note, answering model) for a rewrite that uses a model. The chosen model is loaded
    here first (the pipeline then finds it warm); when it fails, the embedded default answers and the
    note, for the reply's `reason`, says why."""
    active = answering()
    if active.model.embedded:
        return active.model.dir, active.fallback, active
    progress("load_model", 0.05, f"loading the model {active.model.name}")
    try:
        cache.get_engine(active.model.dir, threads=threads)
    except cache.ModelUnavailable as exc:
        embedded = registry.describe(paths.default_model_dir(), embedded=True)
        note = f"the chosen model '{active.model.name}' failed to load ({exc}); the embedded model answered"
        return embedded.dir, note, registry.Active(embedded, active.chosen, note)
    return active.model.dir, "", active


def preload(threads: int | None) -> None:
    """At host start: load the chosen model and the embedder before the first rewrite asks (issue 39: the
    0.8B shape's load was ~11 s of its first rewrite). Run in its own thread; a rewrite that comes
    meanwhile waits for the same load (cache.py, one loader per dir). The embedded default is left lazy:
    it loads in about a second, and a user who only rewrites `light` never needs it. A failure is left
    to the first rewrite, which falls back and says why."""
    active = answering()
    if active.model.embedded:
        return
    try:
        cache.get_engine(active.model.dir, threads=threads)
        cache.get_embedder(None, threads=threads)
    except cache.ModelUnavailable as exc:
        logging.getLogger("native_host.host").warning("preloading %s failed: %s", active.model.name, exc)

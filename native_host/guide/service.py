"""What the host keeps for the guide between requests, and what it loads for the alternatives.

    report(ident, text) -> GuideReport                     the guide with this process's GuideCache
    alternatives_engine(threads, progress) -> (engine, "") the active model's, or (None, why not)

The composer asks `guide` as the writer types, so one GuideCache per process keeps each sentence's
counts between requests (a call after a keystroke recounts only the sentence typed in); a lock keeps
it to one caller at a time, whichever thread of the host asks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from native_host.guide.analysis import GuideCache, GuideReport, guide
from native_host.style.identify import Identifiability

_cache = GuideCache()
_cache_lock = threading.Lock()


def report(
    ident: Identifiability, text: str, previous: str | None = None, terms: tuple[str, ...] = ()
) -> GuideReport:
    """The guide of `text` against `ident`, reusing the sentences counted for earlier texts; `previous`
    (the text as it was) and `terms` (never named) as `analysis.guide` takes them."""
    with _cache_lock:
        return guide(ident, text, _cache, previous=previous, terms=terms)


def alternatives_engine(threads: int | None, progress: Callable[..., None]) -> tuple[Any, str]:
    """(the active model's engine, its note) for model candidates and the fluency guard, or (None, why)
    when no model can be loaded: the rule edits still answer. `progress` gets the load's events."""
    from native_host import models
    from native_host.models import choice as model_choice

    try:
        model_dir, note, _ = model_choice.for_rewrite(threads, progress)
        return models.get_engine(model_dir, threads=threads), note
    except Exception as exc:
        if not isinstance(exc, models.unusable_model_errors()):
            raise
        return None, f"no model answered ({exc}); rule edits only"

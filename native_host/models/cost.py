"""What a rewrite costs with each installed model on this computer, measured from the host's own rewrites.

    RewriteCost(active, strength, text)   one rewrite's measure: `with_eta(on_progress)` while it runs,
                                          `record(result)` when it ends (the host's `rewrite` uses it)
    cost(name, stamp), estimate(...)      what was measured, for `models`/`hello` and `eta_s`

The host records every medium or strong rewrite that ran to the end with a language model (`record`):
the seconds the pipeline took, without loading the model, and the words of the text. `cost(name)` gives,
per strength, the seconds per 100 words over the last `KEEP` such rewrites, apart for the first rewrite
after the host started (it also loads the rewriting tables and the population, so it reads slower);
`estimate` turns that into the expected seconds for a text, for a progress event's `eta_s`. The
`models` and `hello` replies carry `cost` (PROTOCOL.md), which the popup and the options page show.

One small JSON file in the data dir (`paths.data_dir() / FILE`), private like the other state. It holds
figures only, never text. Nothing here may fail a rewrite: a file that cannot be read counts as empty,
one that cannot be written is logged and skipped.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from native_host import paths
from native_host.json_file import read_object_or_empty

log = logging.getLogger(__name__)

FILE = "model_costs.json"
STRENGTHS = ("medium", "strong")  # light runs no model
KEEP = 20  # rewrites kept per model, strength and kind (warm, first): the figure follows the machine
MIN_WORDS = 20  # a shorter text measures the fixed overhead of a rewrite more than its cost per word
NOT_MEASURED = (
    "not measured yet: no medium or strong rewrite of 20 words or more has run with this model on this "
    "computer (the host measures each one)"
)
_lock = threading.Lock()
# Models that have answered a rewrite in this process: the first one after start costs more.
_warm_models: set[str] = set()


class RewriteCost:
    """One rewrite's cost with its model: measured when it finishes (`record`), and, while it runs, the
    seconds left that the earlier rewrites predict (`with_eta`). `active` is the answering
    models.registry.Active, None for a light rewrite (no model, nothing measured)."""

    def __init__(self, active: Any, strength: str, text: str) -> None:
        self.active, self.strength = active, strength
        self.words = len(text.split())
        self.first = active is not None and active.model.name not in _warm_models
        self.started = time.perf_counter()
        self.expected = (
            estimate(self._name, self._stamp, strength, self.words, self.first) if active else None
        )

    @property
    def _name(self) -> str:
        return str(self.active.model.name)

    @property
    def _stamp(self) -> str | None:
        return self.active.model.install.get("installed_at")

    def with_eta(self, on_progress: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
        """`on_progress` with `eta_s` added: the whole job's estimate from earlier rewrites while it lasts
        (it counts the edit search after the windows too), else the pipeline's own (the windows' pace)."""

        def forward(event: dict[str, Any]) -> None:
            if self.expected is not None and event.get("stage") != "done":
                left = self.expected - (time.perf_counter() - self.started)
                if left > 0:
                    event = {**event, "eta_s": left}
            on_progress(event)

        return forward

    def record(self, result: Any) -> None:
        """Store the finished rewrite's seconds (model loading excluded); light, cancelled or fallen back
        to the neutralizer (the model never loaded) is not a measure."""
        if self.active is None or result.cancelled or "load_s" not in result.timings:
            return
        seconds = float(result.timings.get("total_s", 0.0)) - float(result.timings.get("load_s", 0.0))
        record(self._name, self._stamp, self.strength, self.words, seconds, self.first)
        _warm_models.add(self._name)


def _path():
    return paths.data_dir() / FILE


def _read() -> dict[str, Any]:
    return read_object_or_empty(_path())


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _runs(entry: Any) -> list[tuple[int, float]]:
    """[(words, seconds)] of a stored list, skipping anything malformed."""
    out = []
    for item in entry if isinstance(entry, list) else []:
        if (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], int)
            and isinstance(item[1], int | float)
            and item[0] > 0
            and item[1] >= 0
        ):
            out.append((int(item[0]), float(item[1])))
    return out


def record(name: str, stamp: str | None, strength: str, words: int, seconds: float, first: bool) -> None:
    """One finished rewrite of `words` words that took `seconds` (model loading excluded). `stamp` tells
    one install of a name from a later one (`installed_at`): a model installed again starts afresh."""
    if strength not in STRENGTHS or words < MIN_WORDS or seconds < 0:
        return
    kind = "first" if first else "warm"
    with _lock:
        data = _read()
        model = _obj(data.get(name))
        if not model or model.get("stamp") != stamp:
            model = {"stamp": stamp}
        per = _obj(model.get(strength))
        runs = [*_runs(per.get(kind)), (words, round(seconds, 3))][-KEEP:]
        model[strength] = {**per, kind: [list(r) for r in runs], "measured_at": _now()}
        data[name] = model
        try:
            paths.write_private(_path(), json.dumps(data, indent=1, sort_keys=True).encode("utf-8"))
        except OSError as exc:
            log.warning("cannot save the rewrite cost of %s: %s", name, exc)


def cost(name: str, stamp: str | None) -> dict[str, Any]:
    """{"medium": {...} or None, "strong": ..., "note": why nothing is measured, or ""}. Each strength's
    entry: `seconds_per_100_words` (the warm figure, or the first-after-start one when no warm rewrite is
    recorded), `warm` (true when it is the warm figure), `rewrites` and `words` it is measured over,
    `first_seconds_per_100_words` (null when none), `measured_at`."""
    model = _obj(_read().get(name))
    if model.get("stamp") != stamp:
        model = {}
    out: dict[str, Any] = {}
    for strength in STRENGTHS:
        per = _obj(model.get(strength))
        warm, first = _runs(per.get("warm")), _runs(per.get("first"))
        runs = warm or first
        if not runs:
            out[strength] = None
            continue
        out[strength] = {
            "seconds_per_100_words": _per_100(runs),
            "warm": bool(warm),
            "rewrites": len(runs),
            "words": sum(w for w, _ in runs),
            "first_seconds_per_100_words": _per_100(first) if first else None,
            "measured_at": per.get("measured_at"),
        }
    out["note"] = "" if any(out[s] for s in STRENGTHS) else NOT_MEASURED
    return out


def estimate(name: str, stamp: str | None, strength: str, words: int, first: bool) -> float | None:
    """Expected seconds for a rewrite of `words` words at `strength`, from what was measured (the first
    after start from the first-rewrite figures when there are any); None when nothing was."""
    entry = cost(name, stamp).get(strength)
    if not entry:
        return None
    per_100 = entry["first_seconds_per_100_words"] if first and entry["first_seconds_per_100_words"] else None
    return (per_100 or entry["seconds_per_100_words"]) * words / 100


def _per_100(runs: list[tuple[int, float]]) -> float:
    return round(100 * sum(s for _, s in runs) / sum(w for w, _ in runs), 2)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

"""One small handler per message type (PROTOCOL.md §3), one module per request family, and `routes()`,
the dispatch table that names them:

    context.py    what a handler gets (`Context`) and raises (`Cancelled`), `Route`; shared helpers
    session.py    hello, cancel, settings.get, settings.set, models; debug.sleep (tests only)
    texts.py      analyze, neutralize (and the target-style object `rewrite` reads too)
    guiding.py    guide, guide.alternatives
    rewriting.py  rewrite (its cost measured by native_host/models/cost.py)
    profiles.py   profile.show, profile.add, profile.clear

A handler takes (params, ctx) and returns the `result` object, or raises ProtocolError. Its route's lane
says where it runs (server.py): READER on the reader thread, answered at once even while jobs run; JOBS
one at a time in arrival order by the job worker (anything that loads a model, runs long or writes);
LIGHT one at a time in arrival order by the light worker, beside the job worker: quick analysis with no
model (`guide`, `analyze`), so the composer's guide is answered while a rewrite or alternatives run.
"""

from __future__ import annotations

import os

from native_host.host.handlers import guiding, profiles, rewriting, session, texts
from native_host.host.handlers.context import (
    DEBUG_ENV,
    JOBS,
    LIGHT,
    READER,
    WORKER_LANES,
    Cancelled,
    Context,
    Handler,
    Route,
)

__all__ = [
    "DEBUG_ENV",
    "JOBS",
    "LIGHT",
    "READER",
    "WORKER_LANES",
    "Cancelled",
    "Context",
    "Handler",
    "Route",
    "routes",
]


def routes() -> dict[str, Route]:
    table = {
        "hello": Route(session.hello, READER),
        "analyze": Route(texts.analyze, LIGHT),
        "guide": Route(guiding.guide, LIGHT),
        "guide.alternatives": Route(guiding.guide_alternatives),
        "neutralize": Route(texts.neutralize),
        "rewrite": Route(rewriting.rewrite),
        "cancel": Route(session.cancel, READER),
        "profile.show": Route(profiles.profile_show, READER),
        "profile.add": Route(profiles.profile_add),
        "profile.clear": Route(profiles.profile_clear),
        "settings.get": Route(session.settings_get, READER),
        "settings.set": Route(session.settings_set, READER),
        "models": Route(session.models_, READER),
    }
    if os.environ.get(DEBUG_ENV) == "1":
        table["debug.sleep"] = Route(session.debug_sleep)
        table["debug.sleep_light"] = Route(session.debug_sleep, LIGHT)  # the same on the light lane
    return table

"""One small handler per message type (PROTOCOL.md §3), one module per request family, and `routes()`,
the dispatch table that names them:

    context.py    what a handler gets (`Context`) and raises (`Cancelled`), `Route`; shared helpers
    session.py    hello, cancel, settings.get, settings.set, models; debug.sleep (tests only)
    texts.py      analyze, neutralize (and the target-style object `rewrite` reads too)
    guiding.py    guide, guide.alternatives
    rewriting.py  rewrite (its cost measured by native_host/models/cost.py)
    profiles.py   profile.show, profile.add, profile.clear

A handler takes (params, ctx) and returns the `result` object, or raises ProtocolError. Handlers
marked `immediate` run on the reader thread (answered even while a job runs); the others are jobs,
run one at a time in arrival order by the worker.
"""

from __future__ import annotations

import os

from native_host.host.handlers import guiding, profiles, rewriting, session, texts
from native_host.host.handlers.context import DEBUG_ENV, Cancelled, Context, Handler, Route

__all__ = ["DEBUG_ENV", "Cancelled", "Context", "Handler", "Route", "routes"]


def routes() -> dict[str, Route]:
    table = {
        "hello": Route(session.hello, immediate=True),
        "analyze": Route(texts.analyze),
        "guide": Route(guiding.guide),
        "guide.alternatives": Route(guiding.guide_alternatives),
        "neutralize": Route(texts.neutralize),
        "rewrite": Route(rewriting.rewrite),
        "cancel": Route(session.cancel, immediate=True),
        "profile.show": Route(profiles.profile_show, immediate=True),
        "profile.add": Route(profiles.profile_add),
        "profile.clear": Route(profiles.profile_clear),
        "settings.get": Route(session.settings_get, immediate=True),
        "settings.set": Route(session.settings_set, immediate=True),
        "models": Route(session.models_, immediate=True),
    }
    if os.environ.get(DEBUG_ENV) == "1":
        table["debug.sleep"] = Route(session.debug_sleep)
    return table

"""Shared fixtures. Every test gets its own FANTASMA_HOME so nothing touches the real user dirs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.checkpoints import export_default_model


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("fantasma_home")
    monkeypatch.setenv("FANTASMA_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def embedder_model_dir(tmp_path_factory):
    """all-MiniLM-L6-v2 exported once per test session (rewrite engineer; meaning guard)."""
    from export.bert import export_default_embedder

    return export_default_embedder(tmp_path_factory.mktemp("embedder") / "all-minilm-l6-v2").parent


@pytest.fixture(scope="session")
def default_model_dir(request) -> Path:
    """The embedded default model as `fantasma setup` makes it (adapter merged, int4), exported once into
    pytest's cache (tests/checkpoints.py, whose docstring names what differs from a user's install)."""
    return export_default_model(request.config.cache)


@pytest.fixture(scope="session")
def playwright_instance():
    """One Playwright driver for the whole session: its sync API runs an event loop, and a second
    `sync_playwright()` inside a running one is refused (tests/e2e and tests/install both drive Chromium)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The Debian package's end-to-end tests (marker `deb`) run in `make test-deb` (FANTASMA_TEST_DEB=1),
    which CI runs after `make test`; elsewhere they are deselected, never skipped, so `-ra` shows no skip."""
    if os.environ.get("FANTASMA_TEST_DEB") == "1":
        return
    deb = [item for item in items if item.get_closest_marker("deb")]
    if deb:
        config.hook.pytest_deselected(items=deb)
        items[:] = [item for item in items if not item.get_closest_marker("deb")]

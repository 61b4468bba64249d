"""Shared fixtures. Every test gets its own FANTASMA_HOME so nothing touches the real user dirs."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("fantasma_home")
    monkeypatch.setenv("FANTASMA_HOME", str(home))
    return home

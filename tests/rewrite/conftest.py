"""Rewrite fixtures: the embedded default model (the shared export cache, tests/conftest.py) and a
fresh process-wide model cache per test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def rewrite_model_dir(default_model_dir: Path) -> Path:
    return default_model_dir


@pytest.fixture(autouse=True)
def fresh_model_cache():
    """Each test sees the process-wide model cache as a new host process would."""
    from native_host import models

    models.forget()
    yield
    models.forget()

"""Eval fixtures: the default language model (for the perplexity ratio), from the shared export cache
(tests/conftest.py), so a run exports it once."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def host_llm_dir(default_model_dir: Path) -> Path:
    return default_model_dir

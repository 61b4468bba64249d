"""Eval fixtures: the default language model (for the perplexity ratio), from the shared export cache
(tests/conftest.py), so a run exports it once."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def host_llm_dir(default_model_dir: Path) -> Path:
    return default_model_dir


@pytest.fixture
def models_in_home(isolated_home, embedder_model_dir: Path, host_llm_dir: Path) -> None:
    """The embedder and the language model where `fantasma setup` puts them, as symlinks into the test's
    home: the eval finds them there."""
    from native_host import paths

    paths.embedder_dir().parent.mkdir(parents=True, exist_ok=True)
    paths.embedder_dir().symlink_to(embedder_model_dir, target_is_directory=True)
    paths.default_model_dir().symlink_to(host_llm_dir, target_is_directory=True)

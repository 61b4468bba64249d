"""Host fixtures: the default model dirs placed where a real host finds them (FANTASMA_HOME)."""

from __future__ import annotations

from pathlib import Path

import pytest

from native_host.host.client import HostProcess


@pytest.fixture
def models_installed(isolated_home, default_model_dir, embedder_model_dir) -> Path:
    """The user's model dirs (as `fantasma setup` leaves them), as symlinks into the test's home."""
    from native_host import paths

    paths.default_model_dir().parent.mkdir(parents=True, exist_ok=True)
    paths.default_model_dir().symlink_to(default_model_dir, target_is_directory=True)
    paths.embedder_dir().symlink_to(embedder_model_dir, target_is_directory=True)
    return paths.default_model_dir()


@pytest.fixture
def host():
    """A real host over real pipes (in the test's own FANTASMA_HOME): it must exit cleanly and never
    break the protocol."""
    with HostProcess() as proc:
        yield proc
        assert proc.close() == 0
        assert proc.violations == [], proc.violations

"""Host fixtures: the default model dirs placed where a real host finds them (FANTASMA_HOME)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _exporter_digest() -> str:
    # Same cache name and key as tests/rewrite/conftest.py and tests/engine/conftest.py, so a run
    # that includes them exports the default model once.
    digest = hashlib.sha1()
    for path in sorted((REPO / "export").glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:12]


@pytest.fixture(scope="session")
def host_llm_dir(request) -> Path:
    from export.llama import export
    from export.registry import ExportOptions
    from native_host.assets import smollm2_gguf

    root = Path(request.config.cache.mkdir("fantasma-default-model"))
    out = root / _exporter_digest()
    if not (out / "fantasma_model.json").is_file():
        for stale in root.iterdir():
            shutil.rmtree(stale, ignore_errors=True)
        tmp = root / (out.name + ".partial")
        export(smollm2_gguf(), tmp, ExportOptions())
        tmp.rename(out)
    return out


@pytest.fixture
def models_installed(isolated_home, host_llm_dir, embedder_model_dir) -> Path:
    """The user's model dirs (as `fantasma setup` leaves them), as symlinks into the test's home."""
    from native_host import paths

    paths.default_model_dir().parent.mkdir(parents=True, exist_ok=True)
    paths.default_model_dir().symlink_to(host_llm_dir, target_is_directory=True)
    paths.embedder_dir().symlink_to(embedder_model_dir, target_is_directory=True)
    return paths.default_model_dir()

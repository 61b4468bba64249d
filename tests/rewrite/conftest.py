"""Rewrite fixtures: the embedded default model, exported once into pytest's cache.

Same cache location and key as tests/engine/conftest.py (the exporter sources' digest), so a run
that includes both exports it once.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _exporter_digest() -> str:
    digest = hashlib.sha1()
    for path in sorted((REPO / "export").glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:12]


@pytest.fixture(scope="session")
def rewrite_model_dir(request) -> Path:
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


@pytest.fixture(autouse=True)
def fresh_model_cache():
    """Each test sees the process-wide model cache as a new host process would."""
    from native_host.rewrite import models

    models.forget()
    yield
    models.forget()

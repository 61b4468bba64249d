"""Engine fixtures: the embedded default model (SmolLM2-135M-Instruct, int4), exported once.

The model dir is cached in pytest's cache dir under a key made of the exporter sources, so a change to
export/ re-exports it and an unchanged tree reuses it across runs and test files.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from native_host.engine import Engine

REPO = Path(__file__).resolve().parents[2]


def _exporter_digest() -> str:
    digest = hashlib.sha1()
    for path in sorted((REPO / "export").glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:12]


def _export_default(request, cache_name: str, accuracy_level: int) -> Path:
    from export.graph import Precision
    from export.llama import export
    from export.registry import ExportOptions
    from native_host.assets import smollm2_gguf

    root = Path(request.config.cache.mkdir(cache_name))
    out = root / _exporter_digest()
    if not (out / "fantasma_model.json").is_file():
        for stale in root.iterdir():
            shutil.rmtree(stale, ignore_errors=True)
        tmp = root / (out.name + ".partial")
        export(smollm2_gguf(), tmp, ExportOptions(Precision("int4", 32, accuracy_level)))
        tmp.rename(out)
    return out


@pytest.fixture(scope="session")
def default_model_dir(request) -> Path:
    """The default model exactly as `fantasma setup` makes it (int4, int8 activations)."""
    return _export_default(request, "fantasma-default-model", accuracy_level=4)


@pytest.fixture(scope="session")
def exact_engine(request) -> Engine:
    """The default model with fp32 activations in MatMulNBits (accuracy_level 0).

    With int8 activations (level 4) onnxruntime's 1-token pass differs from the rows of a multi-token
    pass by up to ~0.5 in the logits; the engine avoids the 1-token path (Runner.check_single_token_rows)
    except in batches. With fp32 activations the paths agree to ~5e-5, so the speculation logic is also
    tested where that padding hardly matters (docs/engine.md).
    """
    return Engine.load(_export_default(request, "fantasma-default-model-acc0", accuracy_level=0))


@pytest.fixture(scope="session")
def engine(default_model_dir) -> Engine:
    return Engine.load(default_model_dir)


@pytest.fixture(scope="session")
def chat_prompt(engine) -> list[int]:
    return engine.encode(engine.render_chat([{"role": "user", "content": "What is the capital of France?"}]))


@pytest.fixture(scope="session")
def hybrid_engine(tmp_path_factory) -> Engine:
    """A tiny random Qwen3.5 checkpoint (Gated DeltaNet conv/recurrent states + attention key/value),
    exported in fp32."""
    pytest.importorskip("torch")
    from tests.engine.tiny_hybrid import export_tiny_hybrid

    return Engine.load(export_tiny_hybrid(tmp_path_factory))

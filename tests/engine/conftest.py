"""Engine fixtures: the embedded default model (SmolLM2-135M-Instruct with the shipped rewriting adapter
merged, int4) as `fantasma setup` makes it, exported once (tests/checkpoints.py, the same cache and key
as tests/conftest.py's `default_model_dir`, which these tests use as is).
"""

from __future__ import annotations

import pytest

from native_host.engine import Engine
from tests.checkpoints import export_default_model


@pytest.fixture(scope="session")
def exact_engine(request) -> Engine:
    """The default model with fp32 activations in MatMulNBits (accuracy_level 0), otherwise as setup
    makes it (the same merged weights, int4 blocks and source label; tests/checkpoints.py).

    With int8 activations (level 4) onnxruntime's 1-token pass differs from the rows of a multi-token
    pass by up to ~0.5 in the logits; the engine avoids the 1-token path (Runner.check_single_token_rows)
    except in batches. With fp32 activations the paths agree to ~5e-5, so the speculation logic is also
    tested where that padding hardly matters (docs/engine.md).
    """
    return Engine.load(export_default_model(request.config.cache, accuracy_level=0))


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

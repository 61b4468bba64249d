"""Train fixtures: tiny random Llama and Qwen3.5 checkpoints (save_pretrained, fp32) and the embedded
default model (the shared export cache, tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from train_helpers import EOS, QWEN35_TEXT_CONFIG, VOCAB

from tests.checkpoints import save_tiny_llama, tiny_tokenizer_json


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory) -> Path:
    # rms_norm_eps: LlamaConfig's default (the exporter's tiny checkpoints use 1e-5).
    return save_tiny_llama(
        tmp_path_factory.mktemp("train_llama"),
        vocab_size=VOCAB,
        eos_token_id=EOS,
        initializer_range=0.1,
        rms_norm_eps=1e-6,
    )


@pytest.fixture(scope="session")
def tiny_qwen35(tmp_path_factory) -> Path:
    import torch
    from transformers import Qwen3_5ForCausalLM, Qwen3_5TextConfig

    out = tmp_path_factory.mktemp("train_qwen35")
    torch.manual_seed(0)
    # initializer_range 0.1 (default 0.02): a random model that far from uniform output learns the toy
    # task in a few steps, as the Llama fixture does.
    Qwen3_5ForCausalLM(Qwen3_5TextConfig(**QWEN35_TEXT_CONFIG, initializer_range=0.1)).eval().save_pretrained(
        out
    )
    tiny_tokenizer_json(out / "tokenizer.json", VOCAB)
    return out


@pytest.fixture(scope="session")
def default_int4_dir(default_model_dir: Path) -> Path:
    """The embedded SmolLM2 as int4 (the shared export cache, tests/conftest.py)."""
    return default_model_dir

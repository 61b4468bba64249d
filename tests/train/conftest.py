"""Train fixtures: tiny random Llama and Qwen3.5 checkpoints (save_pretrained, fp32), a toy task, and the
embedded default model exported once (the same pytest cache entry as tests/rewrite and tests/engine)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from train_helpers import EOS, QWEN35_TEXT_CONFIG, VOCAB

REPO = Path(__file__).resolve().parents[2]


def _tokenizer(path: Path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel(vocab={f"t{i}": i for i in range(VOCAB)}, unk_token="t0"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(path))


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    out = tmp_path_factory.mktemp("train_llama")
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        tie_word_embeddings=False,
        bos_token_id=1,
        eos_token_id=EOS,
        initializer_range=0.1,
    )
    LlamaForCausalLM(config).eval().save_pretrained(out)
    _tokenizer(out / "tokenizer.json")
    return out


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
    _tokenizer(out / "tokenizer.json")
    return out


def _exporter_digest() -> str:
    digest = hashlib.sha1()
    for path in sorted((REPO / "export").glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:12]


@pytest.fixture(scope="session")
def default_int4_dir(request) -> Path:
    """The embedded SmolLM2 as int4, cached like tests/rewrite's rewrite_model_dir."""
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

"""Model checkpoints the tests share: tiny random Llama checkpoints with a word-level tokenizer, and the
embedded default model exported once into pytest's cache. A plain module (conftest names collide across
test dirs); the fixtures over it live in the conftests."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TINY_VOCAB = 256


def tiny_tokenizer_json(path: Path, vocab_size: int = TINY_VOCAB) -> Path:
    """A word-level tokenizer with `vocab_size` entries (token i is "t{i}"); checkpoints need one."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {f"t{i}": i for i in range(vocab_size)}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="t0"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(path))
    return path


def save_tiny_llama(out: Path, **overrides) -> Path:
    """A random 2-layer Llama (seed 0) saved with save_pretrained, plus its tokenizer; `overrides` are
    LlamaConfig fields."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    settings = dict(
        vocab_size=TINY_VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        bos_token_id=1,
        eos_token_id=2,
    )
    settings.update(overrides)
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**settings)).eval()
    model.save_pretrained(out)
    tiny_tokenizer_json(out / "tokenizer.json", settings["vocab_size"])
    return out


def _exporter_digest() -> str:
    digest = hashlib.sha1()
    for path in sorted((REPO / "export").glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:12]


def export_default_model(cache: pytest.Cache) -> Path:
    """The embedded SmolLM2 as `fantasma setup` makes it (int4), exported into pytest's cache under a key
    made of the exporter sources: a change to export/ re-exports it, an unchanged tree reuses it across
    runs and test dirs. tests/engine/conftest.py uses the same cache name and key."""
    from export.llama import export
    from export.registry import ExportOptions
    from native_host.assets import smollm2_gguf

    root = Path(cache.mkdir("fantasma-default-model"))
    out = root / _exporter_digest()
    if not (out / "fantasma_model.json").is_file():
        for stale in root.iterdir():
            shutil.rmtree(stale, ignore_errors=True)
        tmp = root / (out.name + ".partial")
        export(smollm2_gguf(), tmp, ExportOptions())
        tmp.rename(out)
    return out

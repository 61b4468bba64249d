"""A tiny random Qwen3.5 checkpoint (Gated DeltaNet conv/recurrent states + attention key/value),
exported in fp32: the hybrid model the engine tests run on."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from export.graph import Precision

VOCAB = 320
TEXT_CONFIG = dict(
    vocab_size=VOCAB,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=4,  # linear, linear, linear, full
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=64,
    linear_num_key_heads=2,
    linear_num_value_heads=4,
    linear_key_head_dim=16,
    linear_value_head_dim=16,
    linear_conv_kernel_dim=4,
    max_position_embeddings=256,
    rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
    eos_token_id=2,
    tie_word_embeddings=False,
)


def random_hybrid_weights(model) -> None:
    """Weights drawn from torch's global generator: A_log in the range real checkpoints have, norms and
    dt_bias left at their initial values, the rest N(0, 0.1)."""
    import torch

    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("A_log"):
                p.copy_(torch.log(torch.rand(p.shape) * 15 + 1))
            elif "norm" not in name and not name.endswith("dt_bias"):
                p.copy_(torch.randn(p.shape) * 0.1)


def export_tiny_hybrid(tmp_path_factory: pytest.TempPathFactory, precision: Precision | None = None) -> Path:
    """The tiny checkpoint exported with `precision` (default fp32)."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import Qwen3_5ForCausalLM, Qwen3_5TextConfig

    from export.graph import Precision
    from export.qwen35 import export
    from export.registry import ExportOptions

    source = tmp_path_factory.mktemp("tiny_qwen35")
    torch.manual_seed(0)
    model = Qwen3_5ForCausalLM(Qwen3_5TextConfig(**TEXT_CONFIG)).eval()
    random_hybrid_weights(model)
    model.save_pretrained(source)
    tokenizer = Tokenizer(models.WordLevel(vocab={f"t{i}": i for i in range(VOCAB)}, unk_token="t0"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(source / "tokenizer.json"))
    out = tmp_path_factory.mktemp("tiny_qwen35_dir") / "model"
    export(Path(source), out, ExportOptions(precision=precision or Precision("fp32")))
    return out

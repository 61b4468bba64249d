"""Odd but legal Llama shapes: int4 with a hidden size that is not a multiple of the block size exports
a model that loads and tracks fp32; a head_dim GroupQueryAttention cannot run is refused at export in
one line, not at the first generation with a traceback."""

from __future__ import annotations

import pytest

from export.graph import Precision
from export.llama import export
from export.registry import ExportOptions
from tests.checkpoints import save_tiny_llama
from tests.export.export_helpers import export_error_line, teacher_forced_agreement

PROMPT = [5, 17, 42, 99, 150, 7, 8, 200]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("hidden", "heads", "kv_heads", "block_size", "tied"),
    [
        (64, 4, 2, 32, True),  # aligned: the baseline the others are held to
        (96, 6, 2, 64, True),  # 96 = 1.5 blocks of 64 (the case)
        (80, 5, 5, 32, False),  # 80 = 2.5 blocks of 32, untied head
        (64, 4, 2, 128, True),  # narrower than one block of 128
    ],
)
def test_int4_loads_and_tracks_fp32_when_hidden_is_not_a_block_multiple(
    hidden, heads, kv_heads, block_size, tied, tmp_path, ort_decoder
):
    checkpoint = save_tiny_llama(
        tmp_path / "ckpt",
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        tie_word_embeddings=tied,
        initializer_range=0.1,
    )
    export(checkpoint, tmp_path / "fp32", ExportOptions(Precision("fp32")))
    export(checkpoint, tmp_path / "int4", ExportOptions(Precision("int4", block_size=block_size)))
    equal, cosine = teacher_forced_agreement(
        ort_decoder(tmp_path / "fp32"), ort_decoder(tmp_path / "int4"), PROMPT, steps=24
    )
    agree = equal / 24  # share of steps with the same argmax
    # Random tiny models are a rough check (measured 2026-11-30: aligned 64/32 0.88 argmax, cosine 0.93;
    # 96/64 0.71, 0.85; 80/32 0.96, 0.90; 64/128 0.92, 0.92); before the fix the padded ones did not
    # load. The real-model check is SmolLM2 at --block-size 128 in test_llama_gguf.py.
    assert agree >= 0.65 and cosine > 0.8, (agree, cosine)


def test_head_dim_that_group_query_attention_cannot_run_is_refused_in_one_line(tmp_path):
    checkpoint = save_tiny_llama(
        tmp_path / "ckpt", hidden_size=48, num_attention_heads=4, num_key_value_heads=2
    )
    line = export_error_line(checkpoint, tmp_path / "out")
    assert "head_dim 12" in line and "multiple of 16" in line, line
    assert "Traceback" not in line and not (tmp_path / "out").exists()

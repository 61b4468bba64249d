"""Hugging Face dirs as sources: sharded bf16 safetensors read without torch, metadata files honoured."""

from __future__ import annotations

import json

import numpy as np
import pytest

from export.graph import Precision
from export.hf_source import CheckpointError, HFCheckpoint
from export.llama import export
from export.registry import ExportOptions


@pytest.fixture(scope="module")
def sharded_bf16_dir(tmp_path_factory, write_tiny_tokenizer):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    out = tmp_path_factory.mktemp("sharded_bf16")
    torch.manual_seed(3)
    config = LlamaConfig(
        vocab_size=256,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=1,
        max_position_embeddings=64,
        eos_token_id=[2, 5],
        bos_token_id=1,
    )
    model = LlamaForCausalLM(config).to(torch.bfloat16).eval()
    model.save_pretrained(out, max_shard_size="60KB")
    write_tiny_tokenizer(out / "tokenizer.json")
    (out / "chat_template.jinja").write_text("{% for m in messages %}{{ m['content'] }}{% endfor %}")
    return out, model


def test_sharded_bf16_tensors_read_exactly(sharded_bf16_dir):
    folder, model = sharded_bf16_dir
    assert (folder / "model.safetensors.index.json").is_file()
    assert len(list(folder.glob("*.safetensors"))) > 1
    checkpoint = HFCheckpoint(folder)
    state = model.state_dict()
    for name in checkpoint.names():
        got = checkpoint.get(name)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, state[name].float().numpy(), err_msg=name)


def test_bf16_export_matches_transformers_in_fp32(sharded_bf16_dir, tmp_path, ort_decoder):
    import torch
    from transformers import LlamaForCausalLM

    folder, _ = sharded_bf16_dir
    meta = export(folder, tmp_path / "m", ExportOptions(Precision("fp32")))
    assert meta["eos_token_ids"] == [2, 5]
    assert meta["chat_template"].startswith("{% for m in messages %}")
    ids = list(range(3, 23))
    reference = LlamaForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    with torch.no_grad():
        expected = reference(torch.tensor([ids])).logits[0].numpy()
    decoder = ort_decoder(tmp_path / "m")
    ours = np.concatenate([decoder.step(ids[:12], keep=12), *[decoder.step([t]) for t in ids[12:]]])
    assert np.abs(ours - expected).max() <= 1e-3


def test_missing_shard_is_named(sharded_bf16_dir, tmp_path):
    folder, _ = sharded_bf16_dir
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    copy = tmp_path / "partial"
    copy.mkdir()
    for name in ("config.json", "model.safetensors.index.json"):
        (copy / name).write_bytes((folder / name).read_bytes())
    with pytest.raises(CheckpointError, match="shards listed in the index are missing"):
        HFCheckpoint(copy)
    assert index["weight_map"]

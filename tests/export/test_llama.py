"""Llama export vs transformers: fp32 logits over prefill + decode, int4 greedy agreement, model-dir contract."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest

from export.graph import Precision
from export.llama import export
from export.modeldir import read_meta
from export.registry import ExportOptions

PREFILL, DECODE = 16, 16


def reference_logits(checkpoint_dir, ids: list[int]) -> np.ndarray:
    import torch
    from transformers import LlamaForCausalLM

    model = LlamaForCausalLM.from_pretrained(checkpoint_dir, dtype=torch.float32).eval()
    with torch.no_grad():
        return model(torch.tensor([ids])).logits[0].numpy()


def prefill_then_decode(decoder, ids: list[int], prefill: int) -> np.ndarray:
    """Logits for every position: one prefill chunk keeping all its logits, then one token at a time."""
    rows = [decoder.step(ids[:prefill], keep=prefill)]
    rows += [decoder.step([token], keep=1) for token in ids[prefill:]]
    return np.concatenate(rows)


@pytest.mark.slow
@pytest.mark.parametrize("fixture", ["tiny_llama_dir", "tiny_llama_tied_dir"])
def test_fp32_logits_match_transformers_over_prefill_and_decode(fixture, request, tmp_path, ort_decoder):
    checkpoint = request.getfixturevalue(fixture)
    export(checkpoint, tmp_path / "fp32", ExportOptions(Precision("fp32")))
    ids = np.random.default_rng(1).integers(3, 256, PREFILL + DECODE).tolist()

    ours = prefill_then_decode(ort_decoder(tmp_path / "fp32"), ids, PREFILL)
    reference = reference_logits(checkpoint, ids)

    assert ours.shape == reference.shape == (PREFILL + DECODE, 256)
    assert np.abs(ours - reference).max() <= 1e-3
    assert np.abs(reference).max() > 0.1  # the comparison is not between two near-zero tensors


def test_num_logits_to_keep_slices_the_last_positions(tiny_llama_dir, tmp_path, ort_decoder):
    export(tiny_llama_dir, tmp_path / "m", ExportOptions(Precision("fp32")))
    ids = list(range(10, 22))
    all_rows = ort_decoder(tmp_path / "m").step(ids, keep=len(ids))
    last = ort_decoder(tmp_path / "m").step(ids, keep=1)
    last_three = ort_decoder(tmp_path / "m").step(ids, keep=3)
    assert last.shape == (1, 256) and last_three.shape == (3, 256)
    np.testing.assert_allclose(last[0], all_rows[-1], atol=1e-5)
    np.testing.assert_allclose(last_three, all_rows[-3:], atol=1e-5)


def test_int4_greedy_agrees_with_fp32(tiny_llama_tied_dir, tmp_path, ort_decoder):
    """fp32 decodes greedily for 64 steps; int4 is fed the same tokens (teacher forcing, so one early
    flip does not derail the rest) and its argmax must match fp32's at >= 90% of the steps.

    Random weights make this delicate (see the fixture): the model must neither collapse to one token
    nor amplify quantization noise chaotically. The stronger check is SmolLM2 in test_llama_gguf.py.
    """
    export(tiny_llama_tied_dir, tmp_path / "fp32", ExportOptions(Precision("fp32")))
    export(tiny_llama_tied_dir, tmp_path / "int4", ExportOptions(Precision("int4", block_size=32)))
    fp32, int4 = ort_decoder(tmp_path / "fp32"), ort_decoder(tmp_path / "int4")
    prompt = [5, 17, 42, 99, 150, 7, 8, 200]
    fp32_logits, int4_logits = fp32.step(prompt)[-1], int4.step(prompt)[-1]
    agree, generated = 0, set()
    for _ in range(64):
        token = int(fp32_logits.argmax())
        agree += token == int(int4_logits.argmax())
        generated.add(token)
        fp32_logits, int4_logits = fp32.step([token])[-1], int4.step([token])[-1]
    assert agree / 64 >= 0.9, f"int4 agreed with fp32 on {agree}/64 greedy steps"
    assert len(generated) >= 3  # not a degenerate model repeating one token


def test_model_dir_contract(tiny_llama_dir, tmp_path):
    """fantasma_model.json names exactly the graph's inputs/outputs, and int4 uses the contrib ops."""
    meta = export(tiny_llama_dir, tmp_path / "m", ExportOptions(Precision("int4")))
    assert read_meta(tmp_path / "m") == json.loads((tmp_path / "m" / "fantasma_model.json").read_text())
    model = onnx.load(str(tmp_path / "m" / "model.onnx"), load_external_data=False)
    inputs = [i.name for i in model.graph.input]
    outputs = [o.name for o in model.graph.output]
    assert inputs == ["input_ids", "attention_mask", "num_logits_to_keep"] + [
        s["input"] for s in meta["state"]
    ]
    assert set(outputs) == {"logits"} | {s["output"] for s in meta["state"]}
    assert meta["layer_kinds"] == ["full_attention", "full_attention"]
    assert [s["kind"] for s in meta["state"]] == ["key", "value", "key", "value"]
    assert meta["state"][0]["shape"] == ["batch", 2, "past_sequence_length", 16]
    assert meta["eos_token_ids"] == [2] and meta["bos_token_id"] == 1
    assert meta["precision"] == {"kind": "int4", "block_size": 32, "accuracy_level": 4}
    op_types = {node.op_type for node in model.graph.node}
    assert {"MatMulNBits", "GatherBlockQuantized", "GroupQueryAttention"} <= op_types
    assert "MatMul" not in op_types  # every linear layer is int4
    assert (tmp_path / "m" / "model.onnx.data").stat().st_size > 0

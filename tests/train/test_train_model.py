"""`fantasma train --model SPEC` on a tiny random Qwen3.5: the recipe exports the hybrid, generates through
the engine, trains LoRA on the attention, MLP and Gated DeltaNet projections, merges, exports the round's
model, and writes the adapter + hash manifest that export/lora.py reads; the adapter merged into an fp32
export gives PEFT's own merged model's logits.

Random weights write nonsense that no guard accepts, so the first run stops with "too little data"
after generating (its candidates are kept, as the recipe promises); the test then marks one candidate per
window accepted — the toy task's completion, in the candidates file the recipe resumes from — and reruns
the same command, which trains from there. Everything else is the product's own path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from train_helpers import EOS, VOCAB, onnx_logits

from export.lora import load_shipped

pytestmark = pytest.mark.slow

# attention, MLP and every Gated DeltaNet projection (written out: the test must not trust the constant)
EXPECTED_TARGETS = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
                    "in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "out_proj"}  # fmt: skip
CHAT_TOKENS = {"<|im_end|>": EOS, "<|im_start|>": 3, "<think>": 4, "</think>": 5}


@pytest.fixture(scope="module")
def tiny_qwen35_chat(tiny_qwen35, tmp_path_factory) -> Path:
    """The tiny random Qwen3.5 with a word-level tokenizer that knows ChatML's tokens (<|im_end|> is its
    eos) and the think tags, so the recipe's prompts, chat template and end of turn are real ones."""
    import shutil

    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

    out = tmp_path_factory.mktemp("qwen35_chat") / "checkpoint"
    shutil.copytree(tiny_qwen35, out)
    vocab = {f"t{i}": i for i in range(VOCAB)}
    for token, i in CHAT_TOKENS.items():
        vocab = {k: v for k, v in vocab.items() if v != i} | {token: i}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="t0"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.add_special_tokens([AddedToken(t, special=True) for t in CHAT_TOKENS])
    tokenizer.save(str(out / "tokenizer.json"))
    return out


def fantasma(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "native_host.cli", *args], capture_output=True, text=True, timeout=900
    )


def test_train_model_runs_the_recipe_on_a_hybrid(tiny_qwen35_chat, embedder_model_dir, tmp_path):
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    from export.graph import Precision
    from export.lora import export_merged
    from export.registry import ExportOptions
    from native_host import paths

    paths.embedder_dir().parent.mkdir(parents=True, exist_ok=True)
    paths.embedder_dir().symlink_to(embedder_model_dir, target_is_directory=True)
    run = tmp_path / "run"
    tiny_qwen35 = tiny_qwen35_chat
    command = ("train", "--model", str(tiny_qwen35), "--out", str(run), "--windows", "2", "--rounds", "1",
               "--candidates", "2", "--selection", "pipeline", "--min-examples", "1", "--epochs", "2",
               "--batch-size", "2", "--lr", "2e-2", "--threads", "2")  # fmt: skip
    first = fantasma(*command)
    assert first.returncode == 1, first.stderr
    assert "kept 0 examples" in first.stderr
    meta = json.loads((run / "round_0" / "model" / "fantasma_model.json").read_text())
    assert meta["architecture"] == "qwen3_5" and "linear_attention" in meta["layer_kinds"]
    recorded = json.loads((run / "recipe.json").read_text())["config"]
    assert set(recorded["lora"]["targets"]) == EXPECTED_TARGETS

    candidates = run / "round_1" / "candidates.jsonl"
    records = [json.loads(line) for line in candidates.read_text().splitlines()]
    assert len(records) == 2 and all(r["best"] is None for r in records)  # generated, all refused
    for k, record in enumerate(records):
        record["best"] = 0
        record["candidates"][0].update(
            guard="", text="accepted", similarity=0.9, removed=0.0, change=0.5, score=1.0
        )
        record["target_ids"] = [30 + k, 31 + k, 32 + k, EOS]
    candidates.write_text("".join(json.dumps(r) + "\n" for r in records))

    second = fantasma(*command)
    assert second.returncode == 0, second.stderr
    assert "adapter.json" in second.stdout
    metrics = json.loads((run / "round_1" / "metrics.json").read_text())
    assert metrics["training"]["steps"] == 2 and metrics["training"]["device"] == "cpu"
    assert (run / "round_1" / "model" / "fantasma_model.json").is_file()  # the merged round's int4 model

    adapter = load_shipped(run / "adapter.json")  # what `setup --model SPEC --adapter FILE` reads
    kinds = {module.rsplit(".", 1)[1] for module in adapter.factors}
    assert kinds == EXPECTED_TARGETS
    assert any(".linear_attn." in m for m in adapter.factors) and any(
        ".self_attn." in m for m in adapter.factors
    )

    # the adapter merged by numpy and exported in fp32 = PEFT's own merge in torch
    out = tmp_path / "merged_fp32"
    export_merged(tiny_qwen35, out, adapter, ExportOptions(Precision("fp32")))
    base = AutoModelForCausalLM.from_pretrained(str(tiny_qwen35), dtype=torch.float32)
    rank = next(iter(adapter.factors.values()))[0].shape[0]
    peft_model = get_peft_model(
        base, LoraConfig(r=rank, lora_alpha=adapter.scale * rank, target_modules=sorted(EXPECTED_TARGETS))
    )
    with torch.no_grad():
        for module, (a, b) in adapter.factors.items():
            layer = peft_model.get_submodule(f"base_model.model.{module}")
            layer.lora_A["default"].weight.copy_(torch.from_numpy(a))
            layer.lora_B["default"].weight.copy_(torch.from_numpy(b))
    reference = peft_model.merge_and_unload().eval()
    ids = [*records[0]["prompt_ids"][-12:], 30, 31, 32]
    with torch.no_grad():
        expected = reference(torch.tensor([ids])).logits[0].numpy()
        untrained = (
            AutoModelForCausalLM.from_pretrained(str(tiny_qwen35), dtype=torch.float32)(torch.tensor([ids]))
            .logits[0]
            .numpy()
        )
    np.testing.assert_allclose(onnx_logits(out, ids), expected, rtol=1e-3, atol=1e-3)
    assert np.abs(expected - untrained).max() > 1e-2  # two steps changed the model


def test_a_checkpoint_the_exporter_cannot_take_is_refused_in_one_line(tmp_path):
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text(json.dumps({"model_type": "mamba"}))
    done = fantasma("train", "--model", str(tmp_path / "ckpt"), "--out", str(tmp_path / "run"))
    assert done.returncode == 2
    assert "not supported" in done.stderr and "qwen3_5" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_prompt_is_a_prefix_of_prompt_and_answer_on_a_hybrid(tiny_qwen35_chat, tmp_path):
    """completion_ids (the training target) needs the template to render the prompt as a prefix of the
    whole chat; the exporter's fallback Qwen3.5 template (the checkpoint has none) does. The model dir's
    `parameters` (the pipeline's size class) is torch's count."""
    from export.graph import Precision
    from export.qwen35 import export
    from export.registry import ExportOptions
    from native_host.engine import Engine
    from train.generate import completion_ids, window_messages

    export(tiny_qwen35_chat, tmp_path / "model", ExportOptions(Precision("fp32")))
    engine = Engine.load(tmp_path / "model")
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(str(tiny_qwen35_chat), dtype=torch.float32)
    assert engine.parameters == sum(p.numel() for p in model.parameters())  # the exporter's count
    messages = window_messages("The meeting on Friday was a total waste of time, honestly.")
    prompt = engine.encode(engine.render_chat(messages))
    assert completion_ids(engine, messages, prompt, "The meeting was not useful.")[-1] in engine.eos_token_ids

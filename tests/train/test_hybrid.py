"""The recipe's training half on tiny random models: LoRA learns a toy task (falling loss), the adapter
merges with numpy, the merged checkpoint exports with fantasma-export, and the fp32 ONNX graph gives the
merged torch model's logits. Also: a killed training run resumes to the same adapter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from train_helpers import QWEN35_TARGETS, onnx_logits, toy_examples

from export.lora import load_adapter, merge_hf_dir
from train.lora import LLAMA_TARGETS, LoraTrainConfig, shared_prefix, train_adapter

pytestmark = pytest.mark.slow

TARGETS = {"tiny_llama": LLAMA_TARGETS, "tiny_qwen35": QWEN35_TARGETS}


def _config(arch: str, **overrides) -> LoraTrainConfig:
    settings = dict(
        rank=8,
        alpha=16,
        targets=TARGETS[arch],
        learning_rate=2e-2,
        epochs=6,
        batch_size=4,
        checkpoint_every=3,
    )
    settings.update(overrides)
    return LoraTrainConfig(**settings)  # type: ignore[arg-type]


def _load(checkpoint: Path):
    import torch
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(str(checkpoint), dtype=torch.float32)


def test_shared_prefix_keeps_the_loss(tiny_llama, tiny_qwen35):
    """Running the common prefix once (no gradient) gives the loss of the full sequences."""
    import torch

    from train.lora import _batch, _loss

    examples = toy_examples(4)
    shared = shared_prefix([p for p, _ in examples])
    assert len(shared) == 8
    for checkpoint in (tiny_llama, tiny_qwen35):
        model = _load(checkpoint)
        full = model(**_batch(examples, 0)).loss
        split = _loss(model, shared, _batch([(p[len(shared) :], t) for p, t in examples], 0))
        torch.testing.assert_close(split, full, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("arch", ["tiny_llama", "tiny_qwen35"])
def test_train_merge_export_parity(arch, request, tmp_path):
    import torch
    from peft import PeftModel  # noqa: F401 (the extra must provide it)

    from export.cli import export_model
    from export.graph import Precision
    from export.registry import ExportOptions

    checkpoint = request.getfixturevalue(arch)
    metrics = train_adapter(
        checkpoint, toy_examples(16), tmp_path / "lora", _config(arch), show_progress=False
    )
    losses = [
        json.loads(line)["loss"] for line in (tmp_path / "lora" / "losses.jsonl").read_text().splitlines()
    ]
    assert metrics["finished"] and len(losses) == metrics["steps"] == 24
    assert np.mean(losses[-4:]) < 0.5 * np.mean(losses[:4]), losses

    adapter = load_adapter(tmp_path / "lora" / "adapter.safetensors", metrics["adapter_sha256"])
    merged_dir = merge_hf_dir(checkpoint, adapter, tmp_path / "merged")
    out = tmp_path / "onnx"
    export_model(merged_dir, out, ExportOptions(Precision("fp32")))

    reference = _load(merged_dir).eval()
    base = _load(checkpoint).eval()
    prompt, target = toy_examples(16)[0]  # a training example: the tiny model has learned (memorized) it
    ids = prompt + target[:-1]
    with torch.no_grad():
        expected = reference(torch.tensor([ids])).logits[0].numpy()
        untrained = base(torch.tensor([ids])).logits[0].numpy()
    got = onnx_logits(out, ids)
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3)
    assert np.abs(expected - untrained).max() > 0.1  # the merge changed the model

    def nll(logits: np.ndarray) -> float:  # of the completion tokens
        rows = logits[len(prompt) - 1 :]
        logp = (
            rows
            - np.log(np.exp(rows - rows.max(-1, keepdims=True)).sum(-1, keepdims=True))
            - rows.max(-1, keepdims=True)
        )
        return float(-np.mean(logp[np.arange(len(target)), target]))

    assert nll(got) < 0.7 * nll(untrained)  # the exported merged model has learned the task's data


def test_training_resumes_after_a_kill(tiny_llama, tmp_path):
    """A run stopped after its first checkpoint continues to the adapter an uninterrupted run makes."""
    examples = toy_examples(16)
    config = _config("tiny_llama", epochs=2)
    whole = train_adapter(tiny_llama, examples, tmp_path / "whole", config, show_progress=False)

    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); from train_helpers import toy_examples\n"
        "from train.lora import LoraTrainConfig, train_adapter\n"
        "import json, os, pathlib\n"
        "config = LoraTrainConfig(**json.loads(sys.argv[3]))\n"
        "import train.lora as lora\n"
        "original = lora._save_atomic\n"
        "def save_then_die(obj, path):\n"
        "    original(obj, path)\n"
        "    os._exit(9)  # killed right after the first checkpoint reached the disk\n"
        "lora._save_atomic = save_then_die\n"
        "train_adapter(sys.argv[2], toy_examples(16), pathlib.Path(sys.argv[4]), config, show_progress=False)\n"
    )
    settings = json.dumps({**config.__dict__, "targets": list(config.targets)})
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            str(Path(__file__).parent),
            str(tiny_llama),
            settings,
            str(tmp_path / "split"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 9, done.stderr
    assert (tmp_path / "split" / "checkpoint.pt").exists()
    assert not (tmp_path / "split" / "adapter.safetensors").exists()
    resumed = train_adapter(tiny_llama, examples, tmp_path / "split", config, show_progress=False)
    assert resumed["steps"] == whole["steps"]
    a = load_adapter(tmp_path / "whole" / "adapter.safetensors")
    b = load_adapter(tmp_path / "split" / "adapter.safetensors")
    for module, (wa, wb) in a.factors.items():
        np.testing.assert_allclose(b.factors[module][0], wa, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(b.factors[module][1], wb, rtol=1e-4, atol=1e-6)

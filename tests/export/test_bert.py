"""The exported embedder matches transformers' BertModel + mean pooling + L2 normalization."""

from __future__ import annotations

import json

import numpy as np
import pytest

from native_host import assets
from native_host.engine.embedder import Embedder, EmbedderError

SENTENCES = [
    "Hello world.",
    "The quick brown fox jumps over the lazy dog!!! lol",
    "I reckon we oughta meet at 5pm, ok? email me at ana@example.org",
    "Short",
    "Une phrase en français, avec des accents : été, où, déjà.",
    "A much longer sentence that keeps going and going " * 12,
]


@pytest.mark.slow
def test_embedder_matches_transformers(embedder_model_dir):
    torch = pytest.importorskip("torch")
    from transformers import AutoTokenizer, BertModel

    ours = Embedder(embedder_model_dir).embed(SENTENCES)
    model = BertModel.from_pretrained(str(assets.minilm_dir())).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(assets.minilm_dir()))
    batch = tokenizer(SENTENCES, padding=True, truncation=True, max_length=256, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    reference = torch.nn.functional.normalize(pooled, dim=1).numpy()

    assert ours.shape == reference.shape == (len(SENTENCES), 384)
    assert np.abs(ours - reference).max() <= 1e-4
    assert (ours * reference).sum(axis=1).min() >= 0.9999


def test_embedder_dir_contents_and_padding_independence(embedder_model_dir):
    meta = json.loads((embedder_model_dir / "embedder.json").read_text())
    assert meta["architecture"] == "bert" and meta["normalized"] is True
    embedder = Embedder(embedder_model_dir)
    alone = embedder.embed(["Short"])[0]
    batched = embedder.embed(["Short", SENTENCES[-1]])[0]  # padded to the long one
    assert np.abs(alone - batched).max() <= 1e-5
    assert abs(float(np.linalg.norm(alone)) - 1.0) <= 1e-5
    assert embedder.similarity("The cat sat on the mat.", "A cat was sitting on the mat.") > 0.8
    assert embedder.similarity("The cat sat on the mat.", "Quarterly revenue rose by 4%.") < 0.3


def test_missing_or_corrupt_embedder_says_what_to_do(tmp_path, embedder_model_dir):
    with pytest.raises(EmbedderError, match="fantasma setup"):
        Embedder(tmp_path / "nowhere")
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("embedder.json", "tokenizer.json"):
        (broken / name).write_bytes((embedder_model_dir / name).read_bytes())
    (broken / "embedder.onnx").write_bytes(b"not an onnx file")
    with pytest.raises(EmbedderError, match="unusable"):
        Embedder(broken)

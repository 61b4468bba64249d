"""Constants and the toy task shared by tests/train (a plain module: conftest names collide across dirs)."""

from __future__ import annotations

from tests.engine.tiny_hybrid import TEXT_CONFIG
from train.lora import QWEN35_TARGETS

__all__ = ["EOS", "QWEN35_TARGETS", "QWEN35_TEXT_CONFIG", "VOCAB", "onnx_logits", "toy_examples"]

# The tiny random Qwen3.5 of the engine tests (one definition: tests/engine/tiny_hybrid.py), with the
# smaller vocabulary the toy task's loss thresholds were set on (the tiny Llama of conftest.py shares it).
VOCAB = 256
QWEN35_TEXT_CONFIG = {**TEXT_CONFIG, "vocab_size": VOCAB}
EOS = QWEN35_TEXT_CONFIG["eos_token_id"]


def toy_examples(n: int = 16, seed: int = 0) -> list[tuple[list[int], list[int]]]:
    """A fixed 'instruction' prefix, then a few tokens to copy in reverse: the completion is learnable
    from the prompt, like a rewrite of its window."""
    import random

    rng = random.Random(seed)
    prefix = [10, 11, 12, 13, 14, 15, 16, 17]
    out = []
    for _ in range(n):
        window = [rng.randrange(20, 60) for _ in range(4)]
        out.append(([*prefix, *window, 18], [*reversed(window), EOS]))
    return out


def onnx_logits(model_dir, ids: list[int]):
    """Logits [len(ids), vocab] of a model dir's graph for one prompt from empty states (onnxruntime
    directly, independent of the engine)."""
    import json
    from pathlib import Path

    import numpy as np
    import onnxruntime as ort

    meta = json.loads((Path(model_dir) / "fantasma_model.json").read_text())
    session = ort.InferenceSession(str(Path(model_dir) / "model.onnx"))
    feeds = {
        "input_ids": np.asarray([ids], dtype=np.int64),
        "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
        "num_logits_to_keep": np.asarray(len(ids), dtype=np.int64),
    }
    for entry in meta["state"]:
        shape = [1 if d == "batch" else 0 if d == "past_sequence_length" else d for d in entry["shape"]]
        feeds[entry["input"]] = np.zeros(shape, dtype=np.float32)
    wanted = {i.name for i in session.get_inputs()}
    return session.run(["logits"], {k: v for k, v in feeds.items() if k in wanted})[0][0]

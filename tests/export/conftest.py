"""Shared exporter fixtures: tiny random checkpoints (tests/checkpoints.py) and an onnxruntime
driver that feeds a model dir's states back step by step, independent of the engine package.
Keep additive: several architectures put their fixtures here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.checkpoints import save_tiny_llama, tiny_tokenizer_json


@pytest.fixture(scope="session")
def write_tiny_tokenizer():
    """tiny_tokenizer_json(path, vocab_size=256) for tests that build their own checkpoint."""
    return tiny_tokenizer_json


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory) -> Path:
    """Untied lm_head, Llama 3 rope scaling (so the scaled inverse frequencies are exercised)."""
    rope = {
        "rope_type": "llama3",
        "rope_theta": 10000.0,
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 16,
    }
    return save_tiny_llama(tmp_path_factory.mktemp("tiny_llama"), rope_parameters=rope)


@pytest.fixture(scope="session")
def tiny_llama_tied_dir(tmp_path_factory) -> Path:
    """Tied embeddings, plain rope. initializer_range 0.1: at the default 0.02 greedy decoding of a
    random tiny model collapses to one repeated token (a weak int4 check), at 0.2 the network is
    chaotic and int4 noise (~8% relative per weight) is amplified into different predictions."""
    return save_tiny_llama(
        tmp_path_factory.mktemp("tiny_llama_tied"), tie_word_embeddings=True, initializer_range=0.1
    )


class OrtDecoder:
    """Drives a model dir's graph with onnxruntime directly: prefill/decode with states fed back."""

    def __init__(self, model_dir: Path) -> None:
        import onnxruntime as ort

        self.meta = json.loads((Path(model_dir) / "fantasma_model.json").read_text())
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        self.session = ort.InferenceSession(str(Path(model_dir) / "model.onnx"), options)
        self.reset()

    def reset(self) -> None:
        self.states: dict[str, np.ndarray] = {}
        for entry in self.meta["state"]:
            shape = [1 if d == "batch" else 0 if d == "past_sequence_length" else d for d in entry["shape"]]
            self.states[entry["input"]] = np.zeros(shape, dtype=np.float32)
        self.length = 0

    def step(self, ids: list[int], keep: int = 1) -> np.ndarray:
        """Run `ids` after everything seen so far; logits [keep, vocab] for the last `keep` positions."""
        self.length += len(ids)
        feeds = {
            "input_ids": np.asarray([ids], dtype=np.int64),
            "attention_mask": np.ones((1, self.length), dtype=np.int64),
            "num_logits_to_keep": np.asarray(keep, dtype=np.int64),
            **self.states,
        }
        names = ["logits"] + [entry["output"] for entry in self.meta["state"]]
        outputs = self.session.run(names, feeds)
        for entry, value in zip(self.meta["state"], outputs[1:], strict=True):
            self.states[entry["input"]] = value
        return outputs[0][0]


@pytest.fixture(scope="session")
def ort_decoder():
    return OrtDecoder

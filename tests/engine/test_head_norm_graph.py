"""The Qwen3.5 exporter normalises attention heads with one BranchwiseRMSNorm on the flat tensor
(`Graph.head_rms_norm`) instead of Reshape -> SimplifiedLayerNormalization -> Reshape: two nodes fewer
per norm (84 of 628 per decode step on the 0.8B shape). It must be the same computation bit for bit, so
speed figures compare like with like and greedy tokens do not move (docs/engine.md, "Decode")."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto

from export.graph import Graph, Precision
from native_host.engine import Engine, GenerationOptions


def _plain_head_rms_norm(self: Graph, x: str, weight: np.ndarray, name: str, eps: float, heads: int) -> str:
    """What the exporter emitted before: per-head view, SimplifiedLayerNormalization, flat again."""
    dim = int(weight.shape[-1])
    viewed = self.op("Reshape", [x, self.const([0, 0, heads, dim], np.int64)])
    normed = self.rms_norm(viewed, weight, name, eps)
    return self.op("Reshape", [normed, self.const([0, 0, -1], np.int64)])


def _norm_session(heads: int, dim: int, weight: np.ndarray, eps: float, plain: bool) -> ort.InferenceSession:
    g = Graph("head_norm")
    x = g.input("x", TensorProto.FLOAT, [1, "seq", heads * dim])
    norm = _plain_head_rms_norm if plain else Graph.head_rms_norm
    g.output(norm(g, x, weight, "w", eps, heads), "y", TensorProto.FLOAT, [1, "seq", heads * dim])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    return ort.InferenceSession(g.to_model().SerializeToString(), options, providers=["CPUExecutionProvider"])


@pytest.mark.parametrize(
    ("heads", "dim", "eps"), [(32, 128, 1e-6 / 128), (16, 128, 1e-6), (2, 256, 1e-6), (4, 16, 1e-5)]
)
def test_head_rms_norm_is_the_reshaped_norm_bit_for_bit(heads, dim, eps):
    rng = np.random.default_rng(heads * dim)
    weight = (1.0 + rng.standard_normal(dim) * 0.3).astype(np.float32)
    fused, plain = (_norm_session(heads, dim, weight, eps, p) for p in (False, True))
    for seq in (1, 2, 7, 130):
        for scale in (1e-3, 1.0, 40.0):
            x = (rng.standard_normal((1, seq, heads * dim)) * scale).astype(np.float32)
            (a,) = fused.run(None, {"x": x})
            (b,) = plain.run(None, {"x": x})
            assert np.array_equal(a, b)


@pytest.mark.parametrize("precision", [Precision("fp32"), Precision("int4", 16, 4)], ids=["fp32", "int4"])
def test_tiny_hybrid_gives_the_plain_graphs_logits_and_tokens(tmp_path_factory, monkeypatch, precision):
    pytest.importorskip("torch")
    from tests.engine.tiny_hybrid import export_tiny_hybrid

    fused_dir = export_tiny_hybrid(tmp_path_factory, precision)
    with monkeypatch.context() as patch:
        patch.setattr(Graph, "head_rms_norm", _plain_head_rms_norm)
        plain_dir = export_tiny_hybrid(tmp_path_factory, precision)
    graphs = [(d / "model.onnx").read_bytes() for d in (fused_dir, plain_dir)]
    assert b"BranchwiseRMSNorm" in graphs[0] and b"BranchwiseRMSNorm" not in graphs[1]
    fused, plain = Engine.load(fused_dir), Engine.load(plain_dir)
    prompt = [11, 23, 35, 47, 59, 61, 73, 85, 97, 109]
    options = GenerationOptions(max_new_tokens=32, speculative=False, reuse_prefix=False)
    assert fused.generate(prompt, options).token_ids == plain.generate(prompt, options).token_ids
    logits = []
    for engine in (fused, plain):
        runner = engine.runner
        states, seq = runner.empty_states(1, capacity=64), []
        for chunk in ([prompt], [[5]], [[7, 9, 11]], [[13]]):
            out, states = runner.forward(np.array(chunk), states, keep=len(chunk[0]))
            seq.append(out)
        logits.append(seq)
    assert all(np.array_equal(a, b) for a, b in zip(*logits, strict=True))

"""The engine's onnxruntime session options do what docs/engine.md says they are there for."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto

from export.graph import Graph, Precision
from native_host.engine.runner import CONSTANT_FOLDING_MAX_BYTES, session_options

VOCAB, HIDDEN = 8192, 512  # int4 table: 8192 x 256 bytes = 2 MiB, above the folding cap


def tied_model(path: Path) -> Path:
    """ids -> int4 tied embedding -> the same table as lm_head (what the Qwen3.5 export builds)."""
    table = np.random.default_rng(0).standard_normal((VOCAB, HIDDEN)).astype(np.float32)
    g = Graph("tied")
    ids = g.input("ids", TensorProto.INT64, ["batch", "seq"])
    embedded, head = g.tied_embedding_and_head(ids, table, "embed.weight", Precision("int4", 32, 4))
    g.output(head(embedded), "logits", TensorProto.FLOAT, ["batch", "seq", VOCAB])
    return g.save(path)


def optimized(model: Path, options: ort.SessionOptions, into: Path) -> tuple[ort.InferenceSession, set]:
    """The session and the initializers onnxruntime added while optimizing (folded constants)."""
    options.optimized_model_filepath = str(into)
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    before = {t.name for t in onnx.load(str(model), load_external_data=False).graph.initializer}
    after = onnx.load(str(into), load_external_data=False).graph.initializer
    return session, {t.name for t in after if t.name not in before}


def test_the_tied_int4_table_is_not_copied_by_constant_folding(tmp_path):
    model = tied_model(tmp_path / "tied.onnx")
    assert VOCAB * HIDDEN // 2 > CONSTANT_FOLDING_MAX_BYTES

    plain = ort.SessionOptions()
    plain.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    folded_session, folded = optimized(model, plain, tmp_path / "folded.onnx")
    assert "embed_tokens/Reshape/output_0" in folded  # onnxruntime's default: a second copy of the table

    ours_session, ours_new = optimized(model, session_options(1), tmp_path / "ours.onnx")
    assert "embed_tokens/Reshape/output_0" not in ours_new

    ids = np.array([[3, VOCAB - 1, 77, 3]], dtype=np.int64)
    (want,) = folded_session.run(None, {"ids": ids})
    (got,) = ours_session.run(None, {"ids": ids})
    np.testing.assert_array_equal(got, want)  # the Reshape at run time reads the same bytes

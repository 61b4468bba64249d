"""int4 quantization: the error bound, and that onnxruntime's MatMulNBits / GatherBlockQuantized read
our bytes as the weights we meant (checked against numpy with the dequantized weights)."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from onnx import TensorProto

from export.graph import Graph, Precision
from export.quant import dequantize_int4, quantize_int4


def session(g: Graph) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(g.to_model().SerializeToString(), options)


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float32, st.tuples(st.integers(1, 6), st.integers(1, 80)), elements=st.floats(-8, 8, width=32)),
    st.sampled_from([16, 32, 64]),
)
def test_round_trip_error_is_at_most_half_a_step(weight, block_size):
    qw = quantize_int4(weight, block_size)
    restored = dequantize_int4(qw)
    assert restored.shape == weight.shape
    n_blocks = qw.scales.shape[1]
    step = np.repeat(qw.scales, block_size, axis=1)[:, : weight.shape[1]]
    assert qw.packed.shape == (weight.shape[0], n_blocks, block_size // 2)
    assert np.all(np.abs(restored - weight) <= step / 2 + 1e-5 * (1 + np.abs(weight)))


def test_zero_blocks_stay_exactly_zero():
    weight = np.zeros((3, 64), np.float32)
    weight[1, 40] = 2.5
    restored = dequantize_int4(quantize_int4(weight, 32))
    assert np.all(restored[0] == 0) and np.all(restored[1, :32] == 0)


@pytest.mark.parametrize(("n", "k", "block_size"), [(24, 64, 32), (10, 48, 32), (7, 128, 16), (5, 96, 64)])
def test_matmulnbits_computes_x_times_dequantized_weights(n, k, block_size):
    rng = np.random.default_rng(n * k)
    weight = rng.standard_normal((n, k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    precision = Precision("int4", block_size=block_size, accuracy_level=0)  # fp32 compute: exact check
    g = Graph("linear")
    x = g.input("x", TensorProto.FLOAT, ["batch", k])
    g.output(g.linear(x, weight, "w.weight", precision, bias=bias), "y", TensorProto.FLOAT, ["batch", n])
    inputs = rng.standard_normal((4, k)).astype(np.float32)

    (got,) = session(g).run(None, {"x": inputs})
    expected = inputs @ dequantize_int4(quantize_int4(weight, block_size)).T + bias
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    # and the quantized product is close to the fp32 one (int4 noise, not garbage)
    exact = inputs @ weight.T + bias
    assert np.abs(got - exact).max() < 0.2 * np.abs(exact).max()


@pytest.mark.parametrize("block_size", [16, 32])
def test_gather_block_quantized_returns_dequantized_rows(block_size):
    rng = np.random.default_rng(block_size)
    table = rng.standard_normal((50, 64)).astype(np.float32)
    g = Graph("embed")
    ids = g.input("ids", TensorProto.INT64, ["batch", "seq"])
    rows = g.embedding(ids, table, "embed.weight", Precision("int4", block_size=block_size))
    g.output(rows, "rows", TensorProto.FLOAT, ["batch", "seq", 64])
    picked = np.array([[0, 49, 7, 7, 23]], dtype=np.int64)

    (got,) = session(g).run(None, {"ids": picked})
    np.testing.assert_allclose(got, dequantize_int4(quantize_int4(table, block_size))[picked], atol=1e-6)


def test_bad_block_sizes_are_rejected():
    for block_size in (8, 24, 0):
        with pytest.raises(ValueError, match="power of two"):
            quantize_int4(np.ones((2, 32), np.float32), block_size)


# Hidden sizes that are not a multiple of the block size: quantize_int4 pads each row with zeros to
# whole blocks; the embedding must come back at the real width (it came back padded, so the next
# MatMulNBits refused to load: "Incompatible dimensions").
PADDED_SHAPES = [(50, 96, 64), (50, 80, 32), (40, 200, 128), (30, 72, 16), (30, 576, 128)]


@pytest.mark.parametrize(("vocab", "k", "block_size"), PADDED_SHAPES)
def test_embedding_rows_have_the_real_width_when_k_is_not_a_block_multiple(vocab, k, block_size):
    rng = np.random.default_rng(k + block_size)
    table = rng.standard_normal((vocab, k)).astype(np.float32)
    g = Graph("embed")
    ids = g.input("ids", TensorProto.INT64, ["batch", "seq"])
    rows = g.embedding(ids, table, "embed.weight", Precision("int4", block_size=block_size))
    g.output(rows, "rows", TensorProto.FLOAT, ["batch", "seq", k])
    picked = np.array([[0, vocab - 1, 7, 7]], dtype=np.int64)

    (got,) = session(g).run(None, {"ids": picked})
    assert got.shape == (1, 4, k)
    np.testing.assert_allclose(got, dequantize_int4(quantize_int4(table, block_size))[picked], atol=1e-6)
    assert np.abs(got - table[picked]).max() < 0.2 * np.abs(table).max()  # close to fp32


@pytest.mark.parametrize(("vocab", "k", "block_size"), PADDED_SHAPES)
def test_tied_embedding_and_head_load_and_match_fp32_when_k_is_not_a_block_multiple(vocab, k, block_size):
    """The shared int4 table feeds GatherBlockQuantized and MatMulNBits; embedding -> head must load
    (the padded width broke it) and give what the dequantized weights give, close to fp32."""
    rng = np.random.default_rng(vocab * k)
    table = rng.standard_normal((vocab, k)).astype(np.float32)
    precision = Precision("int4", block_size=block_size, accuracy_level=0)
    g = Graph("tied")
    ids = g.input("ids", TensorProto.INT64, ["batch", "seq"])
    embedded, head = g.tied_embedding_and_head(ids, table, "embed.weight", precision)
    g.output(head(embedded), "logits", TensorProto.FLOAT, ["batch", "seq", vocab])
    picked = np.array([[1, 2, vocab - 1]], dtype=np.int64)

    (got,) = session(g).run(None, {"ids": picked})
    restored = dequantize_int4(quantize_int4(table, block_size))
    np.testing.assert_allclose(got, restored[picked] @ restored.T, rtol=1e-4, atol=1e-3)
    exact = table[picked] @ table.T
    assert np.abs(got - exact).max() < 0.2 * np.abs(exact).max()

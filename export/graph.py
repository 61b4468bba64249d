"""The one graph helper every architecture module uses.

Op functions return value names; nodes are named from the current scope
(`layers.3/attn/q_proj/MatMulNBits`), small constants are deduplicated in one place, and weights
become initializers named after the checkpoint tensor they came from. There is no shared mutable
state between blocks beyond the graph being built.

    g = Graph("qwen3_5")
    ids = g.input("input_ids", TensorProto.INT64, ["batch", "seq"])
    with g.scope("layers.0"), g.scope("mlp"):
        y = g.linear(x, w_up, "model.layers.0.mlp.up_proj.weight")
    g.output(y, "logits", TensorProto.FLOAT, ["batch", "seq", "vocab"])
    g.save(out_dir / "model.onnx")
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

from export.quant import quantize_int4

MS_DOMAIN = "com.microsoft"
OPSET = 21


@dataclass(frozen=True)
class Precision:
    """How linear layers and embeddings are stored."""

    kind: str = "int4"  # "int4" | "fp32"
    block_size: int = 32  # int4 block along the input dimension
    accuracy_level: int = 4  # MatMulNBits compute type: 4 = int8 activations (fastest on CPU)
    # int4 block of the lm_head (and of the embedding when it is tied to the head); None = block_size.
    # The head is the largest single matmul of a decode step at a 248k vocabulary, and onnxruntime
    # packs every block with two fp32 words, so a coarser block there reads fewer bytes per token
    # (docs/engine.md, "The lm_head's block size").
    head_block_size: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("int4", "fp32"):
            raise ValueError(f"unknown precision {self.kind!r} (expected int4 or fp32)")
        for size in (self.block_size, self.head_block_size):
            if size is not None and (size < 16 or size & (size - 1)):
                raise ValueError(f"int4 block size must be a power of two >= 16, got {size}")

    def for_head(self) -> Precision:
        """The precision of the lm_head (and a tied embedding): the body's with the head's block size."""
        if self.head_block_size is None:
            return self
        return dataclasses.replace(self, block_size=self.head_block_size, head_block_size=None)

    def to_json(self) -> dict[str, object]:
        """The `precision` entry of fantasma_model.json."""
        entry: dict[str, object] = {
            "kind": self.kind,
            "block_size": self.block_size,
            "accuracy_level": self.accuracy_level,
        }
        if self.quantized and self.head_block_size is not None:
            entry["head_block_size"] = self.head_block_size
        return entry

    @property
    def quantized(self) -> bool:
        return self.kind == "int4"


Shape = Sequence[int | str | None]


class Graph:
    def __init__(self, name: str) -> None:
        self.name = name
        self.nodes: list[onnx.NodeProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.outputs: list[onnx.ValueInfoProto] = []
        self.initializers: dict[str, onnx.TensorProto] = {}
        self._scopes: list[str] = []
        self._const_by_digest: dict[str, str] = {}
        self._used_names: dict[str, int] = {}

    # naming ----------------------------------------------------------------------------------
    @contextlib.contextmanager
    def scope(self, name: str) -> Iterator[None]:
        self._scopes.append(name)
        try:
            yield
        finally:
            self._scopes.pop()

    def _unique(self, base: str) -> str:
        n = self._used_names.get(base, 0)
        self._used_names[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    def _node_name(self, op_type: str) -> str:
        return self._unique("/".join([*self._scopes, op_type]))

    # values ----------------------------------------------------------------------------------
    def input(self, name: str, elem_type: int, shape: Shape) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, elem_type, list(shape)))
        return name

    def output(self, value: str, name: str, elem_type: int, shape: Shape) -> str:
        if value != name:
            value = self.op("Identity", [value], out_name=name)
        self.outputs.append(helper.make_tensor_value_info(name, elem_type, list(shape)))
        return name

    def initializer(self, name: str, array: np.ndarray) -> str:
        if name in self.initializers:
            raise ValueError(f"initializer {name!r} added twice")
        self.initializers[name] = numpy_helper.from_array(np.ascontiguousarray(array), name)
        return name

    def const(self, value: np.ndarray | Sequence[int] | Sequence[float] | int | float, dtype=None) -> str:
        """A small constant, shared by every node that needs the same bytes."""
        array = np.asarray(value, dtype=dtype)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        digest = hashlib.sha1(
            array.dtype.str.encode() + str(array.shape).encode() + array.tobytes()
        ).hexdigest()[:16]
        if digest not in self._const_by_digest:
            self._const_by_digest[digest] = self.initializer(f"const_{digest}", array)
        return self._const_by_digest[digest]

    # nodes -----------------------------------------------------------------------------------
    def op(
        self,
        op_type: str,
        inputs: Sequence[str | None],
        n_out: int = 1,
        domain: str = "",
        out_name: str | None = None,
        **attrs,
    ):
        """Emit one node; returns its output name (or a tuple of names when n_out > 1)."""
        node_name = self._node_name(op_type)
        outs = [out_name] if out_name is not None else [f"{node_name}/output_{i}" for i in range(n_out)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        node = helper.make_node(
            op_type,
            ["" if i is None else i for i in inputs],
            outs,
            name=node_name,
            domain=domain or None,
            **attrs,
        )
        self.nodes.append(node)
        return outs[0] if n_out == 1 else tuple(outs)

    def ms(self, op_type: str, inputs: Sequence[str | None], n_out: int = 1, **attrs):
        """A com.microsoft contrib op."""
        return self.op(op_type, inputs, n_out=n_out, domain=MS_DOMAIN, **attrs)

    # building blocks -------------------------------------------------------------------------
    def linear(
        self,
        x: str,
        weight: np.ndarray,
        name: str,
        precision: Precision,
        bias: np.ndarray | None = None,
    ) -> str:
        """y = x @ weight.T (+ bias); `weight` is [out_features, in_features] as in checkpoints."""
        n, k = weight.shape
        with self.scope(name.removesuffix(".weight").split(".")[-1]):
            if precision.quantized:
                qw = quantize_int4(weight, precision.block_size)
                b_init = self.initializer(f"{name}.int4", qw.packed)
                s_init = self.initializer(f"{name}.scales", qw.scales.reshape(-1))
                z_init = self.initializer(f"{name}.zero_points", qw.zero_points.reshape(-1))
                bias_name = (
                    self.initializer(f"{name}.bias", bias.astype(np.float32)) if bias is not None else None
                )
                return self.ms(
                    "MatMulNBits",
                    [x, b_init, s_init, z_init, None, bias_name],
                    K=k,
                    N=n,
                    bits=4,
                    block_size=precision.block_size,
                    accuracy_level=precision.accuracy_level,
                )
            w_t = self.initializer(f"{name}.T", np.ascontiguousarray(weight.T.astype(np.float32)))
            y = self.op("MatMul", [x, w_t])
            if bias is not None:
                y = self.op("Add", [y, self.initializer(f"{name}.bias", bias.astype(np.float32))])
            return y

    def embedding(self, ids: str, table: np.ndarray, name: str, precision: Precision) -> str:
        """Rows of `table` [vocab, hidden] for `ids`; int4 tables use GatherBlockQuantized."""
        with self.scope("embed_tokens"):
            if precision.quantized:
                qw = quantize_int4(table, precision.block_size)
                vocab = table.shape[0]
                data = self.initializer(f"{name}.int4", qw.packed.reshape(vocab, -1))
                scales = self.initializer(f"{name}.scales", qw.scales)
                zps = self.initializer(f"{name}.zero_points", qw.zero_points)
                return self._gather_int4_rows(data, ids, scales, zps, qw.k, precision.block_size)
            return self.op("Gather", [self.initializer(name, table.astype(np.float32)), ids], axis=0)

    def _gather_int4_rows(self, data: str, ids: str, scales: str, zps: str, k: int, block_size: int) -> str:
        """The rows `ids` of an int4 table [N, K/2] (scales and zero points [N, blocks]), dequantized.
        GatherBlockQuantized returns whole blocks: when the hidden size is not a multiple of the block
        size, its rows carry the zero padding quantize_int4 added; they are cut back to `k`."""
        rows = self.ms(
            "GatherBlockQuantized",
            [data, ids, scales, zps],
            gather_axis=0,
            quantize_axis=1,
            block_size=block_size,
            bits=4,
        )
        if k % block_size == 0:
            return rows
        return self.op(
            "Slice", [rows, self.const([0], np.int64), self.const([k], np.int64), self.const([-1], np.int64)]
        )

    def tied_embedding_and_head(
        self, ids: str, table: np.ndarray, name: str, precision: Precision
    ) -> tuple[str, Callable[[str], str]]:
        """Embedding rows for `ids` plus a function that applies the tied lm_head later.

        int4: ONE set of MatMulNBits initializers (named `name`); the embedding reads the same bytes
        through Reshape views ([N, blocks, bs/2] -> [N, K/2] etc.), so the table is stored once
        (saves ~160 MB at a 248k vocabulary). fp32: separate Gather table and transposed MatMul weight.
        """
        if not precision.quantized:
            embedded = self.embedding(ids, table, name, precision)
            return embedded, lambda x: self.linear(x, table, f"{name}.lm_head", precision)
        n, k = table.shape
        qw = quantize_int4(table, precision.block_size)
        n_blocks = qw.scales.shape[1]
        b_init = self.initializer(f"{name}.int4", qw.packed)
        s_init = self.initializer(f"{name}.scales", qw.scales.reshape(-1))
        z_init = self.initializer(f"{name}.zero_points", qw.zero_points.reshape(-1))
        with self.scope("embed_tokens"):
            data = self.op("Reshape", [b_init, self.const([n, -1], np.int64)])
            scales = self.op("Reshape", [s_init, self.const([n, n_blocks], np.int64)])
            zps = self.op("Reshape", [z_init, self.const([n, -1], np.int64)])
            embedded = self._gather_int4_rows(data, ids, scales, zps, k, precision.block_size)

        def head(x: str) -> str:
            with self.scope("lm_head"):
                return self.ms(
                    "MatMulNBits",
                    [x, b_init, s_init, z_init],
                    K=k,
                    N=n,
                    bits=4,
                    block_size=precision.block_size,
                    accuracy_level=precision.accuracy_level,
                )

        return embedded, head

    def rms_norm(self, x: str, weight: np.ndarray, name: str, eps: float) -> str:
        """RMSNorm with y = x / rms(x) * weight (pass 1 + w for Qwen3.5 decoder norms)."""
        scale = self.initializer(name, weight.astype(np.float32))
        return self.op("SimplifiedLayerNormalization", [x, scale], axis=-1, epsilon=float(eps), stash_type=1)

    def head_rms_norm(self, x: str, weight: np.ndarray, name: str, eps: float, heads: int) -> str:
        """RMSNorm of each of `heads` equal slices of the last axis of x [..., heads * dim], weight [dim].

        One BranchwiseRMSNorm on the flat tensor: bit-identical to Reshape [.., heads, dim] ->
        SimplifiedLayerNormalization -> Reshape back (tests/engine/test_head_norm_graph.py), and two
        nodes fewer; a decode step of the Qwen3.5-0.8B shape runs ~600 nodes, each costing ~5 us of
        dispatch besides its kernel (docs/engine.md, "Decode")."""
        scale = self.initializer(name, weight.astype(np.float32))
        return self.ms("BranchwiseRMSNorm", [x, scale], num_branches=heads, epsilon=float(eps))

    def skip_rms_norm(self, x: str, skip: str, weight: np.ndarray, name: str, eps: float) -> tuple[str, str]:
        """(normed(x + skip), x + skip) in one fused contrib op."""
        scale = self.initializer(name, weight.astype(np.float32))
        normed, _, _, summed = self.ms(
            "SkipSimplifiedLayerNormalization", [x, skip, scale], n_out=4, epsilon=float(eps)
        )
        return normed, summed

    # output ----------------------------------------------------------------------------------
    def to_model(self) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, self.name, self.inputs, self.outputs, initializer=list(self.initializers.values())
        )
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)],
            producer_name="fantasma-export",
        )
        model.ir_version = 10
        return model

    def save(self, path: Path) -> Path:
        """Write model.onnx with all weights in one external data file beside it."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        data_name = path.name + ".data"
        (path.parent / data_name).unlink(missing_ok=True)
        onnx.save_model(
            self.to_model(),
            str(path),
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=data_name,
            size_threshold=1024,
        )
        return path

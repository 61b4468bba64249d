"""Qwen3.5 hybrid decoder (Gated DeltaNet + gated full attention) -> one ONNX graph.

Layer i is full attention or Gated DeltaNet (`config.layer_types`, 3 of every 4 linear). Every
layer is pre-norm with a residual stream; decoder norms apply (1 + w), the gated norm inside Gated
DeltaNet applies w. Reads the VLM layout (`model.language_model.*`, vision and `mtp.*` ignored) and
the text-only `Qwen3_5ForCausalLM` layout (`model.*`). Reference: transformers'
models/qwen3_5/modeling_qwen3_5.py.

Graph I/O follows docs/model-format.md; per-layer state (see `state_entries`):
  full attention:  past_key_values.{i}.key/value  [batch, kv_heads, past, head_dim]
  Gated DeltaNet:  past_conv_state.{i}            [batch, conv_dim, conv_kernel - 1]
                   past_recurrent_state.{i}       [batch, value_heads, key_head_dim, value_head_dim]
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from onnx import TensorProto

from export.graph import Graph, Precision
from export.hf_source import HFCheckpoint
from export.registry import ExportOptions, ProgressFn

# Rotary tables are baked in for this many positions (32768 x 32 x 2 floats = 8 MB); the checkpoint
# claims 262144, which would cost 67 MB of resident cos/sin for contexts this tool never sees.
MAX_CONTEXT = 32768
FP32 = Precision("fp32")


# --- config ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Qwen35Config:
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    layer_types: tuple[str, ...]  # "full_attention" | "linear_attention" per layer
    rms_norm_eps: float
    tie_word_embeddings: bool
    prefix: str  # "model.language_model." (VLM checkpoint) or "model." (text-only)
    # full attention
    num_heads: int
    num_kv_heads: int
    head_dim: int
    rotary_dim: int  # partial rotary: the first rotary_dim dims of each head are rotated
    rope_theta: float
    attention_bias: bool
    # Gated DeltaNet
    linear_num_key_heads: int
    linear_num_value_heads: int
    linear_key_head_dim: int
    linear_value_head_dim: int
    conv_kernel: int
    context_length: int
    bos_token_id: int | None
    eos_token_ids: tuple[int, ...]
    pad_token_id: int | None
    key_dim: int = field(init=False)
    value_dim: int = field(init=False)
    conv_dim: int = field(init=False)

    def __post_init__(self) -> None:
        if self.rotary_dim % 2 or not 0 < self.rotary_dim <= self.head_dim:
            raise ValueError(f"rotary_dim {self.rotary_dim} must be even and within head_dim {self.head_dim}")
        if self.head_dim % 16:
            raise ValueError(
                f"head_dim {self.head_dim} is not supported: onnxruntime's GroupQueryAttention needs a "
                "multiple of 16"
            )
        object.__setattr__(self, "key_dim", self.linear_num_key_heads * self.linear_key_head_dim)
        object.__setattr__(self, "value_dim", self.linear_num_value_heads * self.linear_value_head_dim)
        object.__setattr__(self, "conv_dim", 2 * self.key_dim + self.value_dim)

    @property
    def rotary_in_attention(self) -> bool:
        """GroupQueryAttention rotates only rotary dims that are a multiple of 16; other partial rotary
        sizes (e.g. 4) are applied to q and k before the op instead (`_rotate`)."""
        return self.rotary_dim % 16 == 0

    @property
    def num_layers(self) -> int:
        return len(self.layer_types)

    @classmethod
    def from_hf(cls, config: dict[str, Any], tensor_names: set[str]) -> Qwen35Config:
        """Read config.json of either layout; every fallback lives here."""
        text = config.get("text_config") or config
        prefix = (
            "model.language_model."
            if any(n.startswith("model.language_model.") for n in tensor_names)
            else "model."
        )
        n_layers = text["num_hidden_layers"]
        interval = text.get("full_attention_interval", 4)
        layer_types = text.get("layer_types") or [
            "full_attention" if (i + 1) % interval == 0 else "linear_attention" for i in range(n_layers)
        ]
        rope = text.get("rope_parameters") or text.get("rope_scaling") or {}
        rope_type = rope.get("rope_type") or rope.get("type") or "default"
        if rope_type != "default":
            # _rotary_tables computes plain rope frequencies; a scaled rope exported as plain would
            # give wrong positions past the original context without any error
            raise ValueError(
                f"rope_type {rope_type!r} is not supported for Qwen3.5 (only 'default'); not exporting "
                "positions that would silently differ from the checkpoint's"
            )
        head_dim = text.get("head_dim") or text["hidden_size"] // text["num_attention_heads"]
        partial = rope.get("partial_rotary_factor", text.get("partial_rotary_factor", 0.25))
        eos = text.get("eos_token_id", config.get("eos_token_id"))
        eos_ids = tuple(eos) if isinstance(eos, list) else (() if eos is None else (eos,))
        # Tied when the checkpoint has no lm_head (the VLM keeps the flag on the outer config).
        tied = "lm_head.weight" not in tensor_names
        return cls(
            vocab_size=text["vocab_size"],
            hidden_size=text["hidden_size"],
            intermediate_size=text["intermediate_size"],
            layer_types=tuple(layer_types),
            rms_norm_eps=text.get("rms_norm_eps", 1e-6),
            tie_word_embeddings=tied,
            prefix=prefix,
            num_heads=text["num_attention_heads"],
            num_kv_heads=text["num_key_value_heads"],
            head_dim=head_dim,
            rotary_dim=int(head_dim * partial),
            rope_theta=float(rope.get("rope_theta", text.get("rope_theta", 10_000_000.0))),
            attention_bias=bool(text.get("attention_bias", False)),
            linear_num_key_heads=text["linear_num_key_heads"],
            linear_num_value_heads=text["linear_num_value_heads"],
            linear_key_head_dim=text["linear_key_head_dim"],
            linear_value_head_dim=text["linear_value_head_dim"],
            conv_kernel=text.get("linear_conv_kernel_dim", 4),
            context_length=min(text.get("max_position_embeddings", MAX_CONTEXT), MAX_CONTEXT),
            bos_token_id=text.get("bos_token_id", config.get("bos_token_id")),
            eos_token_ids=eos_ids,
            pad_token_id=text.get("pad_token_id", config.get("pad_token_id")),
        )


# --- weight names ---------------------------------------------------------------------------------
# Relative to Qwen35Config.prefix; "{i}" is the layer index.
WEIGHTS = {
    "embed": "embed_tokens.weight",
    "final_norm": "norm.weight",
    "input_norm": "layers.{i}.input_layernorm.weight",
    "post_norm": "layers.{i}.post_attention_layernorm.weight",
    "gate_proj": "layers.{i}.mlp.gate_proj.weight",
    "up_proj": "layers.{i}.mlp.up_proj.weight",
    "down_proj": "layers.{i}.mlp.down_proj.weight",
    "q_proj": "layers.{i}.self_attn.q_proj.weight",  # [heads * 2 * head_dim]: per head (query, gate)
    "k_proj": "layers.{i}.self_attn.k_proj.weight",
    "v_proj": "layers.{i}.self_attn.v_proj.weight",
    "o_proj": "layers.{i}.self_attn.o_proj.weight",
    "q_norm": "layers.{i}.self_attn.q_norm.weight",
    "k_norm": "layers.{i}.self_attn.k_norm.weight",
    "in_proj_qkv": "layers.{i}.linear_attn.in_proj_qkv.weight",
    "in_proj_z": "layers.{i}.linear_attn.in_proj_z.weight",
    "in_proj_b": "layers.{i}.linear_attn.in_proj_b.weight",
    "in_proj_a": "layers.{i}.linear_attn.in_proj_a.weight",
    "conv1d": "layers.{i}.linear_attn.conv1d.weight",  # [conv_dim, 1, kernel]
    "dt_bias": "layers.{i}.linear_attn.dt_bias",
    "A_log": "layers.{i}.linear_attn.A_log",
    "gated_norm": "layers.{i}.linear_attn.norm.weight",
    "out_proj": "layers.{i}.linear_attn.out_proj.weight",
}
LM_HEAD = "lm_head.weight"  # outside the prefix in both layouts


# --- blocks ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shared:
    """Graph values every layer reads (computed once in `build_graph`)."""

    seqlens_k: str  # int32 [batch]: total length - 1, for GroupQueryAttention
    total_length: str  # int32 scalar
    cos: str  # [context, rotary_dim / 2]
    sin: str
    # Only when the rotary is applied outside GroupQueryAttention: the rows for this chunk's
    # positions, [batch, seq, 1, rotary_dim / 2].
    cos_rows: str | None = None
    sin_rows: str | None = None


def full_attention(
    g: Graph, cfg: Qwen35Config, w: HFCheckpoint, i: int, x: str, shared: Shared, precision: Precision
) -> str:
    """Gated full attention; q/k/v in one MatMul, rotary inside GroupQueryAttention.

    x ─ qkv_proj ─ Split ─ q ─ RMSNorm(1+w) per head ──────┐
                       ├ gate ─ Sigmoid ──────────────────┼─┐
                       ├ k ─ RMSNorm(1+w) per head ───────┤ │ GQA(rotary on d[:rotary_dim])
                       └ v ───────────────────────────────┘ │
                                                  o_proj ─ Mul
    q_proj's rows are per head [query(d), gate(d)]; they are reordered to all queries, then all gates,
    before quantization (blocks run along the input axis, so each row quantizes as before and every
    output is the same number), so q and gate come out of the one Split already flat: no per-head
    Reshape, Split and Reshape back (4 nodes fewer per layer; docs/engine.md, "Decode").
    """
    name = _names(cfg, i)
    h, kv, d = cfg.num_heads, cfg.num_kv_heads, cfg.head_dim
    if cfg.attention_bias:
        raise NotImplementedError("Qwen3.5 checkpoints with attention_bias=True are not supported")
    q_gate_w = w.get(name["q_proj"]).reshape(h, 2, d, -1)  # [head, (query, gate), d, hidden]
    q_w, gate_w = (q_gate_w[:, part].reshape(h * d, -1) for part in (0, 1))
    qkv_w = np.concatenate([q_w, gate_w, w.get(name["k_proj"]), w.get(name["v_proj"])])
    qkv = g.linear(x, qkv_w, name["q_proj"].replace("q_proj", "qkv_proj"), precision)
    q, gate, k, v = g.op("Split", [qkv, g.const([h * d, h * d, kv * d, kv * d], np.int64)], n_out=4, axis=-1)
    q_norm, k_norm, eps = 1.0 + w.get(name["q_norm"]), 1.0 + w.get(name["k_norm"]), cfg.rms_norm_eps
    rotary_inputs: list[str] = [shared.cos, shared.sin]
    if cfg.rotary_in_attention:  # q and k stay flat: GroupQueryAttention takes [batch, seq, heads * d]
        q = g.head_rms_norm(q, q_norm, name["q_norm"], eps, h)
        k = g.head_rms_norm(k, k_norm, name["k_norm"], eps, kv)
    else:
        assert shared.cos_rows is not None and shared.sin_rows is not None
        q = g.rms_norm(_heads(g, q, h, d), q_norm, name["q_norm"], eps)
        k = g.rms_norm(_heads(g, k, kv, d), k_norm, name["k_norm"], eps)
        q = _flat(g, _rotate(g, q, cfg.rotary_dim, d, shared.cos_rows, shared.sin_rows))
        k = _flat(g, _rotate(g, k, cfg.rotary_dim, d, shared.cos_rows, shared.sin_rows))
        rotary_inputs = []
    attn, present_k, present_v = g.ms(
        "GroupQueryAttention",
        [
            q,
            k,
            v,
            f"past_key_values.{i}.key",
            f"past_key_values.{i}.value",
            shared.seqlens_k,
            shared.total_length,
            *rotary_inputs,
        ],
        n_out=3,
        num_heads=h,
        kv_num_heads=kv,
        do_rotary=int(cfg.rotary_in_attention),
    )
    g.output(present_k, f"present.{i}.key", TensorProto.FLOAT, ["batch", kv, "total_sequence_length", d])
    g.output(present_v, f"present.{i}.value", TensorProto.FLOAT, ["batch", kv, "total_sequence_length", d])
    gated = g.op("Mul", [attn, g.op("Sigmoid", [gate])])
    return g.linear(gated, w.get(name["o_proj"]), name["o_proj"], precision)


def gated_delta_net(
    g: Graph, cfg: Qwen35Config, w: HFCheckpoint, i: int, x: str, precision: Precision
) -> str:
    """Gated DeltaNet: causal conv over concatenated q|k|v, then the gated delta rule as one op.

    x ─ qkvz_proj ─ Split ─ qkv ─ CausalConvWithState(SiLU) ─ Split ─ q|k ─ l2norm ─ Split ─ q, k ─┐
       │                 └ z ─────────────────────────────┐     └ v ──────────────────────────────┤
       └ ba_proj (fp32) ─ LinearAttentionGate ─ decay, beta ─────────────────────────────────── LinearAttention
                                                  out_proj ─ RMSNorm(w)·silu(z) ─────────────────┘
    """
    name = _names(cfg, i)
    hk, hv, dk = cfg.linear_num_key_heads, cfg.linear_num_value_heads, cfg.linear_key_head_dim
    qkvz_w = np.concatenate([w.get(name["in_proj_qkv"]), w.get(name["in_proj_z"])])
    qkvz = g.linear(x, qkvz_w, name["in_proj_qkv"].replace("in_proj_qkv", "in_proj_qkvz"), precision)
    mixed, z = g.op("Split", [qkvz, g.const([cfg.conv_dim, cfg.value_dim], np.int64)], n_out=2, axis=-1)
    # The decay and update gates feed exp() inside the recurrence; they stay fp32 (0.1% of weights).
    ba_w = np.concatenate([w.get(name["in_proj_b"]), w.get(name["in_proj_a"])])
    ba = g.linear(x, ba_w, name["in_proj_b"].replace("in_proj_b", "in_proj_ba"), FP32)
    b, a = g.op("Split", [ba, g.const([hv, hv], np.int64)], n_out=2, axis=-1)

    # Channels-first with two transposes: the CPU kernel's channels_last path measured 1.8x slower
    # at 128 tokens (5.0 vs 2.8 ms, conv_dim 6144) and no faster for one token.
    with g.scope("conv1d"):
        conv, present_conv = g.ms(
            "CausalConvWithState",
            [
                g.op("Transpose", [mixed], perm=[0, 2, 1]),
                g.initializer(name["conv1d"], w.get(name["conv1d"])),
                None,
                f"past_conv_state.{i}",
            ],
            n_out=2,
            activation="silu",
        )
        conv = g.op("Transpose", [conv], perm=[0, 2, 1])
    g.output(
        present_conv,
        f"present_conv_state.{i}",
        TensorProto.FLOAT,
        ["batch", cfg.conv_dim, cfg.conv_kernel - 1],
    )

    qk, v = g.op("Split", [conv, g.const([2 * cfg.key_dim, cfg.value_dim], np.int64)], n_out=2, axis=-1)
    # l2norm(x) = x * rsqrt(sum(x^2) + 1e-6) is exactly RMSNorm with eps 1e-6/dk and weight 1/sqrt(dk).
    with g.scope("qk_l2norm"):
        qk = g.head_rms_norm(qk, np.full(dk, dk**-0.5), f"{name['A_log']}.l2norm_scale", 1e-6 / dk, 2 * hk)
    q, k = g.op("Split", [qk, g.const([cfg.key_dim, cfg.key_dim], np.int64)], n_out=2, axis=-1)
    if hv != hk:  # each q/k head serves hv/hk consecutive value heads (repeat_interleave)
        q, k = (_repeat_heads(g, t, hk, hv // hk, dk) for t in (q, k))

    decay, beta = g.ms(
        "LinearAttentionGate",
        [
            a,
            g.initializer(name["dt_bias"], w.get(name["dt_bias"])),
            g.initializer(f"{name['A_log']}.neg_exp", -np.exp(w.get(name["A_log"]))),
            b,
        ],
        n_out=2,
    )
    attn, present_state = g.ms(
        "LinearAttention",
        [q, k, v, f"past_recurrent_state.{i}", decay, beta],
        n_out=2,
        q_num_heads=hv,
        kv_num_heads=hv,
        update_rule="gated_delta",
        scale=float(dk**-0.5),
    )
    shape: list[int | str] = ["batch", hv, dk, cfg.linear_value_head_dim]
    g.output(present_state, f"present_recurrent_state.{i}", TensorProto.FLOAT, shape)
    # norm(x)·w·silu(z) per value head, as plain ops: onnxruntime 1.32's fused GatedRMSNorm took 25 ms
    # for 512 tokens where these take 1 ms (one thread; docs/engine.md, issue 15).
    with g.scope("gated_norm"):
        normed = g.head_rms_norm(attn, w.get(name["gated_norm"]), name["gated_norm"], cfg.rms_norm_eps, hv)
        gate = g.op("Mul", [z, g.op("Sigmoid", [z])])  # onnxruntime fuses x·sigmoid(x) (QuickGelu)
        normed = g.op("Mul", [normed, gate])
    return g.linear(normed, w.get(name["out_proj"]), name["out_proj"], precision)


def mlp(g: Graph, cfg: Qwen35Config, w: HFCheckpoint, i: int, x: str, precision: Precision) -> str:
    """SwiGLU; gate and up in one MatMul."""
    name = _names(cfg, i)
    gate_up_w = np.concatenate([w.get(name["gate_proj"]), w.get(name["up_proj"])])
    gate_up = g.linear(x, gate_up_w, name["gate_proj"].replace("gate_proj", "gate_up_proj"), precision)
    gate, up = g.op("Split", [gate_up, g.const([cfg.intermediate_size] * 2, np.int64)], n_out=2, axis=-1)
    act = g.op("Mul", [g.op("Mul", [gate, g.op("Sigmoid", [gate])]), up])
    return g.linear(act, w.get(name["down_proj"]), name["down_proj"], precision)


def build_graph(
    cfg: Qwen35Config, w: HFCheckpoint, precision: Precision, progress: ProgressFn | None = None
) -> Graph:
    g = Graph("qwen3_5")
    input_ids = g.input("input_ids", TensorProto.INT64, ["batch", "sequence_length"])
    mask = g.input("attention_mask", TensorProto.INT64, ["batch", "total_sequence_length"])
    keep = g.input("num_logits_to_keep", TensorProto.INT64, [])
    for entry in state_entries(cfg):
        g.input(entry["input"], TensorProto.FLOAT, entry["shape"])

    with g.scope("attn_mask"):
        total = g.op("ReduceSum", [mask, g.const([1], np.int64)], keepdims=0)
        seqlens_k = g.op("Cast", [g.op("Sub", [total, g.const(1, np.int64)])], to=TensorProto.INT32)
        total_length = g.op(
            "Cast",
            [g.op("Gather", [g.op("Shape", [mask]), g.const(1, np.int64)], axis=0)],
            to=TensorProto.INT32,
        )
    cos, sin = _rotary_tables(cfg)
    shared = Shared(
        seqlens_k, total_length, g.initializer("rotary.cos", cos), g.initializer("rotary.sin", sin)
    )
    if not cfg.rotary_in_attention:
        with g.scope("rotary"):
            # Positions as GroupQueryAttention derives them: the chunk's last token sits at
            # total - 1 (total = the mask's sum per row), so position = total - seq + i (>= 0).
            seq = g.op("Gather", [g.op("Shape", [input_ids]), g.const(1, np.int64)], axis=0)
            offsets = g.op("Unsqueeze", [g.op("Sub", [total, seq]), g.const([1], np.int64)])
            steps = g.op("Range", [g.const(0, np.int64), seq, g.const(1, np.int64)])
            positions = g.op("Max", [g.op("Add", [offsets, steps]), g.const(0, np.int64)])
            rows = [
                g.op("Unsqueeze", [g.op("Gather", [table, positions], axis=0), g.const([2], np.int64)])
                for table in (shared.cos, shared.sin)
            ]
        shared = dataclasses.replace(shared, cos_rows=rows[0], sin_rows=rows[1])

    embed_name = cfg.prefix + WEIGHTS["embed"]
    if cfg.tie_word_embeddings:  # one int4 table serves the embedding and the lm_head
        x, lm_head = g.tied_embedding_and_head(input_ids, w.get(embed_name), embed_name, precision.for_head())
    else:
        x = g.embedding(input_ids, w.get(embed_name), embed_name, precision)
        lm_head = functools.partial(
            g.linear, weight=w.get(LM_HEAD), name=LM_HEAD, precision=precision.for_head()
        )
    residual, pending = x, None  # pending: the last block's output, not yet added to the residual
    for i, kind in enumerate(cfg.layer_types):
        if progress:
            progress(i, cfg.num_layers, f"layers.{i}")
        name = _names(cfg, i)
        with g.scope(f"layers.{i}"):
            with g.scope("input_layernorm"):
                if pending is None:
                    h = g.rms_norm(
                        residual, 1.0 + w.get(name["input_norm"]), name["input_norm"], cfg.rms_norm_eps
                    )
                else:
                    h, residual = g.skip_rms_norm(
                        pending,
                        residual,
                        1.0 + w.get(name["input_norm"]),
                        name["input_norm"],
                        cfg.rms_norm_eps,
                    )
            if kind == "full_attention":
                with g.scope("self_attn"):
                    mixed = full_attention(g, cfg, w, i, h, shared, precision)
            else:
                with g.scope("linear_attn"):
                    mixed = gated_delta_net(g, cfg, w, i, h, precision)
            with g.scope("post_attention_layernorm"):
                h, residual = g.skip_rms_norm(
                    mixed, residual, 1.0 + w.get(name["post_norm"]), name["post_norm"], cfg.rms_norm_eps
                )
            with g.scope("mlp"):
                pending = mlp(g, cfg, w, i, h, precision)

    with g.scope("final"):
        # Only the last num_logits_to_keep positions reach the norm and the vocabulary projection.
        start = g.op("Neg", [g.op("Reshape", [keep, g.const([1], np.int64)])])
        last = g.op(
            "Slice",
            [
                g.op("Add", [pending, residual]),
                start,
                g.const([np.iinfo(np.int64).max], np.int64),
                g.const([1], np.int64),
            ],
        )
        normed = g.rms_norm(
            last,
            1.0 + w.get(cfg.prefix + WEIGHTS["final_norm"]),
            cfg.prefix + WEIGHTS["final_norm"],
            cfg.rms_norm_eps,
        )
        logits = lm_head(normed)
    g.output(logits, "logits", TensorProto.FLOAT, ["batch", "num_logits_to_keep", cfg.vocab_size])
    if progress:
        progress(cfg.num_layers, cfg.num_layers, "done")
    return g


def state_entries(cfg: Qwen35Config) -> list[dict[str, Any]]:
    """The `state` list of fantasma_model.json, in graph input order."""
    entries: list[dict[str, Any]] = []
    for i, kind in enumerate(cfg.layer_types):
        if kind == "full_attention":
            shape = ["batch", cfg.num_kv_heads, "past_sequence_length", cfg.head_dim]
            entries += [
                {
                    "kind": k,
                    "layer": i,
                    "input": f"past_key_values.{i}.{k}",
                    "output": f"present.{i}.{k}",
                    "shape": shape,
                    "dtype": "float32",
                }
                for k in ("key", "value")
            ]
        else:
            entries += [
                {
                    "kind": "conv",
                    "layer": i,
                    "input": f"past_conv_state.{i}",
                    "output": f"present_conv_state.{i}",
                    "shape": ["batch", cfg.conv_dim, cfg.conv_kernel - 1],
                    "dtype": "float32",
                },
                {
                    "kind": "recurrent",
                    "layer": i,
                    "input": f"past_recurrent_state.{i}",
                    "output": f"present_recurrent_state.{i}",
                    "shape": [
                        "batch",
                        cfg.linear_num_value_heads,
                        cfg.linear_key_head_dim,
                        cfg.linear_value_head_dim,
                    ],
                    "dtype": "float32",
                },
            ]
    return entries


# --- export entry point (export.registry calls this) ----------------------------------------------
def export(
    source: Path, out_dir: Path, options: ExportOptions, progress: ProgressFn | None = None
) -> dict[str, Any]:
    from export.eos import eos_token_ids, hf_declared, load_tokenizer
    from export.modeldir import write_model_dir
    from export.qwen_tokenizer import CHAT_TEMPLATE, tokenizer_for

    ckpt = HFCheckpoint(Path(source))
    cfg = Qwen35Config.from_hf(ckpt.config, set(ckpt.names()))
    tokenizer = tokenizer_for(ckpt.dir)
    template = ckpt.chat_template() or CHAT_TEMPLATE
    eos, eos_sources = eos_token_ids(
        hf_declared(
            ckpt.config, ckpt.generation_config(), ckpt.tokenizer_config(), load_tokenizer(tokenizer)
        ),
        template,
        tokenizer,
        cfg.bos_token_id,
    )
    precision = options.precision
    graph = build_graph(cfg, ckpt, precision, progress)
    meta: dict[str, Any] = {
        "architecture": "qwen3_5",
        "source": options.source_label or str(source),
        "precision": precision.to_json(),
        "vocab_size": cfg.vocab_size,
        "hidden_size": cfg.hidden_size,
        "num_layers": cfg.num_layers,
        "layer_kinds": list(cfg.layer_types),
        "context_length": cfg.context_length,
        "parameters": text_parameters(ckpt, cfg),
        "bos_token_id": cfg.bos_token_id,
        "eos_token_ids": eos,
        "eos_token_sources": eos_sources,
        "pad_token_id": cfg.pad_token_id if cfg.pad_token_id is not None else eos[0],
        "chat_template": template,
        "generation_config": ckpt.sampling_settings(),
        "add_bos_token": False,
        "state": state_entries(cfg),
    }
    write_model_dir(out_dir, graph, tokenizer, meta)
    return meta


# --- helpers --------------------------------------------------------------------------------------
def _names(cfg: Qwen35Config, i: int) -> dict[str, str]:
    return {key: cfg.prefix + pattern.format(i=i) for key, pattern in WEIGHTS.items()}


def _heads(g: Graph, x: str, heads: int, dim: int) -> str:
    return g.op("Reshape", [x, g.const([0, 0, heads, dim], np.int64)])


def _rotate(g: Graph, x: str, rotary_dim: int, head_dim: int, cos_rows: str, sin_rows: str) -> str:
    """Rotary on the first `rotary_dim` dims of x [batch, seq, heads, head_dim], halves not interleaved
    (transformers' rotate_half): [x1·cos − x2·sin, x2·cos + x1·sin, rest]."""
    half = rotary_dim // 2
    sizes = [half, half] + ([head_dim - rotary_dim] if head_dim > rotary_dim else [])
    parts = g.op("Split", [x, g.const(sizes, np.int64)], n_out=len(sizes), axis=-1)
    x1, x2 = parts[0], parts[1]
    first = g.op("Sub", [g.op("Mul", [x1, cos_rows]), g.op("Mul", [x2, sin_rows])])
    second = g.op("Add", [g.op("Mul", [x2, cos_rows]), g.op("Mul", [x1, sin_rows])])
    return g.op("Concat", [first, second, *parts[2:]], axis=-1)


def _flat(g: Graph, x: str) -> str:
    return g.op("Reshape", [x, g.const([0, 0, -1], np.int64)])


def _repeat_heads(g: Graph, x: str, heads: int, repeat: int, dim: int) -> str:
    x5 = g.op("Reshape", [x, g.const([0, 0, heads, 1, dim], np.int64)])
    return _flat(g, g.op("Tile", [x5, g.const([1, 1, 1, repeat, 1], np.int64)]))


def _rotary_tables(cfg: Qwen35Config) -> tuple[np.ndarray, np.ndarray]:
    # Text-only positions: the three mrope sections carry the same position, so this is plain RoPE
    # over the first rotary_dim dims, non-interleaved halves (transformers' rotate_half).
    inv_freq = 1.0 / (cfg.rope_theta ** (np.arange(0, cfg.rotary_dim, 2, dtype=np.float64) / cfg.rotary_dim))
    angles = np.arange(cfg.context_length, dtype=np.float64)[:, None] * inv_freq[None, :]
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def text_parameters(ckpt: HFCheckpoint, cfg: Qwen35Config) -> int:
    """Parameters of the text decoder the graph holds: every tensor under the prefix (not the vision
    tower, not `mtp.*`), plus an untied lm_head."""
    names = [n for n in ckpt.names() if n.startswith(cfg.prefix)]
    if not cfg.tie_word_embeddings:
        names.append(LM_HEAD)
    return sum(ckpt.numel(n) for n in names)

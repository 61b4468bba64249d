"""Llama-family decoder (Llama 2/3, SmolLM2, TinyLlama, ...) from a Hugging Face dir or a GGUF file.

Graph (per docs/model-format.md), for each layer i:

    x ─► [Skip]RMSNorm ─► q/k/v (one packed linear) ─► GroupQueryAttention(rotary inside) ─► o_proj ─┐
    ┌────────────────────────────────────────────────────────────────────────────────────────────────┘
    └► SkipRMSNorm ─► gate/up (one packed linear) ─► SiLU(gate)·up ─► down_proj ─► (next layer's skip)

then residual + last MLP output, sliced to the last `num_logits_to_keep` positions, final RMSNorm,
lm_head (tied to the embeddings unless the checkpoint has its own).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from onnx import TensorProto

from export.graph import Graph, Precision
from export.modeldir import kv_state, write_model_dir
from export.registry import ExportOptions, ProgressFn

ARCHITECTURE = "llama"


@dataclass(frozen=True)
class RopeScaling:
    kind: str  # "linear" | "llama3"
    factor: float
    low_freq_factor: float = 1.0  # llama3 only
    high_freq_factor: float = 4.0  # llama3 only
    original_max_position_embeddings: int = 8192  # llama3 only


@dataclass(frozen=True)
class LlamaConfig:
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    rms_norm_eps: float
    rope_theta: float
    context_length: int  # also the length of the cos/sin caches
    tie_word_embeddings: bool
    rope_scaling: RopeScaling | None = None

    def __post_init__(self) -> None:
        if self.num_heads % self.num_kv_heads:
            raise ValueError(
                f"{self.num_heads} attention heads is not a multiple of {self.num_kv_heads} kv heads"
            )
        if self.head_dim % 16:
            # onnxruntime's GroupQueryAttention with its rotary ("head_size shall be a multiple of 16");
            # without this check the graph exports and fails at the first generation
            raise ValueError(
                f"head_dim {self.head_dim} is not supported: onnxruntime's GroupQueryAttention needs a "
                "multiple of 16"
            )

    @classmethod
    def from_hf(cls, config: dict[str, Any]) -> LlamaConfig:
        num_heads = config["num_attention_heads"]
        # transformers >= 5 writes rope_parameters; older configs have rope_theta + rope_scaling.
        rope = dict(config.get("rope_parameters") or {})
        legacy = config.get("rope_scaling") or {}
        theta = rope.get("rope_theta", config.get("rope_theta", 10000.0))
        kind = rope.get("rope_type") or legacy.get("rope_type") or legacy.get("type") or "default"
        params = {**legacy, **rope}
        return cls(
            vocab_size=config["vocab_size"],
            hidden_size=config["hidden_size"],
            intermediate_size=config["intermediate_size"],
            num_layers=config["num_hidden_layers"],
            num_heads=num_heads,
            num_kv_heads=config.get("num_key_value_heads") or num_heads,
            head_dim=config.get("head_dim") or config["hidden_size"] // num_heads,
            rms_norm_eps=config.get("rms_norm_eps", 1e-6),
            rope_theta=float(theta),
            context_length=config.get("max_position_embeddings", 2048),
            tie_word_embeddings=config.get("tie_word_embeddings", False),
            rope_scaling=_rope_scaling(kind, params, config.get("max_position_embeddings", 8192)),
        )

    @classmethod
    def from_gguf(cls, metadata: dict[str, Any], tensor_names: list[str]) -> LlamaConfig:
        arch = metadata.get("general.architecture", "llama")

        def key(name: str, default: Any = None) -> Any:
            return metadata.get(f"{arch}.{name}", default)

        num_heads = key("attention.head_count")
        hidden = key("embedding_length")
        scaling_type = key("rope.scaling.type")
        scaling = None
        if scaling_type == "linear":
            scaling = RopeScaling("linear", float(key("rope.scaling.factor")))
        # Llama 3.1 files carry their rope scaling as the `rope_freqs.weight` tensor instead (see export).
        return cls(
            vocab_size=key("vocab_size") or len(metadata["tokenizer.ggml.tokens"]),
            hidden_size=hidden,
            intermediate_size=key("feed_forward_length"),
            num_layers=key("block_count"),
            num_heads=num_heads,
            num_kv_heads=key("attention.head_count_kv") or num_heads,
            head_dim=key("attention.key_length") or key("rope.dimension_count") or hidden // num_heads,
            rms_norm_eps=float(key("attention.layer_norm_rms_epsilon", 1e-5)),
            rope_theta=float(key("rope.freq_base", 10000.0)),
            context_length=key("context_length", 2048),
            tie_word_embeddings="output.weight" not in tensor_names,
            rope_scaling=scaling,
        )


def _rope_scaling(kind: str, params: dict[str, Any], max_positions: int) -> RopeScaling | None:
    if kind == "default":
        return None
    if kind == "linear":
        return RopeScaling("linear", float(params["factor"]))
    if kind == "llama3":
        return RopeScaling(
            "llama3",
            float(params["factor"]),
            float(params.get("low_freq_factor", 1.0)),
            float(params.get("high_freq_factor", 4.0)),
            int(params.get("original_max_position_embeddings", max_positions)),
        )
    raise ValueError(f"rope scaling {kind!r} is not supported (supported: default, linear, llama3)")


# --- weights -------------------------------------------------------------------------------------

# Hugging Face name -> GGUF name; the exporter asks for Hugging Face names only.
GGUF_NAMES: dict[str, str] = {
    "model.embed_tokens.weight": "token_embd.weight",
    "model.norm.weight": "output_norm.weight",
    "lm_head.weight": "output.weight",
    "model.layers.{i}.input_layernorm.weight": "blk.{i}.attn_norm.weight",
    "model.layers.{i}.self_attn.q_proj.weight": "blk.{i}.attn_q.weight",
    "model.layers.{i}.self_attn.k_proj.weight": "blk.{i}.attn_k.weight",
    "model.layers.{i}.self_attn.v_proj.weight": "blk.{i}.attn_v.weight",
    "model.layers.{i}.self_attn.o_proj.weight": "blk.{i}.attn_output.weight",
    "model.layers.{i}.post_attention_layernorm.weight": "blk.{i}.ffn_norm.weight",
    "model.layers.{i}.mlp.gate_proj.weight": "blk.{i}.ffn_gate.weight",
    "model.layers.{i}.mlp.up_proj.weight": "blk.{i}.ffn_up.weight",
    "model.layers.{i}.mlp.down_proj.weight": "blk.{i}.ffn_down.weight",
}


class Weights:
    """float32 tensors by Hugging Face name; `has` for optional ones (biases, untied lm_head)."""

    def __init__(self, get: Callable[[str], np.ndarray], has: Callable[[str], bool]) -> None:
        self.get = get
        self.has = has

    def optional(self, name: str) -> np.ndarray | None:
        return self.get(name) if self.has(name) else None


def hf_weights(checkpoint) -> Weights:
    return Weights(checkpoint.get, checkpoint.__contains__)


def gguf_weights(tensors, config: LlamaConfig) -> Weights:
    """GGUF tensors under Hugging Face names, with llama.cpp's q/k rotary row order undone."""
    from export.gguf_source import unpermute_rotary_rows

    def gguf_name(hf_name: str) -> str | None:
        parts = hf_name.split(".")
        if len(parts) > 2 and parts[1] == "layers":
            template = ".".join([*parts[:2], "{i}", *parts[3:]])
            found = GGUF_NAMES.get(template)
            return found.format(i=parts[2]) if found else None
        return GGUF_NAMES.get(hf_name)

    def get(hf_name: str) -> np.ndarray:
        name = gguf_name(hf_name)
        if name is None:
            raise KeyError(f"no GGUF tensor for {hf_name}")
        weight = tensors.get(name)
        if name.endswith("attn_q.weight"):
            weight = unpermute_rotary_rows(weight, config.num_heads)
        elif name.endswith("attn_k.weight"):
            weight = unpermute_rotary_rows(weight, config.num_kv_heads)
        return weight

    def has(hf_name: str) -> bool:
        name = gguf_name(hf_name)
        return name is not None and name in tensors

    return Weights(get, has)


# --- blocks --------------------------------------------------------------------------------------


def rope_inv_freq(config: LlamaConfig, freq_divisors: np.ndarray | None = None) -> np.ndarray:
    """Inverse frequencies as transformers computes them (default / linear / llama3 scaling)."""
    dim = config.head_dim
    inv_freq = 1.0 / (config.rope_theta ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / dim))
    inv_freq = inv_freq.astype(np.float32)
    scaling = config.rope_scaling
    if scaling is not None and scaling.kind == "linear":
        inv_freq = inv_freq / scaling.factor
    elif scaling is not None and scaling.kind == "llama3":
        low_wavelen = scaling.original_max_position_embeddings / scaling.low_freq_factor
        high_wavelen = scaling.original_max_position_embeddings / scaling.high_freq_factor
        wavelen = 2 * math.pi / inv_freq
        scaled = np.where(wavelen > low_wavelen, inv_freq / scaling.factor, inv_freq)
        smooth = (scaling.original_max_position_embeddings / wavelen - scaling.low_freq_factor) / (
            scaling.high_freq_factor - scaling.low_freq_factor
        )
        smoothed = (1 - smooth) * scaled / scaling.factor + smooth * scaled
        medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)
        inv_freq = np.where(medium, smoothed, scaled).astype(np.float32)
    if freq_divisors is not None:  # llama.cpp's rope_freqs tensor (Llama 3.1 GGUF files)
        inv_freq = inv_freq / freq_divisors.astype(np.float32)
    return inv_freq.astype(np.float32)


def rotary_caches(g: Graph, inv_freq: np.ndarray, max_positions: int) -> tuple[str, str]:
    """cos/sin caches [max_positions, rotary_dim / 2] for GroupQueryAttention(do_rotary=1)."""
    positions = np.arange(max_positions, dtype=np.float32)
    angles = np.outer(positions, inv_freq).astype(np.float32)
    return (
        g.initializer("rotary.cos_cache", np.cos(angles).astype(np.float32)),
        g.initializer("rotary.sin_cache", np.sin(angles).astype(np.float32)),
    )


def attention_lengths(g: Graph, attention_mask: str) -> tuple[str, str]:
    """(seqlens_k int32 [batch] = real tokens - 1, total_sequence_length int32 scalar) for GQA."""
    with g.scope("attn_mask"):
        real = g.op("ReduceSum", [attention_mask, g.const([1], np.int64)], keepdims=0)
        seqlens_k = g.op("Cast", [g.op("Sub", [real, g.const(1, np.int64)])], to=TensorProto.INT32)
        total = g.op("Gather", [g.op("Shape", [attention_mask]), g.const(1, np.int64)], axis=0)
        total = g.op("Cast", [total], to=TensorProto.INT32)
    return seqlens_k, total


def attention(
    g: Graph,
    x: str,
    i: int,
    config: LlamaConfig,
    weights: Weights,
    precision: Precision,
    lengths: tuple[str, str],
    rotary: tuple[str, str],
) -> str:
    """Self-attention of layer i; adds past/present KV inputs/outputs to the graph."""
    prefix = f"model.layers.{i}.self_attn"
    with g.scope("attn"):
        names = [f"{prefix}.{p}_proj" for p in ("q", "k", "v")]
        qkv_weight = np.concatenate([weights.get(f"{n}.weight") for n in names], axis=0)
        biases = [b for n in names if (b := weights.optional(f"{n}.bias")) is not None]
        qkv_bias: np.ndarray | None = np.concatenate(biases) if len(biases) == 3 else None
        qkv = g.linear(x, qkv_weight, f"{prefix}.qkv_proj.weight", precision, bias=qkv_bias)
        kv_shape: list[int | str] = ["batch", config.num_kv_heads, "past_sequence_length", config.head_dim]
        past_k = g.input(f"past_key_values.{i}.key", TensorProto.FLOAT, kv_shape)
        past_v = g.input(f"past_key_values.{i}.value", TensorProto.FLOAT, kv_shape)
        out, present_k, present_v = g.ms(
            "GroupQueryAttention",
            [qkv, None, None, past_k, past_v, lengths[0], lengths[1], rotary[0], rotary[1]],
            n_out=3,
            num_heads=config.num_heads,
            kv_num_heads=config.num_kv_heads,
            do_rotary=1,
            rotary_interleaved=0,
        )
        present_shape: list[int | str] = [
            "batch",
            config.num_kv_heads,
            "total_sequence_length",
            config.head_dim,
        ]
        g.output(present_k, f"present.{i}.key", TensorProto.FLOAT, present_shape)
        g.output(present_v, f"present.{i}.value", TensorProto.FLOAT, present_shape)
        return g.linear(
            out,
            weights.get(f"{prefix}.o_proj.weight"),
            f"{prefix}.o_proj.weight",
            precision,
            bias=weights.optional(f"{prefix}.o_proj.bias"),
        )


def mlp(g: Graph, x: str, i: int, config: LlamaConfig, weights: Weights, precision: Precision) -> str:
    """down(SiLU(gate(x)) * up(x)), gate and up as one packed linear."""
    prefix = f"model.layers.{i}.mlp"
    with g.scope("mlp"):
        gate_up_weight = np.concatenate(
            [weights.get(f"{prefix}.gate_proj.weight"), weights.get(f"{prefix}.up_proj.weight")], axis=0
        )
        gate_up = g.linear(x, gate_up_weight, f"{prefix}.gate_up_proj.weight", precision)
        split = g.const([config.intermediate_size, config.intermediate_size], np.int64)
        gate, up = g.op("Split", [gate_up, split], n_out=2, axis=-1)
        act = g.op("Mul", [g.op("Mul", [gate, g.op("Sigmoid", [gate])]), up])
        return g.linear(
            act, weights.get(f"{prefix}.down_proj.weight"), f"{prefix}.down_proj.weight", precision
        )


def last_positions(g: Graph, x: str, num_logits_to_keep: str) -> str:
    """x[:, -n:, :] — everything after this runs only for the positions whose logits are wanted."""
    with g.scope("keep_last"):
        start = g.op("Neg", [g.op("Unsqueeze", [num_logits_to_keep, g.const([0], np.int64)])])
        end = g.const([np.iinfo(np.int64).max], np.int64)
        return g.op("Slice", [x, start, end, g.const([1], np.int64)])


def build_graph(
    config: LlamaConfig,
    weights: Weights,
    precision: Precision,
    progress: ProgressFn | None = None,
    freq_divisors: np.ndarray | None = None,
) -> Graph:
    g = Graph(ARCHITECTURE)
    input_ids = g.input("input_ids", TensorProto.INT64, ["batch", "sequence_length"])
    attention_mask = g.input("attention_mask", TensorProto.INT64, ["batch", "total_sequence_length"])
    num_logits_to_keep = g.input("num_logits_to_keep", TensorProto.INT64, [])

    embed_table = weights.get("model.embed_tokens.weight")
    with g.scope("model"):
        x = g.embedding(input_ids, embed_table, "model.embed_tokens.weight", precision)
        lengths = attention_lengths(g, attention_mask)
        rotary = rotary_caches(g, rope_inv_freq(config, freq_divisors), config.context_length)
        eps = config.rms_norm_eps
        residual, pending = x, None  # pending: the previous layer's MLP output, not yet added
        for i in range(config.num_layers):
            with g.scope(f"layers.{i}"):
                ln_in = weights.get(f"model.layers.{i}.input_layernorm.weight")
                name = f"model.layers.{i}.input_layernorm.weight"
                if pending is None:
                    h = g.rms_norm(residual, ln_in, name, eps)
                else:
                    h, residual = g.skip_rms_norm(pending, residual, ln_in, name, eps)
                attn_out = attention(g, h, i, config, weights, precision, lengths, rotary)
                ln_post = weights.get(f"model.layers.{i}.post_attention_layernorm.weight")
                h, residual = g.skip_rms_norm(
                    attn_out, residual, ln_post, f"model.layers.{i}.post_attention_layernorm.weight", eps
                )
                pending = mlp(g, h, i, config, weights, precision)
            if progress:
                progress(i + 1, config.num_layers + 2, f"layers.{i}")
        hidden = g.op("Add", [pending, residual]) if pending is not None else residual
        hidden = last_positions(g, hidden, num_logits_to_keep)
        hidden = g.rms_norm(hidden, weights.get("model.norm.weight"), "model.norm.weight", eps)
    lm_head = weights.optional("lm_head.weight")
    if lm_head is None or config.tie_word_embeddings:
        lm_head = embed_table
    logits = g.linear(hidden, lm_head, "lm_head.weight", precision.for_head())
    g.output(logits, "logits", TensorProto.FLOAT, ["batch", "num_logits_to_keep", config.vocab_size])
    if progress:
        progress(config.num_layers + 1, config.num_layers + 2, "writing model.onnx")
    return g


def model_meta(
    config: LlamaConfig, precision: Precision, source: str, special: dict[str, Any], parameters: int
) -> dict:
    state = [
        entry for i in range(config.num_layers) for entry in kv_state(i, config.num_kv_heads, config.head_dim)
    ]
    return {
        "architecture": ARCHITECTURE,
        "source": source,
        "precision": precision.to_json(),
        "vocab_size": config.vocab_size,
        "hidden_size": config.hidden_size,
        "num_layers": config.num_layers,
        "layer_kinds": ["full_attention"] * config.num_layers,
        "context_length": config.context_length,
        "parameters": parameters,
        **special,
        "state": state,
    }


# --- sources -------------------------------------------------------------------------------------


def hf_parameters(checkpoint) -> int:
    """Parameters of the decoder in a Hugging Face checkpoint (`model.*` and an untied lm_head)."""
    return sum(
        checkpoint.numel(n) for n in checkpoint.names() if n.startswith("model.") or n == "lm_head.weight"
    )


def gguf_parameters(tensors) -> int:
    """Parameters in a GGUF file's tensors (llama.cpp's rope frequency table is not a weight)."""
    return sum(tensors.numel(n) for n in tensors.names() if n != "rope_freqs.weight")


def _special_from_hf(checkpoint) -> dict[str, Any]:
    from export.eos import eos_token_ids, hf_declared, load_tokenizer

    config, generation = checkpoint.config, checkpoint.generation_config()
    tokenizer_config = checkpoint.tokenizer_config()
    bos = generation.get("bos_token_id", config.get("bos_token_id"))
    pad = generation.get("pad_token_id", config.get("pad_token_id"))
    tokenizer = load_tokenizer(checkpoint.tokenizer_path())
    template = checkpoint.chat_template()
    try:
        eos_ids, sources = eos_token_ids(
            hf_declared(config, generation, tokenizer_config, tokenizer), template, tokenizer, bos
        )
    except ValueError as exc:
        raise ValueError(f"{checkpoint.dir}: {exc}") from exc
    return {
        "bos_token_id": bos,
        "eos_token_ids": eos_ids,
        "eos_token_sources": sources,
        "pad_token_id": eos_ids[0] if pad is None else pad,
        "add_bos_token": bool(tokenizer_config.get("add_bos_token", False)),
        "chat_template": template,
        "generation_config": checkpoint.sampling_settings(),
    }


def export(
    source: Path, out_dir: Path, options: ExportOptions, progress: ProgressFn | None = None
) -> dict[str, Any]:
    """Export a Llama HF dir or GGUF file to a model dir; returns the fantasma_model.json written."""
    source = Path(source)
    label = options.source_label or str(source)
    if progress:
        progress(0, 1, "reading checkpoint")
    if source.suffix.lower() == ".gguf":
        from export.gguf_source import GGUFTensors, open_gguf, special_ids_from_gguf, tokenizer_from_gguf

        metadata, reader = open_gguf(source)
        tensors = GGUFTensors(reader)
        config = LlamaConfig.from_gguf(metadata, tensors.names())
        weights = gguf_weights(tensors, config)
        freq_divisors = tensors.get("rope_freqs.weight") if "rope_freqs.weight" in tensors else None
        tokenizer: Any = tokenizer_from_gguf(metadata)
        special = special_ids_from_gguf(metadata, tokenizer)
        parameters = gguf_parameters(tensors)
    else:
        from export.hf_source import HFCheckpoint

        checkpoint = HFCheckpoint(source)
        config = LlamaConfig.from_hf(checkpoint.config)
        weights = hf_weights(checkpoint)
        freq_divisors = None
        tokenizer = checkpoint.tokenizer_path()
        special = _special_from_hf(checkpoint)
        parameters = hf_parameters(checkpoint)
    graph = build_graph(config, weights, options.precision, progress, freq_divisors)
    meta = model_meta(config, options.precision, label, special, parameters)
    write_model_dir(out_dir, graph, tokenizer, meta)
    if progress:
        progress(config.num_layers + 2, config.num_layers + 2, "done")
    return meta

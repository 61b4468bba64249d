"""BERT sentence embedder (all-MiniLM-L6-v2) → `embedder.onnx` for the meaning guard.

Reads the Hugging Face dir with safetensors + numpy (no torch) and emits:

    input_ids, attention_mask [batch, seq] int64
      → Gather(word) + position rows + token-type row 0 → LayerNormalization
      → 6 × [ Attention (com.microsoft, packed QKV, raw 2-D mask)
              → output dense → SkipLayerNormalization(+ residual)
              → intermediate dense → Gelu (erf) → output dense → SkipLayerNormalization(+ residual) ]
      → mean over positions where attention_mask = 1 → L2 normalize
      → embedding [batch, hidden] float32

This is what sentence-transformers computes for the model (Transformer → Pooling(mean) → Normalize).
fp32 throughout: the model is 22M parameters, and int4 would cost parity for little speed.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from onnx import TensorProto

from export.graph import Graph, Precision

# Longest input the embedder sees; sentence-transformers uses 256 for this model.
MAX_SEQ_LENGTH = 256
EMBEDDER_FILE = "embedder.onnx"
META_FILE = "embedder.json"


@dataclass(frozen=True)
class BertConfig:
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    layer_norm_eps: float
    max_position_embeddings: int
    vocab_size: int
    hidden_act: str
    pooling: str  # "mean" is the only mode exported

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_heads

    @classmethod
    def from_hf(cls, model_dir: Path) -> BertConfig:
        config = json.loads((model_dir / "config.json").read_text())
        pooling_path = model_dir / "1_Pooling" / "config.json"
        pooling = "mean"
        if pooling_path.exists():
            pool = json.loads(pooling_path.read_text())
            if not pool.get("pooling_mode_mean_tokens", True):
                raise ValueError(f"{pooling_path}: only mean pooling is supported")
        if config.get("model_type", "bert") != "bert":
            raise ValueError(f"{model_dir}: model_type {config.get('model_type')!r} is not bert")
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported")
        hidden_act = config.get("hidden_act", "gelu")
        if hidden_act != "gelu":
            raise ValueError(f"hidden_act {hidden_act!r} is not supported (expected gelu)")
        return cls(
            hidden_size=config["hidden_size"],
            num_layers=config["num_hidden_layers"],
            num_heads=config["num_attention_heads"],
            intermediate_size=config["intermediate_size"],
            layer_norm_eps=float(config.get("layer_norm_eps", 1e-12)),
            max_position_embeddings=config.get("max_position_embeddings", 512),
            vocab_size=config["vocab_size"],
            hidden_act=hidden_act,
            pooling=pooling,
        )


# Checkpoint tensor names (a `bert.` prefix, as in BertForX checkpoints, is stripped on load).
EMBED = "embeddings.{}"
LAYER = "encoder.layer.{i}.{name}"


def load_weights(model_dir: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    path = model_dir / "model.safetensors"
    if not path.exists():
        raise FileNotFoundError(f"{path}: missing (expected a safetensors checkpoint)")
    return {k.removeprefix("bert."): v.astype(np.float32) for k, v in load_file(str(path)).items()}


def _layer_norm(g: Graph, x: str, w: dict[str, np.ndarray], prefix: str, eps: float) -> str:
    scale = g.initializer(f"{prefix}.weight", w[f"{prefix}.weight"])
    bias = g.initializer(f"{prefix}.bias", w[f"{prefix}.bias"])
    return g.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=eps)


def _skip_layer_norm(g: Graph, x: str, skip: str, w: dict[str, np.ndarray], prefix: str, eps: float) -> str:
    """LayerNorm(x + skip) as one fused contrib op."""
    scale = g.initializer(f"{prefix}.weight", w[f"{prefix}.weight"])
    bias = g.initializer(f"{prefix}.bias", w[f"{prefix}.bias"])
    return g.ms("SkipLayerNormalization", [x, skip, scale, bias], epsilon=eps)


def embeddings(g: Graph, cfg: BertConfig, w: dict[str, np.ndarray], ids: str) -> str:
    with g.scope("embeddings"):
        words = g.op(
            "Gather",
            [
                g.initializer("embeddings.word_embeddings.weight", w[EMBED.format("word_embeddings.weight")]),
                ids,
            ],
            axis=0,
        )
        # Positions 0..seq-1: slice the table to the sequence length, broadcast over the batch.
        seq_len_1d = g.op("Shape", [ids], start=1, end=2)
        table = g.initializer(
            "embeddings.position_embeddings.weight", w[EMBED.format("position_embeddings.weight")]
        )
        positions = g.op("Slice", [table, g.const([0], np.int64), seq_len_1d, g.const([0], np.int64)])
        # Single-segment input: token type 0 everywhere, so its row is a constant.
        type_row = g.initializer(
            "embeddings.token_type_embeddings.0", w[EMBED.format("token_type_embeddings.weight")][0]
        )
        x = g.op("Add", [g.op("Add", [words, positions]), type_row])
        return _layer_norm(g, x, w, "embeddings.LayerNorm", cfg.layer_norm_eps)


def encoder_layer(g: Graph, cfg: BertConfig, w: dict[str, np.ndarray], i: int, x: str, mask_i32: str) -> str:
    def t(name: str) -> np.ndarray:
        return w[LAYER.format(i=i, name=name)]

    fp32 = Precision("fp32")
    with g.scope(f"layers.{i}"):
        with g.scope("attn"):
            # Attention wants [hidden, 3*hidden] (input-major) and a [3*hidden] bias, Q|K|V.
            qkv_w = np.concatenate(
                [t(f"attention.self.{p}.weight") for p in ("query", "key", "value")], axis=0
            )
            qkv_b = np.concatenate([t(f"attention.self.{p}.bias") for p in ("query", "key", "value")])
            ctx = g.ms(
                "Attention",
                [
                    x,
                    g.initializer(f"encoder.layer.{i}.attention.qkv.weight.T", np.ascontiguousarray(qkv_w.T)),
                    g.initializer(f"encoder.layer.{i}.attention.qkv.bias", qkv_b),
                    mask_i32,
                ],
                num_heads=cfg.num_heads,
            )
            out = g.linear(
                ctx,
                t("attention.output.dense.weight"),
                f"encoder.layer.{i}.attention.output.dense.weight",
                fp32,
                bias=t("attention.output.dense.bias"),
            )
            x = _skip_layer_norm(
                g, out, x, w, f"encoder.layer.{i}.attention.output.LayerNorm", cfg.layer_norm_eps
            )
        with g.scope("mlp"):
            h = g.linear(
                x,
                t("intermediate.dense.weight"),
                f"encoder.layer.{i}.intermediate.dense.weight",
                fp32,
                bias=t("intermediate.dense.bias"),
            )
            h = g.ms("Gelu", [h])
            h = g.linear(
                h,
                t("output.dense.weight"),
                f"encoder.layer.{i}.output.dense.weight",
                fp32,
                bias=t("output.dense.bias"),
            )
            return _skip_layer_norm(g, h, x, w, f"encoder.layer.{i}.output.LayerNorm", cfg.layer_norm_eps)


def mean_pool_normalize(g: Graph, hidden: str, mask: str) -> str:
    """sum(h * m) / max(sum(m), 1e-9), then x / max(‖x‖₂, 1e-12) — as sentence-transformers does."""
    with g.scope("pool"):
        m = g.op("Unsqueeze", [g.op("Cast", [mask], to=TensorProto.FLOAT), g.const([-1], np.int64)])
        summed = g.op("ReduceSum", [g.op("Mul", [hidden, m]), g.const([1], np.int64)], keepdims=0)
        count = g.op("ReduceSum", [m, g.const([1], np.int64)], keepdims=0)
        mean = g.op("Div", [summed, g.op("Max", [count, g.const(np.array(1e-9, dtype=np.float32))])])
        norm = g.op("ReduceL2", [mean, g.const([-1], np.int64)], keepdims=1)
        return g.op("Div", [mean, g.op("Max", [norm, g.const(np.array(1e-12, dtype=np.float32))])])


def build_graph(cfg: BertConfig, w: dict[str, np.ndarray]) -> Graph:
    g = Graph("bert_embedder")
    ids = g.input("input_ids", TensorProto.INT64, ["batch", "sequence_length"])
    mask = g.input("attention_mask", TensorProto.INT64, ["batch", "sequence_length"])
    mask_i32 = g.op("Cast", [mask], to=TensorProto.INT32)
    x = embeddings(g, cfg, w, ids)
    for i in range(cfg.num_layers):
        x = encoder_layer(g, cfg, w, i, x, mask_i32)
    pooled = mean_pool_normalize(g, x, mask)
    g.output(pooled, "embedding", TensorProto.FLOAT, ["batch", cfg.hidden_size])
    return g


def configure_tokenizer(tokenizer_json: Path, out_path: Path) -> None:
    """Copy tokenizer.json with truncation at MAX_SEQ_LENGTH and padding to the batch's longest."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_json))
    tok.enable_truncation(MAX_SEQ_LENGTH)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    tok.save(str(out_path))


def export_embedder(source_dir: Path, out_dir: Path) -> Path:
    """Write embedder.onnx (+ .data), tokenizer.json and embedder.json into out_dir; returns the onnx path.

    Written to a temporary sibling dir and renamed into place, so a crash never leaves a half model.
    """
    source_dir, out_dir = Path(source_dir), Path(out_dir)
    cfg = BertConfig.from_hf(source_dir)
    weights = load_weights(source_dir)
    tmp = out_dir.with_name(out_dir.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    build_graph(cfg, weights).save(tmp / EMBEDDER_FILE)
    configure_tokenizer(source_dir / "tokenizer.json", tmp / "tokenizer.json")
    meta = {
        "format_version": 1,
        "architecture": "bert",
        "source": str(source_dir),
        "hidden_size": cfg.hidden_size,
        "max_seq_length": MAX_SEQ_LENGTH,
        "pooling": cfg.pooling,
        "normalized": True,
        "io": {"input_ids": "input_ids", "attention_mask": "attention_mask", "embedding": "embedding"},
    }
    (tmp / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    shutil.rmtree(out_dir, ignore_errors=True)
    tmp.rename(out_dir)
    return out_dir / EMBEDDER_FILE


def export_default_embedder(out_dir: Path | None = None) -> Path:
    """Export the bundled all-MiniLM-L6-v2 into native_host.paths.embedder_dir() (or out_dir)."""
    from native_host import assets, paths

    return export_embedder(assets.minilm_dir(), Path(out_dir) if out_dir else paths.embedder_dir())


def embedder_ready(out_dir: Path) -> bool:
    return all((Path(out_dir) / f).exists() for f in (EMBEDDER_FILE, "tokenizer.json", META_FILE))

"""LoRA adapters without torch: read one, check its hash, merge it into base weights with numpy.

An adapter file is one safetensors file: per adapted linear (Hugging Face module name, e.g.
`model.layers.3.self_attn.q_proj`) the tensors `<module>.lora_A` [r, in] and `<module>.lora_B`
[out, r], and in the metadata `format` = "fantasma-lora-1" and `scale` (alpha / r, as PEFT uses it).
Merging is PEFT's merge: W' = W + scale · B · A. `train/` writes these files; `fantasma setup` merges
the shipped one into the GGUF's weights and exports the result like any other checkpoint.

    base weights (GGUF / HF dir) ─► Weights.get(name) ─► + scale·B·A where the adapter has `name` ─► graph
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from export.modeldir import file_sha256

FORMAT = "fantasma-lora-1"


class AdapterError(ValueError):
    """The adapter file is missing, corrupted (hash mismatch) or not an adapter; the message says which."""


@dataclass(frozen=True)
class LoraAdapter:
    scale: float
    factors: dict[str, tuple[np.ndarray, np.ndarray]]  # module name -> (A [r, in], B [out, r])
    sha256: str

    def delta(self, module: str) -> np.ndarray:
        """scale · B · A, the [out, in] update of one linear's weight."""
        a, b = self.factors[module]
        return (self.scale * (b.astype(np.float64) @ a.astype(np.float64))).astype(np.float32)

    def weight_names(self) -> set[str]:
        return {f"{module}.weight" for module in self.factors}

    def merge(self, name: str, weight: np.ndarray) -> np.ndarray:
        """`weight` (checkpoint orientation, [out, in]) with the update added when the adapter has it."""
        module = name.removesuffix(".weight")
        if module not in self.factors or not name.endswith(".weight"):
            return weight
        delta = self.delta(module)
        if delta.shape != weight.shape:
            raise AdapterError(
                f"adapter update for {module} has shape {delta.shape}, the base weight {weight.shape}: "
                "the adapter was trained on another model"
            )
        return (weight.astype(np.float32) + delta).astype(np.float32)


def save_adapter(
    path: Path, scale: float, factors: dict[str, tuple[np.ndarray, np.ndarray]], dtype: type = np.float32
) -> str:
    """Write an adapter file (float16 halves a shipped file; merging is done in float64); returns its sha256."""
    from safetensors.numpy import save_file

    tensors: dict[str, np.ndarray] = {}
    for module, (a, b) in sorted(factors.items()):
        if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[1]:
            raise AdapterError(f"{module}: lora_A {a.shape} and lora_B {b.shape} do not share a rank")
        tensors[f"{module}.lora_A"] = np.ascontiguousarray(a, dtype=dtype)
        tensors[f"{module}.lora_B"] = np.ascontiguousarray(b, dtype=dtype)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path), metadata={"format": FORMAT, "scale": repr(float(scale))})
    return file_sha256(path)


def load_adapter(path: Path, expected_sha256: str | None = None) -> LoraAdapter:
    """Read an adapter file; with `expected_sha256`, refuse a file whose bytes differ."""
    from safetensors import safe_open

    path = Path(path)
    if not path.is_file():
        raise AdapterError(f"{path}: no such adapter file")
    sha = file_sha256(path)
    if expected_sha256 is not None and sha != expected_sha256.lower():
        raise AdapterError(
            f"{path}: sha256 {sha[:16]}… does not match the recorded {expected_sha256[:16]}…; "
            "the adapter file is corrupted or was replaced"
        )
    try:
        with safe_open(str(path), framework="numpy") as f:
            metadata = f.metadata() or {}
            tensors = {name: f.get_tensor(name) for name in f.keys()}  # noqa: SIM118 (not a dict)
    except Exception as exc:  # safetensors raises its own error types for bad headers
        raise AdapterError(f"{path}: not a readable safetensors file ({exc})") from exc
    if metadata.get("format") != FORMAT:
        raise AdapterError(f"{path}: format {metadata.get('format')!r}, expected {FORMAT!r}")
    try:
        scale = float(metadata["scale"])
    except (KeyError, ValueError) as exc:
        raise AdapterError(f"{path}: no valid 'scale' in the metadata") from exc
    factors: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in tensors:
        if name.endswith(".lora_A"):
            module = name.removesuffix(".lora_A")
            if f"{module}.lora_B" not in tensors:
                raise AdapterError(f"{path}: {module} has lora_A but no lora_B")
            factors[module] = (tensors[name], tensors[f"{module}.lora_B"])
    if not factors:
        raise AdapterError(f"{path}: holds no LoRA factors")
    return LoraAdapter(scale, factors, sha)


def read_manifest(path: Path) -> dict[str, Any]:
    """The JSON beside a shipped adapter: its file name, sha256 and how it was made."""
    try:
        manifest = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AdapterError(f"{path}: adapter manifest unreadable ({exc})") from exc
    for key in ("file", "sha256"):
        if not isinstance(manifest.get(key), str):
            raise AdapterError(f"{path}: adapter manifest lacks '{key}'")
    return manifest


def load_shipped(manifest_path: Path) -> LoraAdapter:
    """The adapter a manifest names (a path relative to the manifest), hash-checked."""
    manifest = read_manifest(manifest_path)
    return load_adapter(Path(manifest_path).parent / manifest["file"], manifest["sha256"])


# --- exporting with an adapter merged in ------------------------------------------------------------


def export_gguf_merged(gguf: Path, out_dir: Path, adapter: LoraAdapter, options, progress=None) -> dict:
    """`export.llama.export` of a GGUF file with the adapter merged into its (dequantized) weights."""
    from export import llama
    from export.gguf_source import GGUFTensors, open_gguf, special_ids_from_gguf, tokenizer_from_gguf
    from export.modeldir import write_model_dir

    metadata, reader = open_gguf(Path(gguf))
    tensors = GGUFTensors(reader)
    config = llama.LlamaConfig.from_gguf(metadata, tensors.names())
    base = llama.gguf_weights(tensors, config)
    missing = sorted(n for n in adapter.weight_names() if not base.has(n))
    if missing:
        raise AdapterError(f"the adapter updates weights the model does not have: {', '.join(missing[:3])}")
    weights = llama.Weights(lambda name: adapter.merge(name, base.get(name)), base.has)
    freq_divisors = tensors.get("rope_freqs.weight") if "rope_freqs.weight" in tensors else None
    graph = llama.build_graph(config, weights, options.precision, progress, freq_divisors)
    tokenizer = tokenizer_from_gguf(metadata)
    meta = llama.model_meta(
        config,
        options.precision,
        options.source_label or str(gguf),
        special_ids_from_gguf(metadata, tokenizer),
        llama.gguf_parameters(tensors),
    )
    write_model_dir(out_dir, graph, tokenizer, meta)
    return meta


def merge_hf_dir(base_dir: Path, adapter: LoraAdapter, out_dir: Path) -> Path:
    """A copy of a Hugging Face checkpoint dir with the adapter merged into its safetensors weights
    (for `fantasma-export` of any architecture it supports).

    Each shard is copied byte for byte and the merged tensors are written over their own bytes in their
    own dtype (bf16 too, which numpy has no type for): a merge changes values, never shapes or dtypes,
    so the header and every offset stay as they were, and only one tensor is in memory at a time."""
    import shutil

    from export.hf_source import HFCheckpoint

    base_dir, out_dir = Path(base_dir), Path(out_dir)
    checkpoint = HFCheckpoint(base_dir)  # a truncated or corrupt shard is refused here, before copying
    out_dir.mkdir(parents=True, exist_ok=True)
    for item in base_dir.iterdir():
        if item.is_file():
            shutil.copyfile(item, out_dir / item.name)  # a snapshot's symlinks become files
    wanted = adapter.weight_names()
    found: set[str] = set()
    for name in checkpoint.names():
        # VLM layouts keep the text model under model.language_model.*; PEFT names follow the loaded
        # class, so match on either.
        key = name if name in wanted else name.replace("model.language_model.", "model.", 1)
        if key not in wanted:
            continue
        found.add(key)
        shard, dtype, offset = checkpoint.raw_location(name)
        merged = adapter.merge(key, checkpoint.get(name))
        with (out_dir / shard.name).open("r+b") as f:
            f.seek(offset)
            f.write(_encode(merged, dtype))
    if found != wanted:
        raise AdapterError(f"{base_dir}: no weights for {', '.join(sorted(wanted - found)[:3])}")
    return out_dir


def _encode(values: np.ndarray, dtype: str) -> bytes:
    """float32 values as a safetensors dtype's little-endian bytes (bf16: round to nearest even)."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    if dtype == "BF16":
        bits = values.view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return rounded.astype("<u2").tobytes()
    if dtype in ("F32", "F16", "F64"):
        return values.astype({"F32": "<f4", "F16": "<f2", "F64": "<f8"}[dtype]).tobytes()
    raise AdapterError(f"cannot merge into a {dtype} tensor (only float weights take an adapter)")


def export_merged(source: Path, out_dir: Path, adapter: LoraAdapter | None, options) -> None:
    """Export a GGUF file or Hugging Face dir to a model dir with the adapter merged (None: as is).

    GGUF: the merge happens on the dequantized weights as the graph is built. HF dir: a merged copy of
    the checkpoint is written next to `out_dir` and exported like any other, then removed."""
    import shutil

    from export.cli import export_model

    source, out_dir = Path(source), Path(out_dir)
    if adapter is None:
        export_model(source, out_dir, options)
        return
    if source.suffix.lower() == ".gguf":
        staging = out_dir.with_name(f".{out_dir.name}.merging")
        shutil.rmtree(staging, ignore_errors=True)
        try:
            export_gguf_merged(source, staging, adapter, options)
            if out_dir.exists():
                shutil.rmtree(out_dir)
            staging.rename(out_dir)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return
    merged = out_dir.with_name(f".{out_dir.name}.merged-checkpoint")
    shutil.rmtree(merged, ignore_errors=True)
    try:
        merge_hf_dir(source, adapter, merged)
        export_model(merged, out_dir, options)
    finally:
        shutil.rmtree(merged, ignore_errors=True)

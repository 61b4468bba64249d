"""Writing and reading a model dir (the contract in docs/model-format.md).

    write_model_dir(out, graph, tokenizer, meta)   # model.onnx(+.data), tokenizer.json, fantasma_model.json
    read_meta(out)                                  # the parsed, checked fantasma_model.json

`meta` carries the architecture facts (with `parameters`, the text decoder's count, which the rewrite
pipeline reads as the model's size class); `format_version`, `io` and `chat_template_kwargs` (the
template variables the engine renders with: thinking off where the template has the switch) are filled
in here so every exporter writes the same envelope.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from native_host.json_file import JsonFileError, read_object
from native_host.model_format import template_switches

if TYPE_CHECKING:
    import tokenizers

    from export.graph import Graph

FORMAT_VERSION = 1
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
META_FILE = "fantasma_model.json"

DEFAULT_IO = {
    "input_ids": "input_ids",
    "attention_mask": "attention_mask",
    "num_logits_to_keep": "num_logits_to_keep",
    "logits": "logits",
}
REQUIRED_KEYS = (
    "architecture",
    "source",
    "precision",
    "vocab_size",
    "hidden_size",
    "num_layers",
    "layer_kinds",
    "context_length",
    "bos_token_id",
    "eos_token_ids",
    "pad_token_id",
    "chat_template",
    "add_bos_token",
    "state",
)
STATE_KINDS = ("key", "value", "conv", "recurrent")


class ModelDirError(ValueError):
    """A model dir (or the meta about to be written into one) breaks the contract."""


def kv_state(layer: int, num_kv_heads: int, head_dim: int) -> list[dict[str, Any]]:
    """The two `state` entries of one full-attention layer, named as docs/model-format.md shows."""
    shape = ["batch", num_kv_heads, "past_sequence_length", head_dim]
    return [
        {
            "kind": kind,
            "layer": layer,
            "input": f"past_key_values.{layer}.{kind}",
            "output": f"present.{layer}.{kind}",
            "shape": shape,
            "dtype": "float32",
        }
        for kind in ("key", "value")
    ]


def check_meta(meta: dict[str, Any]) -> None:
    missing = [key for key in REQUIRED_KEYS if key not in meta]
    if missing:
        raise ModelDirError(f"fantasma_model.json lacks {', '.join(missing)}")
    if len(meta["layer_kinds"]) != meta["num_layers"]:
        raise ModelDirError(
            f"layer_kinds has {len(meta['layer_kinds'])} entries for {meta['num_layers']} layers"
        )
    if not meta["eos_token_ids"]:
        raise ModelDirError("eos_token_ids is empty; generation could never stop at eos")
    for entry in meta["state"]:
        if entry.get("kind") not in STATE_KINDS:
            raise ModelDirError(f"state entry has unknown kind {entry.get('kind')!r}")
        for key in ("layer", "input", "output", "shape", "dtype"):
            if key not in entry:
                raise ModelDirError(f"state entry for layer {entry.get('layer')} lacks {key!r}")


def write_model_dir(
    out_dir: Path | str,
    graph: Graph,
    tokenizer: Path | str | tokenizers.Tokenizer,
    meta: dict[str, Any],
) -> Path:
    """Write the three parts of a model dir into `out_dir` (created if needed); returns it."""
    out = Path(out_dir)
    meta = {"format_version": FORMAT_VERSION, **meta}
    meta.setdefault("io", dict(DEFAULT_IO))
    meta.setdefault("chat_template_kwargs", template_switches(meta.get("chat_template") or ""))
    check_meta(meta)
    out.mkdir(parents=True, exist_ok=True)
    graph.save(out / MODEL_FILE)
    if isinstance(tokenizer, str | Path):
        shutil.copyfile(tokenizer, out / TOKENIZER_FILE)
    else:
        tokenizer.save(str(out / TOKENIZER_FILE))
    (out / META_FILE).write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


def read_meta(model_dir: Path | str) -> dict[str, Any]:
    """Parse and check `fantasma_model.json`; ModelDirError says what is wrong in words."""
    path = Path(model_dir) / META_FILE
    if not path.is_file():
        raise ModelDirError(f"{model_dir}: not a model dir ({META_FILE} is missing)")
    try:
        meta = read_object(path)
    except JsonFileError as exc:
        raise ModelDirError(str(exc)) from exc
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelDirError(
            f"{path}: format_version {meta.get('format_version')!r}, this version reads {FORMAT_VERSION}"
        )
    check_meta(meta)
    return meta


def dir_size_bytes(model_dir: Path | str) -> int:
    return sum(p.stat().st_size for p in Path(model_dir).rglob("*") if p.is_file())


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, read in 1 MiB blocks (adapters, provenance of installed models)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()

"""Reading a Hugging Face checkpoint dir without torch: config.json + single or sharded safetensors.

    ckpt = HFCheckpoint(Path("SmolLM2-135M"))
    ckpt.config["hidden_size"]; ckpt.get("model.embed_tokens.weight")   # float32 numpy

The safetensors header is parsed here (8-byte little-endian length + JSON) and tensors are memory-mapped,
because `safetensors.numpy` cannot represent bf16, the dtype most checkpoints ship in.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np

from native_host.model_format import SAMPLING_KEYS

_DTYPES: dict[str, np.dtype] = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),  # widened to float32 by shifting into the high half
    "F64": np.dtype("<f8"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}


class CheckpointError(ValueError):
    """The checkpoint dir is incomplete or malformed; the message names the file."""


def _read_header(path: Path) -> tuple[dict[str, Any], int]:
    with path.open("rb") as f:
        raw = f.read(8)
        if len(raw) != 8:
            raise CheckpointError(f"{path}: truncated safetensors file")
        (length,) = struct.unpack("<Q", raw)
        if length > 100 * 2**20:
            raise CheckpointError(f"{path}: safetensors header of {length} bytes; not a safetensors file?")
        try:
            header = json.loads(f.read(length))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CheckpointError(f"{path}: corrupt safetensors header ({exc})") from exc
    header.pop("__metadata__", None)
    return header, 8 + length


def _check_data_size(shard: Path, header: dict[str, Any], data_start: int) -> None:
    """A download cut short is reported as such (it used to surface as a reshape error on the first
    tensor past the end)."""
    try:
        needed = data_start + max((int(info["data_offsets"][1]) for info in header.values()), default=0)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise CheckpointError(f"{shard}: corrupt safetensors header (bad data_offsets: {exc})") from exc
    size = shard.stat().st_size
    if size < needed:
        raise CheckpointError(
            f"{shard}: truncated safetensors file ({size:,} of {needed:,} bytes); download it again"
        )


class HFCheckpoint:
    def __init__(self, model_dir: Path) -> None:
        self.dir = Path(model_dir)
        config_path = self.dir / "config.json"
        if not config_path.is_file():
            raise CheckpointError(f"{self.dir}: config.json is missing")
        self.config: dict[str, Any] = json.loads(config_path.read_text(encoding="utf-8"))
        self._where: dict[str, tuple[Path, dict[str, Any], int]] = {}
        for shard in self._shards():
            header, data_start = _read_header(shard)
            _check_data_size(shard, header, data_start)
            for name, info in header.items():
                self._where[name] = (shard, info, data_start)
        self._maps: dict[Path, np.memmap] = {}

    def _shards(self) -> list[Path]:
        index = self.dir / "model.safetensors.index.json"
        if index.is_file():
            weight_map = json.loads(index.read_text(encoding="utf-8")).get("weight_map", {})
            shards = sorted({self.dir / name for name in weight_map.values()})
            missing = [s.name for s in shards if not s.is_file()]
            if missing:
                raise CheckpointError(
                    f"{self.dir}: shards listed in the index are missing: {', '.join(missing)}"
                )
            return shards
        single = self.dir / "model.safetensors"
        if single.is_file():
            return [single]
        found = sorted(self.dir.glob("*.safetensors"))
        if found:
            return found
        raise CheckpointError(f"{self.dir}: no model.safetensors (or index) found")

    def names(self) -> list[str]:
        return list(self._where)

    def __contains__(self, name: str) -> bool:
        return name in self._where

    def numel(self, name: str) -> int:
        """The number of values in a tensor, from the header (nothing is read)."""
        return int(np.prod([int(d) for d in self._where[name][1]["shape"]], dtype=np.int64))

    def raw_location(self, name: str) -> tuple[Path, str, int]:
        """(shard, safetensors dtype, offset of the tensor's first byte in the shard): where an in-place
        rewrite of its bytes goes (export/lora.py merge_hf_dir)."""
        shard, info, data_start = self._where[name]
        return shard, str(info["dtype"]), data_start + int(info["data_offsets"][0])

    def get(self, name: str) -> np.ndarray:
        """The tensor as float32 (a fresh array; bf16/f16 widened)."""
        try:
            shard, info, data_start = self._where[name]
        except KeyError:
            raise CheckpointError(f"{self.dir}: tensor {name!r} not found in the checkpoint") from None
        dtype_name = info["dtype"]
        if dtype_name not in _DTYPES:
            raise CheckpointError(f"{name}: unsupported safetensors dtype {dtype_name}")
        if shard not in self._maps:
            self._maps[shard] = np.memmap(shard, dtype=np.uint8, mode="r")
        begin, end = info["data_offsets"]
        dtype, shape = _DTYPES[dtype_name], [int(d) for d in info["shape"]]
        if end - begin != dtype.itemsize * int(np.prod(shape, dtype=np.int64)):
            raise CheckpointError(
                f"{shard}: corrupt safetensors header: {name!r} is {shape} {dtype_name} but spans "
                f"{end - begin} bytes"
            )
        raw = self._maps[shard][data_start + begin : data_start + end]
        array = raw.view(dtype).reshape(shape)
        if dtype_name == "BF16":
            return (array.astype(np.uint32) << 16).view(np.float32)
        return array.astype(np.float32)

    def tokenizer_path(self) -> Path:
        path = self.dir / "tokenizer.json"
        if not path.is_file():
            raise CheckpointError(f"{self.dir}: tokenizer.json is missing (needed for the model dir)")
        return path

    def tokenizer_config(self) -> dict[str, Any]:
        path = self.dir / "tokenizer_config.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}

    def generation_config(self) -> dict[str, Any]:
        path = self.dir / "generation_config.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}

    def sampling_settings(self) -> dict[str, Any]:
        """The sampling keys generation_config.json sets (do_sample, temperature, top_p, ...), as a model
        dir records them (`generation_config`; native_host/engine/sampling.py reads them)."""
        generation = self.generation_config()
        return {key: generation[key] for key in SAMPLING_KEYS if key in generation}

    def chat_template(self) -> str | None:
        """From tokenizer_config.json, or the chat_template.jinja file newer checkpoints ship."""
        template = self.tokenizer_config().get("chat_template")
        jinja = self.dir / "chat_template.jinja"
        if template is None and jinja.is_file():
            template = jinja.read_text(encoding="utf-8")
        if isinstance(template, list):  # [{"name": "default", "template": ...}, ...]
            named = {t.get("name"): t.get("template") for t in template}
            template = named.get("default") or next(iter(named.values()), None)
        return template

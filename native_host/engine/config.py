"""Reading and checking a model dir (docs/model-format.md) before any session is built."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

from native_host.engine.errors import ModelDirError
from native_host.model_format import end_of_turn_token, template_switches

FORMAT_VERSION = 1
STATE_KINDS = ("key", "value", "conv", "recurrent")
REQUIRED_KEYS = ("format_version", "architecture", "vocab_size", "eos_token_ids", "io", "state")


@dataclass(frozen=True)
class StateSpec:
    kind: str  # key | value grow along axis 2; conv | recurrent have a fixed size
    layer: int
    input: str
    output: str
    shape: tuple[int | str, ...]
    dtype: str

    @property
    def grows(self) -> bool:
        return self.kind in ("key", "value")

    def empty_shape(self, batch: int) -> tuple[int, ...]:
        """Shape of the initial state: zero past length for caches, the full fixed size otherwise."""
        dims: list[int] = []
        for dim in self.shape:
            if dim == "batch":
                dims.append(batch)
            elif dim == "past_sequence_length":
                dims.append(0)
            elif isinstance(dim, int):
                dims.append(dim)
            else:
                raise ModelDirError(
                    f"fantasma_model.json: state {self.input} has unknown symbolic dim {dim!r}"
                )
        return tuple(dims)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelDirError(f"{path}: missing") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelDirError(f"{path}: not valid JSON ({exc}); re-export the model dir") from exc
    if not isinstance(data, dict):
        raise ModelDirError(f"{path}: expected a JSON object")
    return data


def read_config(model_dir: Path) -> tuple[dict[str, Any], list[StateSpec]]:
    """The parsed fantasma_model.json and its state list, or ModelDirError naming what is wrong."""
    if not model_dir.exists():
        raise ModelDirError(f"{model_dir}: model dir not found")
    if not model_dir.is_dir():
        raise ModelDirError(f"{model_dir}: not a directory")
    for name in ("fantasma_model.json", "model.onnx", "tokenizer.json"):
        if not (model_dir / name).is_file():
            raise ModelDirError(f"{model_dir / name}: missing; the model dir is incomplete, re-export it")
    path = model_dir / "fantasma_model.json"
    config = _read_json(path)
    missing = [key for key in REQUIRED_KEYS if key not in config]
    if missing:
        raise ModelDirError(f"{path}: missing key(s) {', '.join(missing)}")
    if config["format_version"] != FORMAT_VERSION:
        raise ModelDirError(
            f"{path}: format_version {config['format_version']!r} is not supported "
            f"(this engine reads version {FORMAT_VERSION}); re-export the model with this release"
        )
    try:
        states = [
            StateSpec(
                kind=s["kind"],
                layer=int(s["layer"]),
                input=s["input"],
                output=s["output"],
                shape=tuple(s["shape"]),
                dtype=s.get("dtype", "float32"),
            )
            for s in config["state"]
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelDirError(f"{path}: malformed 'state' entry ({exc!r})") from exc
    for spec in states:
        if spec.kind not in STATE_KINDS:
            raise ModelDirError(f"{path}: state {spec.input} has unknown kind {spec.kind!r}")
        if spec.grows and (len(spec.shape) < 3 or spec.shape[2] != "past_sequence_length"):
            raise ModelDirError(f"{path}: cache state {spec.input} must grow along axis 2")
    if not isinstance(config["eos_token_ids"], list) or not config["eos_token_ids"]:
        raise ModelDirError(f"{path}: eos_token_ids must be a non-empty list")
    if "chat_template_kwargs" not in config:  # a model dir exported before the key existed
        config["chat_template_kwargs"] = template_switches(config.get("chat_template") or "")
    if not isinstance(config["chat_template_kwargs"], dict):
        raise ModelDirError(f"{path}: chat_template_kwargs must be an object")
    return config, states


def add_end_of_turn(config: dict[str, Any], tokenizer: Tokenizer) -> dict[str, Any]:
    """A model dir written before the exporters recorded `eos_token_sources` may lack the token its chat
    template ends a turn with (a Qwen3.5 dir named only `<|endoftext|>`): it is added here, found the way
    the exporters find it (model_format.end_of_turn_token on the dir's own template and tokenizer), and recorded
    in the returned config's `eos_token_sources`. A dir with the key is returned as it is."""
    if "eos_token_sources" in config:
        return config
    ids = [int(i) for i in config["eos_token_ids"]]
    sources: dict[str, list[str]] = {
        str(i): ["fantasma_model.json (before sources were recorded)"] for i in ids
    }
    eos_text = tokenizer.id_to_token(min(ids)) or ""
    bos = config.get("bos_token_id")
    bos_text = (tokenizer.id_to_token(int(bos)) or "") if bos is not None else ""
    turn_end = end_of_turn_token(
        config.get("chat_template"), tokenizer, bos_text, eos_text, config.get("chat_template_kwargs")
    )
    if turn_end is not None:
        sources.setdefault(str(turn_end), []).append("chat_template end of turn (added at load)")
        if turn_end not in ids:
            ids.append(turn_end)
    return {**config, "eos_token_ids": ids, "eos_token_sources": sources}


def parameter_count(config: dict[str, Any]) -> int:
    """The model's parameters as fantasma_model.json records them (`parameters`, the text decoder's,
    counted by the exporter); for a model dir exported before that key, estimated from its sizes: the
    embedding plus 12·hidden² per layer (attention 4·h², MLP 8·h²). That is 10% over SmolLM2-135M's
    count and 26% under the Qwen3.5-0.8B shape's (752 M; its MLP is 3.5·h wide and Gated DeltaNet
    projections are larger), near enough for a size class."""
    recorded = config.get("parameters")
    if isinstance(recorded, int) and recorded > 0:
        return recorded
    hidden, layers = int(config.get("hidden_size") or 0), int(config.get("num_layers") or 0)
    return int(config.get("vocab_size") or 0) * hidden + 12 * hidden * hidden * layers

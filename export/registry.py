"""Which exporter handles a checkpoint, and the options every exporter takes.

An architecture module (`export/llama.py`, `export/qwen35.py`, ...) defines

    def export(source: Path, out_dir: Path, options: ExportOptions,
               progress: ProgressFn | None = None) -> dict   # the fantasma_model.json it wrote

where `source` is a local Hugging Face dir or a GGUF file. Modules are imported lazily, so a broken or
missing module only affects its own architecture.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from export.graph import Precision

# done, total, what is being done ("layers.3"); the CLI turns this into a progress bar.
ProgressFn = Callable[[int, int, str], None]


@dataclass(frozen=True)
class ExportOptions:
    precision: Precision = field(default_factory=Precision)
    source_label: str | None = None  # what fantasma_model.json names as source (a hub id); default: the path


class Exporter(Protocol):
    def __call__(
        self, source: Path, out_dir: Path, options: ExportOptions, progress: ProgressFn | None = None
    ) -> dict[str, Any]: ...


class UnsupportedCheckpoint(ValueError):
    """The source exists but no exporter handles it; the message names what was found."""


# architecture -> "module:function", imported on first use
EXPORTERS: dict[str, str] = {
    "llama": "export.llama:export",
    "qwen3_5": "export.qwen35:export",
}

# Hugging Face config.json `model_type` -> architecture
HF_MODEL_TYPES: dict[str, str] = {
    "llama": "llama",
    "qwen3_5": "qwen3_5",
    "qwen3_5_text": "qwen3_5",
}

# Hugging Face config.json `architectures[0]` -> architecture (used when model_type is unknown)
HF_CLASSES: dict[str, str] = {
    "LlamaForCausalLM": "llama",
    "Qwen3_5ForConditionalGeneration": "qwen3_5",
    "Qwen3_5ForCausalLM": "qwen3_5",
}

# GGUF `general.architecture` -> architecture
GGUF_ARCHITECTURES: dict[str, str] = {
    "llama": "llama",
}


def detect_architecture(source: Path) -> str:
    """The registry key for a local HF dir (config.json) or GGUF file (general.architecture)."""
    source = Path(source)
    if source.is_file() and source.suffix.lower() == ".gguf":
        found = gguf_architecture(source)
        if found in GGUF_ARCHITECTURES:
            return GGUF_ARCHITECTURES[found]
        raise UnsupportedCheckpoint(
            f"{source}: GGUF architecture {found!r} is not supported "
            f"(supported: {', '.join(sorted(GGUF_ARCHITECTURES))})"
        )
    if source.is_dir():
        config_path = source / "config.json"
        if not config_path.is_file():
            raise UnsupportedCheckpoint(f"{source}: no config.json; expected a Hugging Face checkpoint dir")
        try:
            config = json.loads(config_path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise UnsupportedCheckpoint(f"{config_path}: not valid JSON ({exc})") from exc
        model_type = config.get("model_type")
        if model_type in HF_MODEL_TYPES:
            return HF_MODEL_TYPES[model_type]
        for cls in config.get("architectures") or []:
            if cls in HF_CLASSES:
                return HF_CLASSES[cls]
        raise UnsupportedCheckpoint(
            f"{source}: model_type {model_type!r} / architectures {config.get('architectures')!r} "
            f"is not supported (supported model types: {', '.join(sorted(HF_MODEL_TYPES))})"
        )
    if source.is_file():
        raise UnsupportedCheckpoint(f"{source}: expected a .gguf file or a Hugging Face checkpoint dir")
    raise FileNotFoundError(f"{source}: no such file or directory")


def gguf_architecture(path: Path) -> str:
    from export.gguf_source import read_gguf_metadata

    return str(read_gguf_metadata(path).get("general.architecture", "?"))


def exporter_for(architecture: str) -> Exporter:
    try:
        target = EXPORTERS[architecture]
    except KeyError:
        raise UnsupportedCheckpoint(
            f"no exporter for architecture {architecture!r} (known: {', '.join(sorted(EXPORTERS))})"
        ) from None
    module_name, func_name = target.split(":")
    module = importlib.import_module(module_name)
    return getattr(module, func_name)

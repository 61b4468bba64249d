"""ONNX Runtime generation over a model dir (docs/model-format.md, docs/engine.md)."""

from native_host.engine.engine import Engine
from native_host.engine.errors import EngineError, ModelDirError, RuntimeUnsupportedError
from native_host.engine.options import GenerationOptions, GenerationResult

__all__ = [
    "Engine",
    "EngineError",
    "GenerationOptions",
    "GenerationResult",
    "ModelDirError",
    "RuntimeUnsupportedError",
]

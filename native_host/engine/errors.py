"""Engine errors. Messages are written for the user: they name the file or op and say what to do."""

from __future__ import annotations


class EngineError(Exception):
    """Base class for everything the engine raises on purpose."""


class ModelDirError(EngineError):
    """The model dir is missing, incomplete or corrupt."""


class RuntimeUnsupportedError(EngineError):
    """The installed onnxruntime cannot run an op the graph uses."""

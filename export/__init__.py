"""Turns checkpoints (Hugging Face dirs, GGUF files, hub ids) into Fantasma model dirs (int4 ONNX).

`native_host` is imported first for its side effect: onnxruntime and hub telemetry off before either
library loads (see native_host/__init__.py).
"""

import native_host as _native_host

_native_host.disable_telemetry()

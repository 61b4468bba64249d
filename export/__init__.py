"""Turns checkpoints (Hugging Face dirs, GGUF files, hub ids) into Fantasma model dirs (int4 ONNX)."""

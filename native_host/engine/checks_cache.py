"""The load-time checks' results, kept per model files + onnxruntime + CPU + thread count.

`Runner.open` checks the graph's ops against onnxruntime's kernel registry and runs three short
comparisons (in-place key/value, in-place conv/recurrent states, single-token rows) that depend only
on the graph, the onnxruntime build, the CPU's kernels and the thread count. Their answers are stored
in the per-user cache dir under a key made of exactly those, so the second start of the same model
skips them (~0.6 s of the default model's load on a 2-core VM). A re-exported model (new size or
mtime), another onnxruntime, CPU or thread count gets a new key and is checked again. Nothing here is
private: a few booleans per model.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from functools import lru_cache
from pathlib import Path
from typing import Any

import onnxruntime as ort

FORMAT = 1
MODEL_FILES = ("model.onnx", "model.onnx.data", "fantasma_model.json")


@lru_cache(maxsize=1)
def cpu_identity() -> str:
    """The CPU model and feature flags (what decides which MLAS kernels run)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            wanted = {}
            for line in handle:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("model name", "flags", "Features", "CPU part") and key not in wanted:
                    wanted[key] = value.strip()
                if not line.strip() and wanted:
                    break  # the first processor's block is enough
            if wanted:
                return json.dumps(wanted, sort_keys=True)
    except OSError:
        pass
    return f"{platform.machine()} {platform.processor()}"


def cache_key(model_dir: Path, threads: int) -> str:
    parts: list[Any] = [FORMAT, str(Path(model_dir).resolve()), ort.__version__, cpu_identity(), threads]
    for name in MODEL_FILES:
        try:
            stat = (Path(model_dir) / name).stat()
            parts.append((name, stat.st_size, stat.st_mtime_ns))
        except OSError:
            parts.append((name, None))
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:32]


def _path(key: str) -> Path:
    from native_host import paths

    return paths.cache_dir() / "engine-checks" / f"{key}.json"


def load(key: str) -> dict[str, bool] | None:
    """The stored check results, or None (never stored, unreadable, or from another format)."""
    if os.environ.get("FANTASMA_NO_CHECK_CACHE"):
        return None
    try:
        data = json.loads(_path(key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    results = data.get("results")
    if not isinstance(results, dict) or not all(isinstance(v, bool) for v in results.values()):
        return None
    return results


def save(key: str, results: dict[str, bool]) -> None:
    """Store the results; a cache that cannot be written only costs the checks at the next start."""
    from native_host import paths

    path = _path(key)
    try:
        paths.private_dir(path.parent)
        paths.write_private(path, json.dumps({"format": FORMAT, "results": results}).encode())
    except OSError:
        pass

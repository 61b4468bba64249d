"""Per-user locations. Nothing is written next to the code.

`FANTASMA_HOME` (tests, portable installs) replaces the platformdirs roots with one directory.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "fantasma"


def _root(kind: str) -> Path:
    home = os.environ.get("FANTASMA_HOME")
    if home:
        return Path(home) / kind
    if kind == "data":
        return Path(platformdirs.user_data_dir(APP, appauthor=False))
    if kind == "config":
        return Path(platformdirs.user_config_dir(APP, appauthor=False))
    if kind == "log":
        return Path(platformdirs.user_log_dir(APP, appauthor=False))
    if kind == "cache":
        return Path(platformdirs.user_cache_dir(APP, appauthor=False))
    raise ValueError(kind)


def data_dir() -> Path:
    return _root("data")


def models_dir() -> Path:
    return data_dir() / "models"


def default_model_dir() -> Path:
    return models_dir() / "smollm2-135m-instruct-int4"


def embedder_dir() -> Path:
    return models_dir() / "all-minilm-l6-v2"


def profile_path() -> Path:
    return data_dir() / "profile.msgpack"


def config_dir() -> Path:
    return _root("config")


def settings_path() -> Path:
    return config_dir() / "settings.json"


def log_dir() -> Path:
    return _root("log")


def cache_dir() -> Path:
    return _root("cache")

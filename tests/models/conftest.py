"""Model-install fixtures: the tiny checkpoints (tests/models/checkpoints.py), and a home where the real
`fantasma setup --model DIR` installed both once per session, copied into each test's own home."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.models.checkpoints import LLAMA_NAME, QWEN_NAME, cached_qwen35, fantasma, save_tiny_chat_llama


@pytest.fixture(scope="session")
def qwen_checkpoint(request) -> Path:
    """The tiny random Qwen3.5 (real tokenizer, 248,320 tokens; bf16, VLM layout). Never modify it."""
    return cached_qwen35(request.config.cache)


@pytest.fixture(scope="session")
def llama_checkpoint(tmp_path_factory) -> Path:
    return save_tiny_chat_llama(tmp_path_factory.mktemp("tiny_llama_ckpt"))


@dataclass(frozen=True)
class Installed:
    home: Path  # a FANTASMA_HOME holding both models (never change it: copy from it)
    outputs: dict[str, subprocess.CompletedProcess]  # what `fantasma setup --model` printed, by name


@pytest.fixture(scope="session")
def installed(tmp_path_factory, qwen_checkpoint, llama_checkpoint) -> Installed:
    home = tmp_path_factory.mktemp("installed_home")
    outputs = {
        QWEN_NAME: fantasma(home, "setup", "--model", str(qwen_checkpoint), "--name", QWEN_NAME),
        LLAMA_NAME: fantasma(home, "setup", "--model", str(llama_checkpoint), "--name", LLAMA_NAME),
    }
    for name, done in outputs.items():
        assert done.returncode == 0, (name, done.stdout, done.stderr)
    return Installed(home, outputs)


@pytest.fixture
def models_home(isolated_home, installed, default_model_dir, embedder_model_dir) -> Path:
    """This test's FANTASMA_HOME with the embedded default and the embedder (symlinks, as
    tests/host/conftest.py places them) and copies of both installed models."""
    from native_host import paths

    models = paths.models_dir()
    models.mkdir(parents=True)
    paths.default_model_dir().symlink_to(default_model_dir, target_is_directory=True)
    paths.embedder_dir().symlink_to(embedder_model_dir, target_is_directory=True)
    source = installed.home / "data" / models.relative_to(paths.data_dir())
    for name in (QWEN_NAME, LLAMA_NAME):
        shutil.copytree(source / name, models / name)
    return isolated_home

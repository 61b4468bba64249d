"""The embedded models a system package prepared (paths.system_models_dir): used when the user has no copy
of their own, never in place of one."""

from __future__ import annotations

import sys

from native_host import paths


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

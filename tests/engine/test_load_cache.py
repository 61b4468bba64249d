"""Engine.load keeps the load-time checks' results per model files + onnxruntime + CPU + threads.

Each test has its own FANTASMA_HOME (tests/conftest.py), so the cache starts empty.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import native_host.engine.runner as runner_module
from native_host import paths
from native_host.engine import Engine, GenerationOptions
from native_host.engine.runner import CHECKS


def linked_copy(model_dir: Path, into: Path) -> Path:
    """The model dir with its big files hard-linked and fantasma_model.json copied (its mtime is ours)."""
    into.mkdir()
    for path in model_dir.iterdir():
        if path.name == "fantasma_model.json":
            shutil.copy2(path, into / path.name)
        else:
            os.link(path, into / path.name)
    return into


def flags(engine: Engine) -> dict[str, bool]:
    return {name: getattr(engine.runner, name) for name in CHECKS}


def test_second_load_reads_the_checks_and_skips_the_op_check(default_model_dir, monkeypatch):
    first = Engine.load(default_model_dir)
    assert first.load_timings["checks_cached"] is False
    assert list((paths.cache_dir() / "engine-checks").glob("*.json"))
    assert flags(first)["shared_kv"] and flags(first)["pad_single_tokens"]  # the shipped model's answers

    def no_op_check(_path):
        raise AssertionError("the op check ran although its result was cached")

    monkeypatch.setattr(runner_module, "check_ops", no_op_check)
    second = Engine.load(default_model_dir)
    assert second.load_timings["checks_cached"] is True
    assert flags(second) == flags(first)
    assert {"session_s", "checks_s", "tokenizer_s", "total_s"} <= second.load_timings.keys()
    prompt = first.encode("The lighthouse keeper")
    options = GenerationOptions(max_new_tokens=12, speculative=False, reuse_prefix=False)
    assert second.generate(prompt, options).token_ids == first.generate(prompt, options).token_ids


def test_changed_model_files_other_threads_or_a_bad_cache_file_check_again(default_model_dir, tmp_path):
    model_dir = linked_copy(default_model_dir, tmp_path / "model")
    assert Engine.load(model_dir, threads=1).load_timings["checks_cached"] is False
    assert Engine.load(model_dir, threads=1).load_timings["checks_cached"] is True
    assert Engine.load(model_dir, threads=2).load_timings["checks_cached"] is False

    config = model_dir / "fantasma_model.json"
    os.utime(config, ns=(config.stat().st_atime_ns, config.stat().st_mtime_ns + 10**9))  # "re-exported"
    assert Engine.load(model_dir, threads=1).load_timings["checks_cached"] is False

    for stored in (paths.cache_dir() / "engine-checks").glob("*.json"):
        stored.write_text('{"format": 1, "results": {"shared_kv": "yes"}}')
    reloaded = Engine.load(model_dir, threads=1)
    assert reloaded.load_timings["checks_cached"] is False
    assert reloaded.runner.shared_kv is True


def test_no_check_cache_switch(default_model_dir, monkeypatch):
    Engine.load(default_model_dir)
    monkeypatch.setenv("FANTASMA_NO_CHECK_CACHE", "1")
    assert Engine.load(default_model_dir).load_timings["checks_cached"] is False


def test_prepare_stores_the_checks_so_the_first_load_skips_them(default_model_dir, tmp_path):
    model_dir = linked_copy(default_model_dir, tmp_path / "model")
    timings = Engine.prepare(model_dir)
    assert timings["checks_cached"] is False  # prepare ran them
    first = Engine.load(model_dir)
    assert first.load_timings["checks_cached"] is True
    assert flags(first)["shared_kv"] and flags(first)["pad_single_tokens"]


def test_setup_prepares_the_model_it_put_in_place_and_survives_a_failing_prepare(default_model_dir, tmp_path):
    from native_host.models.embedded import SetupStep, run_step

    target = tmp_path / "models" / "chat"

    def build(staging: Path) -> None:
        linked_copy(default_model_dir, staging)

    def prepare(path: Path) -> None:
        Engine.prepare(path)

    def ready(path: Path) -> bool:
        return (path / "model.onnx").is_file()

    run_step(SetupStep("chat", lambda: target, build, ready, prepare), force=False)
    assert Engine.load(target).load_timings["checks_cached"] is True  # keyed by the final path

    def broken(path: Path) -> None:
        raise RuntimeError("prepare failed")

    assert "exported to" in run_step(SetupStep("chat", lambda: target, build, ready, broken), force=True)
    assert (target / "model.onnx").is_file()

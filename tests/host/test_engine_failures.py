"""An engine failure is one line, never a traceback: `fantasma generate` and the host (stderr goes to the
browser's log) given a model dir that loads but fails inside onnxruntime (a head_dim GroupQueryAttention
refuses, exported past the exporter's own check)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from native_host.host.client import HostProcess, host_env
from tests.host.test_host_llm import LLM_TEXTS


@pytest.fixture(scope="module")
def failing_model_dir(tmp_path_factory) -> Path:
    from export.graph import Precision
    from export.llama import LlamaConfig, export
    from export.registry import ExportOptions
    from tests.checkpoints import save_tiny_llama

    root = tmp_path_factory.mktemp("failing_model")
    checkpoint = save_tiny_llama(root / "ckpt", hidden_size=96, num_attention_heads=4, num_key_value_heads=2)
    check = LlamaConfig.__post_init__
    LlamaConfig.__post_init__ = lambda self: None  # type: ignore[method-assign]  # head_dim 24 gets through
    try:
        export(checkpoint, root / "model", ExportOptions(Precision("fp32")))
    finally:
        LlamaConfig.__post_init__ = check  # type: ignore[method-assign]
    return root / "model"


def ours(stderr: str) -> list[str]:
    """stderr lines except onnxruntime's own C++ log lines."""
    return [line for line in stderr.splitlines() if line.strip() and "[E:onnxruntime" not in line]


def test_generate_reports_an_engine_failure_in_one_line(failing_model_dir):
    env = {k: v for k, v in os.environ.items() if k != "FANTASMA_DEBUG"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "native_host.cli",
            "generate",
            "--model",
            str(failing_model_dir),
            "--token-ids",
            "5,6,7",
            "--max-new-tokens",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = ours(proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("fantasma generate: the model in"), proc.stderr


@pytest.mark.slow
def test_host_reports_an_engine_failure_without_a_traceback(
    failing_model_dir, isolated_home, embedder_model_dir
):
    from native_host import paths

    paths.models_dir().mkdir(parents=True)
    paths.default_model_dir().symlink_to(failing_model_dir, target_is_directory=True)
    paths.embedder_dir().symlink_to(embedder_model_dir, target_is_directory=True)
    with HostProcess(env=host_env()) as host:
        reply = host.request(
            "rewrite", {"text": LLM_TEXTS[0], "options": {"strength": "strong"}}, timeout=300
        )
        # the pipeline falls back to the rules and says why, or the request fails; either way in one line
        if reply["type"] == "result":
            assert reply["result"]["path"] == "neutralizer" and reply["result"]["reason"], reply
        else:
            assert "\n" not in reply["error"]["message"], reply
        host.assert_alive()
        assert host.close() == 0
    stderr = host.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr


BROKEN_PIPELINE = """
import native_host.rewrite


def _broken(*args, **kwargs):
    raise RuntimeError("pipeline exploded\\nsecond line")


native_host.rewrite.rewrite = _broken
"""


def test_host_logs_a_failure_as_one_line_on_stderr_and_the_traceback_in_host_log(tmp_path, isolated_home):
    """A bug inside the pipeline (here: rewrite() raises) is logged with log.exception: stderr (the
    browser's log) gets one line, host.log the traceback."""
    from native_host import paths

    (tmp_path / "sitecustomize.py").write_text(BROKEN_PIPELINE)
    with HostProcess(env=host_env(PYTHONPATH=str(tmp_path))) as host:
        reply = host.request(
            "rewrite", {"text": LLM_TEXTS[0], "options": {"strength": "strong"}}, timeout=120
        )
        assert reply["type"] == "error" and reply["error"]["name"] == "internal_error", reply
        host.assert_alive()
        assert host.close() == 0
    stderr = host.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr
    assert "RuntimeError: pipeline exploded; traceback in host.log)" in stderr, stderr
    assert "Traceback" in (paths.log_dir() / "host.log").read_text()

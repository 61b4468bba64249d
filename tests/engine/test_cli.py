"""`fantasma generate` as a user runs it (a real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys

FANTASMA = [sys.executable, "-m", "native_host.cli"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*FANTASMA, "generate", *args], capture_output=True, text=True, timeout=120)


def test_token_ids_json(default_model_dir, engine):
    ids = engine.encode("The capital of France is")
    done = run(
        "--model",
        str(default_model_dir),
        "--token-ids",
        ",".join(map(str, ids)),
        "--greedy",
        "--max-new-tokens",
        "6",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["prompt_ids"] == ids
    assert 1 <= len(out["token_ids"]) <= 6
    assert out["finish_reason"] == ("eos" if out["token_ids"][-1] in engine.eos_token_ids else "length")
    assert out["text"] == engine.decode(out["token_ids"]) != ""


def test_chat_prompt_streams_text_and_ids(default_model_dir):
    done = run(
        "--model",
        str(default_model_dir),
        "--prompt",
        "What is the capital of France?",
        "--greedy",
        "--max-new-tokens",
        "24",
    )
    assert done.returncode == 0, done.stderr
    assert "Paris" in done.stdout
    assert "token_ids: " in done.stdout
    assert "finish: eos" in done.stderr


def test_missing_default_model_says_run_setup():
    done = run("--prompt", "hi")
    assert done.returncode == 2
    assert "fantasma setup" in done.stderr
    assert "Traceback" not in done.stderr


def test_bad_input_is_a_clear_error(default_model_dir, tmp_path):
    done = run("--model", str(default_model_dir), "--token-ids", "1,x")
    assert done.returncode == 2 and "comma-separated integers" in done.stderr
    done = run("--model", str(tmp_path / "nope"), "--prompt", "hi")
    assert done.returncode == 1 and "model dir not found" in done.stderr
    assert "Traceback" not in done.stderr

"""Training windows never come from eval test chunks; candidate generation is judged by the pipeline's
guards and resumes after a kill without repeating or losing a window."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from native_host.eval import corpora
from train.data import DEFAULT_CORPORA, training_windows
from train.generate import read_records

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def windows():
    return training_windows(DEFAULT_CORPORA, 60, seed=0)


def test_no_window_from_an_eval_test_chunk(windows):
    """For the README's eval settings and the smaller slices, no training window lies in a test chunk."""
    manifest = corpora.load_manifest()
    for name in ("federalist", "brontes", "sotu"):
        for per_author in (2, 6, 10):
            split = corpora.split_corpus(corpora.find_corpus(name, manifest), 3, per_author, 30)
            for chunk in split.test:
                assert not [w.text for w in windows if w.text in chunk.text], (name, per_author)
    assert len({w.id for w in windows}) == len(windows) == 60
    assert len({w.corpus for w in windows}) == len(DEFAULT_CORPORA)  # drawn over every corpus


def test_generation_resumes_after_a_kill(windows, default_int4_dir, embedder_model_dir, tmp_path):
    out = tmp_path / "candidates.jsonl"
    few = windows[:3]
    script = (
        "import json, pathlib, sys\n"
        "from train.data import TrainingWindow\n"
        "from train.generate import GenerateConfig, generate\n"
        "ws = [TrainingWindow(**w) for w in json.loads(sys.argv[1])]\n"
        "generate(ws, pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), GenerateConfig(candidates=2),\n"
        "         embedder_dir=pathlib.Path(sys.argv[4]), show_progress=False)\n"
    )
    args = [json.dumps([w.to_json() for w in few]), str(default_int4_dir), str(out), str(embedder_model_dir)]
    process = subprocess.Popen([sys.executable, "-c", script, *args], stderr=subprocess.PIPE)
    deadline = time.monotonic() + 600
    while not (out.exists() and out.read_bytes().count(b"\n") >= 1):
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        assert time.monotonic() < deadline, "no window judged in 10 minutes"
        time.sleep(0.2)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    first = read_records(out)
    assert 1 <= len(first) < 3
    with out.open("a") as f:  # as if the kill had landed in the middle of a write
        f.write('{"id": "half-writ')

    from train.generate import GenerateConfig, generate

    summary = generate(
        few,
        default_int4_dir,
        out,
        GenerateConfig(candidates=2),
        embedder_dir=embedder_model_dir,
        show_progress=False,
    )
    records = read_records(out)
    assert [r["id"] for r in records] == [w.id for w in few]  # each window once, in order
    assert records[: len(first)] == first  # the windows judged before the kill were kept as they were
    assert summary["windows"] == 3 and summary["candidates"] == 6
    for record in records:
        assert record["prompt_ids"] and len(record["candidates"]) == 2
        for candidate in record["candidates"]:
            assert candidate["guard"] == "" or candidate.get("detail") or candidate["guard"] == "duplicate"
        if record["best"] is not None:
            assert record["target_ids"][-1] == 2  # ends with <|im_end|>, as the chat template renders it

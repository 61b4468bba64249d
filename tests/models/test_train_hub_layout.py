"""`fantasma train --model DIR` on a checkpoint laid out as the hub ships Qwen/Qwen3.5-0.8B
(tests/models/checkpoints.py save_tiny_qwen35: the VLM layout, one indexed shard, no
generation_config.json): the recipe exports it with `<|im_end|>` among its eos ids and generates every
window's candidates. Random weights write nothing a guard accepts, so the run stops with "too little
data" after generating, as the recipe promises (tests/train/test_train_model.py trains from there on the
text-only layout)."""

from __future__ import annotations

import json

import pytest

from tests.models.checkpoints import ENDOFTEXT, IM_END, fantasma

pytestmark = pytest.mark.slow


def test_train_model_runs_on_the_hub_layout(qwen_checkpoint, embedder_model_dir, isolated_home, tmp_path):
    from native_host import paths

    paths.embedder_dir().parent.mkdir(parents=True, exist_ok=True)
    paths.embedder_dir().symlink_to(embedder_model_dir, target_is_directory=True)
    run = tmp_path / "run"
    done = fantasma(
        isolated_home,
        "train", "--model", str(qwen_checkpoint), "--out", str(run), "--windows", "2", "--rounds", "1",
        "--candidates", "2", "--selection", "pipeline", "--min-examples", "1", "--threads", "2",
        timeout=900,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "kept 0 examples" in done.stderr
    meta = json.loads((run / "round_0" / "model" / "fantasma_model.json").read_text())
    assert meta["eos_token_ids"] == [ENDOFTEXT, IM_END]
    assert "chat_template end of turn" in meta["eos_token_sources"][str(IM_END)]
    records = [json.loads(line) for line in (run / "round_1" / "candidates.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(len(r["candidates"]) == 2 for r in records)

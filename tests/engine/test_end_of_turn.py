"""Generation stops where the turn ends. A scripted tiny Llama (tests/engine/scripted.py) answers
"hello world", then writes `<|im_end|>` and runs on into a new turn; its config.json names only `</s>`
as eos (so does the generation_config.json save_pretrained writes) and its tokenizer_config.json only
the chat template, as Qwen3.5's config names only
`<|endoftext|>`. The exporter finds `<|im_end|>` by rendering the template, so `fantasma generate` and
the rewrite's windows end there, with reason eos (not the "\\n" stop string, not the length limit)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from native_host.engine import Engine
from native_host.rewrite import llm_windows
from native_host.rewrite.options import RewriteOptions
from native_host.rewrite.windows import Window
from tests.checkpoints import REPO
from tests.engine.recording import Recording
from tests.engine.scripted import export_scripted

# After the generation prompt (which ends with </think>): the answer, the end of its turn, and what a
# model that is not stopped there writes next (a new turn), until </s>.
SCRIPT = {
    "</think>": "hello",
    "hello": "world",
    "world": "<|im_end|>",
    "<|im_end|>": "<|im_start|>",
    "<|im_start|>": "user",
    "user": "again",
}


@pytest.fixture(scope="module")
def scripted_dir(tmp_path_factory) -> Path:
    return export_scripted(tmp_path_factory.mktemp("end_of_turn"), SCRIPT, context=512)


def test_the_model_dir_names_the_templates_end_of_turn(scripted_dir):
    meta = json.loads((scripted_dir / "fantasma_model.json").read_text())
    engine = Engine.load(scripted_dir)
    im_end = engine.tokenizer.token_to_id("<|im_end|>")
    assert meta["eos_token_sources"] == {
        str(engine.tokenizer.token_to_id("</s>")): ["config.json", "generation_config.json"],
        str(im_end): ["chat_template end of turn"],
    }


def test_fantasma_generate_stops_at_the_end_of_turn(scripted_dir):
    done = subprocess.run(
        [sys.executable, "-m", "native_host.cli", "generate", "--model", str(scripted_dir), "--prompt", "Hi",
         "--greedy", "--max-new-tokens", "20", "--json"],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    engine = Engine.load(scripted_dir)
    assert result["finish_reason"] == "eos"
    assert result["token_ids"] == [engine.tokenizer.token_to_id(w) for w in ("hello", "world", "<|im_end|>")]
    assert result["text"] == "hello world"


def test_the_rewrites_windows_finish_with_eos(scripted_dir, embedder_model_dir):
    from native_host.engine.embedder import Embedder

    engine = Recording(Engine.load(scripted_dir))
    embedder = Embedder(embedder_model_dir)
    options = RewriteOptions(strength="medium", candidates=3, use_profile=False)
    texts = ["Honestly the meeting on Friday was a total waste of time.", "Nobody came on time, again."]
    for k, text in enumerate(texts):
        window = Window(first=k, last=k, text=text)
        llm_windows.rewrite_window(
            k, window, engine, embedder, options, None, {"generate_s": 0, "guards_s": 0}
        )
    assert len(engine.results) == 3 * len(texts)
    assert {r.finish_reason for r in engine.results} == {"eos"}
    assert {r.text for r in engine.results} == {"hello world"}

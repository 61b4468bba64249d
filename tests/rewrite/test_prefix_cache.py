"""The rewrite's cached prefix is a true token prefix of every window's prompt under the model's own
template (llm_windows.shared_prefix_ids: the common tokens of two real window prompts): after it is
warmed, every window prefills only its own part, and the candidates' tokens are the same as without it.

On three templates: Qwen3.5's (tests/models/checkpoints.py save_tiny_qwen35, laid out as the hub ships
Qwen/Qwen3.5-0.8B: it writes `<think>\\n\\n</think>\\n\\n` into an assistant turn only after the last
user message, so the instruction and example rendered apart are not a prefix of a real prompt), SmolLM2's
ChatML with its default system turn (tests/checkpoints.py save_tiny_smollm2_instruct) and Llama 3.2's
header/`<|eot_id|>` form on the same tiny Llama."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from export.graph import Precision
from export.registry import ExportOptions
from native_host.engine import Engine
from native_host.models.size_class import model_class
from native_host.rewrite import llm_windows, prompt
from native_host.rewrite.options import RewriteOptions
from native_host.rewrite.windows import Window
from tests.checkpoints import LLAMA3_TEMPLATE, save_tiny_smollm2_instruct
from tests.engine.recording import Recording
from tests.models.checkpoints import cached_qwen35

FP32 = ExportOptions(Precision("fp32"))
TEXTS = (
    "Honestly the meeting on Friday was a total waste of time!!!",
    "Nobody even bothered to show up on time, lol.",
    "I reckon the report from Anna was rubbish, tbh.",
)


@pytest.fixture(scope="module", params=["qwen3_5", "smollm2", "llama3"])
def model_dir(request, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp(f"prefix_{request.param}")
    if request.param == "qwen3_5":
        from export.qwen35 import export

        export(cached_qwen35(request.config.cache), root / "model", FP32)
        return root / "model"
    from export.llama import export

    export(save_tiny_smollm2_instruct(root / "ckpt"), root / "model", FP32)
    if request.param == "llama3":
        meta = json.loads((root / "model" / "fantasma_model.json").read_text())
        meta["chat_template"] = LLAMA3_TEMPLATE
        (root / "model" / "fantasma_model.json").write_text(json.dumps(meta))
    return root / "model"


@pytest.fixture(scope="module")
def embedder(embedder_model_dir):
    from native_host.engine.embedder import Embedder

    return Embedder(embedder_model_dir)


def rewrite_windows(engine: Recording, embedder) -> Recording:
    options = RewriteOptions(strength="medium", candidates=3, use_profile=False, max_new_tokens=24)
    for k, text in enumerate(TEXTS):
        window = Window(first=k, last=k, text=text)
        timings = {"generate_s": 0.0, "guards_s": 0.0}
        llm_windows.rewrite_window(k, window, engine, embedder, options, None, timings)
    return engine


def test_every_window_prefills_only_its_own_part(model_dir, embedder):
    engine = Engine.load(model_dir)
    restructure = model_class(engine).restructures
    key = llm_windows.shared_prefix_ids(engine, restructure)
    assert engine.decode(key).endswith("Remove:")  # the instruction, the example, the request's fixed start
    warm = rewrite_windows(Recording(engine), embedder)
    assert len(warm.calls) == 3 * len(TEXTS)
    for prompt_ids, result in warm.calls:
        assert prompt_ids[: len(key)] == key
        assert result.timings["reused_prefix_tokens"] == len(key)
        assert result.prompt_tokens - result.timings["reused_prefix_tokens"] == len(prompt_ids) - len(key)
    # the tokens are the cache's only difference: the same candidates from a cold engine
    cold = rewrite_windows(Recording(Engine.load(model_dir), cache=False), embedder)
    assert all(result.timings["reused_prefix_tokens"] == 0 for result in cold.results)
    assert [r.token_ids for r in cold.results] == [r.token_ids for r in warm.results]
    assert [r.finish_reason for r in cold.results] == [r.finish_reason for r in warm.results]


def test_the_fixed_messages_rendered_apart_are_no_prefix_under_qwen35(model_dir):
    """Why the prefix comes from whole prompts: Qwen3.5's template renders the example answer with an
    empty think block when it is the last turn, without one inside a real prompt. ChatML (SmolLM2) and
    Llama 3 render a turn the same whatever follows, so there the fixed messages rendered apart start the
    real prompt's text. Under all three the shared prefix runs past them, through the request's fixed start, and is
    a prefix of a prompt unlike the probes it is taken from (another text, another marker, a kept span)."""
    engine = Engine.load(model_dir)
    apart_text = engine.render_chat(prompt.prefix_messages(False), add_generation_prompt=False)
    real_text = engine.render_chat(prompt.build_messages(TEXTS[0], ["slang"], ["Friday"]))
    apart, real = engine.encode(apart_text), engine.encode(real_text)
    shared = llm_windows.shared_prefix_ids(engine, False)
    assert real[: len(shared)] == shared
    assert engine.decode(shared).endswith("Remove:")  # the request's fixed start, not only the messages
    example_answer = prompt.prefix_messages(False)[-1]["content"]
    assert example_answer in engine.decode(shared)
    if engine.config["architecture"] == "qwen3_5":
        assert real[: len(apart)] != apart
        example_answer_apart = "</think>\n\n" + example_answer
        assert example_answer_apart in apart_text and example_answer_apart not in real_text
    else:  # the text apart starts the real prompt (its tokens may not: Llama 3's `<|eot_id|>` is plain
        # text to SmolLM2's tokenizer, merged with what follows it)
        assert real_text.startswith(apart_text) and len(shared) > len(apart)

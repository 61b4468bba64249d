"""Where a turn ends (export/eos.py, native_host/model_format.end_of_turn_token): a model dir's eos ids are
the union of what the checkpoint declares and the token its chat template writes after an answer, each
with where it came from; a model dir written before that gets the template's token at load.

On checkpoints laid out as the hub ships them (tests/models/checkpoints.py save_tiny_qwen35: no
generation_config.json; tests/checkpoints.py save_tiny_smollm2_instruct) and the bundled SmolLM2 GGUF."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

from export.graph import Precision
from export.registry import ExportOptions
from native_host.engine import Engine
from native_host.model_format import end_of_turn_token
from tests.checkpoints import LLAMA3_TEMPLATE, save_tiny_smollm2_instruct
from tests.models.checkpoints import ENDOFTEXT, IM_END, QWEN35_CHAT_TEMPLATE, cached_qwen35

FP32 = ExportOptions(Precision("fp32"))


@pytest.fixture(scope="module")
def qwen_model(request, tmp_path_factory) -> Path:
    from export.qwen35 import export

    out = tmp_path_factory.mktemp("eos_qwen") / "model"
    export(cached_qwen35(request.config.cache), out, FP32)
    return out


def word_tokenizer(*added: str) -> Tokenizer:
    words = ["<unk>", "Probe", "question", "answer", "user", "assistant", "system", *added]
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.add_special_tokens([AddedToken(t, special=True) for t in added])
    return tokenizer


def test_the_hub_layout_of_qwen35_ends_turns_at_im_end(qwen_model):
    """Qwen/Qwen3.5-0.8B's config.json names <|endoftext|> only and the repo has no
    generation_config.json: <|im_end|> comes from tokenizer_config.json and the template."""
    meta = json.loads((qwen_model / "fantasma_model.json").read_text())
    assert meta["eos_token_ids"] == [ENDOFTEXT, IM_END]
    assert meta["eos_token_sources"] == {
        str(ENDOFTEXT): ["config.json text_config"],
        str(IM_END): ["tokenizer_config.json eos_token", "chat_template end of turn"],
    }
    assert meta["chat_template"] == QWEN35_CHAT_TEMPLATE  # the checkpoint's own, not the fallback
    assert meta["generation_config"] == {}  # none shipped


def test_a_rendered_answer_ends_with_the_end_of_turn_token(qwen_model):
    """What `fantasma train --model` trains on: the answer's tokens up to the token that ends the turn."""
    from train.generate import completion_ids, window_messages

    engine = Engine.load(qwen_model)
    messages = window_messages("The meeting on Friday was a total waste of time, honestly.", engine)
    prompt = engine.encode(engine.render_chat(messages))
    target = completion_ids(engine, messages, prompt, "The meeting was not useful.")
    assert target[-1] == IM_END
    assert engine.decode(target) == "The meeting was not useful."


def test_the_smollm2_instruct_layout_names_its_eos_in_every_file(tmp_path):
    from export.llama import export

    meta = export(save_tiny_smollm2_instruct(tmp_path / "ckpt"), tmp_path / "model", FP32)
    assert meta["eos_token_ids"] == [2]
    assert meta["eos_token_sources"] == {
        "2": [
            "config.json",
            "generation_config.json",
            "tokenizer_config.json eos_token",
            "chat_template end of turn",
        ]
    }
    assert meta["generation_config"] == {}  # its generation_config.json carries token ids only


def test_a_gguf_gets_the_templates_end_of_turn_too():
    from export.gguf_source import open_gguf, special_ids_from_gguf, tokenizer_from_gguf
    from native_host.assets import smollm2_gguf

    metadata, _ = open_gguf(smollm2_gguf())
    special = special_ids_from_gguf(metadata, tokenizer_from_gguf(metadata))
    assert special["eos_token_ids"] == [2]
    assert special["eos_token_sources"] == {
        "2": ["GGUF tokenizer.ggml.eos_token_id", "chat_template end of turn"]
    }


def test_the_end_of_turn_is_found_by_rendering_not_by_name():
    """A token no list of known names holds, written by the template after an answer, is found; text
    after the answer, no token at all, or a template that cannot render the probe give None."""
    custom = "{% for m in messages %}{{ m['role'] + ' ' + m['content'] + ' <|turn_done|>' }}{% endfor %}"
    assert end_of_turn_token(custom, word_tokenizer("<|turn_done|>")) == 7
    tokenizer = word_tokenizer("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>")
    assert end_of_turn_token(LLAMA3_TEMPLATE, tokenizer) == tokenizer.token_to_id("<|eot_id|>")
    no_token = "{% for m in messages %}{{ m['content'] + '\\n' }}{% endfor %}"
    assert end_of_turn_token(no_token, word_tokenizer("<|turn_done|>")) is None
    text_first = "{% for m in messages %}{{ m['content'] + ' question <|turn_done|>' }}{% endfor %}"
    assert end_of_turn_token(text_first, word_tokenizer("<|turn_done|>")) is None
    refuses = "{{ raise_exception('only one message') }}"
    assert end_of_turn_token(refuses, word_tokenizer()) is None
    assert end_of_turn_token(None, word_tokenizer()) is None


def test_a_model_dir_made_before_gets_the_end_of_turn_at_load(qwen_model, tmp_path):
    """A dir exported when only config.json and generation_config.json were read: eos [248044], no
    sources. At load the engine adds the template's end of turn and says where it came from."""
    old = tmp_path / "old"
    shutil.copytree(qwen_model, old)
    meta = json.loads((old / "fantasma_model.json").read_text())
    meta["eos_token_ids"] = [ENDOFTEXT]
    del meta["eos_token_sources"]
    (old / "fantasma_model.json").write_text(json.dumps(meta))
    engine = Engine.load(old)
    assert engine.eos_token_ids == {ENDOFTEXT, IM_END}
    assert engine.config["eos_token_sources"][str(IM_END)] == ["chat_template end of turn (added at load)"]

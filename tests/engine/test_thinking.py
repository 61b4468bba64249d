"""A model's own chat-template switches and its thinking: the template is rendered with thinking off
where it has the switch, and a <think>…</think> block (closed, unclosed, opened by the prompt) never
reaches a result's text or a streamed piece. On a scripted tiny Llama (tests/engine/scripted.py): the
real exporter, the real engine, tokens known in advance."""

from __future__ import annotations

import json

import pytest

from native_host.engine import Engine, GenerationOptions
from native_host.engine.text import strip_thinking
from tests.engine.scripted import export_scripted

# ponder → <think> secret musing </think> hello world </s>; muse → done </s> (inside a block: a thought
# that never ends); again → </think> hello world </s> (a stray closing tag)
SCRIPT = {
    "ponder": "<think>",
    "<think>": "secret",
    "secret": "musing",
    "musing": "</think>",
    "</think>": "hello",
    "hello": "world",
    "muse": "done",
    "again": "</think>",
}


@pytest.fixture(scope="module", params=[True, False], ids=["special-tags", "plain-tags"])
def scripted(request, tmp_path_factory) -> Engine:
    return Engine.load(
        export_scripted(tmp_path_factory.mktemp("scripted"), SCRIPT, think_special=request.param)
    )


def ids(engine: Engine, words: str) -> list[int]:
    return [engine.tokenizer.token_to_id(w) for w in words.split()]


def run(engine: Engine, prompt: list[int], **options) -> tuple[str, list[str], list[int]]:
    pieces: list[str] = []
    result = engine.generate(
        prompt,
        GenerationOptions(**{"max_new_tokens": 12, **options}),
        on_token=lambda _t, p: pieces.append(p),
    )
    assert "".join(pieces) == result.text
    return result.text, pieces, result.token_ids


def test_template_switches_come_from_the_model_dir(scripted):
    """Thinking off where the template has the switch; written by the exporter, derived for old dirs."""
    meta = json.loads((scripted.model_dir / "fantasma_model.json").read_text())
    assert meta["chat_template_kwargs"] == {"enable_thinking": False}
    assert scripted.chat_switches == {"enable_thinking": False}
    rendered = scripted.render_chat([{"role": "user", "content": "Hi"}])
    assert rendered.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert scripted.thinks
    # the two fixtures really differ: a special tag vanishes in decoding, a plain one is text
    tag = scripted.tokenizer.token_to_id("<think>")
    special = scripted.tokenizer.get_added_tokens_decoder()[tag].special
    assert scripted.decode([tag]) == ("" if special else "<think>")


def test_a_model_dir_without_the_key_gets_it_from_its_template(scripted, tmp_path):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(scripted.model_dir, old)
    meta = json.loads((old / "fantasma_model.json").read_text())
    del meta["chat_template_kwargs"], meta["parameters"]
    (old / "fantasma_model.json").write_text(json.dumps(meta))
    engine = Engine.load(old)
    assert engine.chat_switches == {"enable_thinking": False}
    assert engine.render_chat([{"role": "user", "content": "Hi"}]).endswith("</think>\n\n")
    assert engine.parameters > 0  # estimated from the sizes


def test_parameters_are_the_checkpoints(scripted):
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(
        scripted.model_dir.parent / "checkpoint", dtype=torch.float32
    )
    assert scripted.parameters == sum(p.numel() for p in model.parameters())


def test_the_scripted_model_runs_its_script(scripted):
    text, _, tokens = run(scripted, ids(scripted, "<|im_start|> assistant hello"))
    assert text == "world" and tokens == ids(scripted, "world </s>")


@pytest.mark.parametrize("speculative", [True, False])
def test_a_closed_block_is_never_shown(scripted, speculative):
    prompt = ids(scripted, "<|im_start|> assistant ponder")
    text, pieces, tokens = run(scripted, prompt, speculative=speculative)
    assert tokens == ids(scripted, "<think> secret musing </think> hello world </s>")
    assert text == "hello world"
    assert not any("secret" in p or "musing" in p or "think" in p for p in pieces)


def test_a_block_the_prompt_opened_is_thought(scripted):
    """The thinking template's own generation prompt ends in an open <think>: all up to </think> is thought."""
    prompt = ids(scripted, "<|im_start|> assistant <think>")
    text, _, tokens = run(scripted, prompt)
    assert tokens == ids(scripted, "secret musing </think> hello world </s>")
    assert text == "hello world"
    # as rendered with thinking switched on in the template
    scripted_on = scripted.render_chat([{"role": "user", "content": "Hi"}])
    assert scripted_on.endswith("</think>\n\n")  # off by default
    on = scripted._chat_template.render([{"role": "user", "content": "Hi"}], True, {"enable_thinking": True})  # type: ignore[union-attr]
    assert on.endswith("<think>\n")
    assert run(scripted, scripted.encode(on))[0] == "hello world"


def test_an_unclosed_block_is_never_shown(scripted):
    # eos inside the block the prompt opened
    text, pieces, tokens = run(scripted, ids(scripted, "<|im_start|> assistant <think> muse"))
    assert tokens == ids(scripted, "done </s>") and text == "" and pieces == ["", ""]
    # the length limit inside a block the model opened
    text, pieces, tokens = run(scripted, ids(scripted, "assistant ponder"), max_new_tokens=3)
    assert tokens == ids(scripted, "<think> secret musing") and text == "" and pieces == ["", "", ""]


def test_a_stray_closing_tag_is_dropped(scripted):
    text, _, tokens = run(scripted, ids(scripted, "<|im_start|> assistant again"))
    assert tokens == ids(scripted, "</think> hello world </s>") and text == "hello world"


def test_sampled_batch_rows_hide_thinking_too(scripted):
    prompt = ids(scripted, "<|im_start|> assistant ponder")
    options = [GenerationOptions(max_new_tokens=12, greedy=False, seed=s) for s in (1, 2)]
    results = scripted.generate_batch(prompt, options)
    assert [r.text for r in results] == ["hello world", "hello world"]


def test_a_stop_string_counts_in_the_visible_text(scripted):
    """'secret' is inside the block: it cannot stop the run; 'world' after it does."""
    prompt = ids(scripted, "<|im_start|> assistant ponder")
    assert run(scripted, prompt, stop_strings=("secret",))[0] == "hello world"
    assert run(scripted, prompt, stop_strings=("world",))[0] == "hello "


def test_a_model_without_think_tokens_is_left_alone(tmp_path):
    """No <think> in the vocabulary (the embedded model): no switches, and a result is the detokenizer's
    text of its tokens, as before."""
    from export.graph import Precision
    from export.llama import export
    from export.registry import ExportOptions
    from tests.checkpoints import save_tiny_llama

    export(save_tiny_llama(tmp_path / "plain"), tmp_path / "model", ExportOptions(Precision("fp32")))
    engine = Engine.load(tmp_path / "model")
    assert not engine.thinks and engine.chat_switches == {}
    result = engine.generate([5, 6, 7], GenerationOptions(max_new_tokens=8, speculative=False))
    assert result.text == engine.decode([t for t in result.token_ids if t not in engine.eos_token_ids])


@pytest.mark.parametrize(
    ("text", "inside", "visible"),
    [
        ("<think>a</think>\n\nAnswer", False, "Answer"),
        ("Answer <think>a</think> more", False, "Answer more"),
        ("Answer<think>a</think> more", False, "Answer more"),
        ("Answer <think>never closed", False, "Answer "),
        ("a stray </think> tag", False, "a stray tag"),
        ("thought</think>\n\nAnswer", True, "Answer"),
        ("all thought", True, ""),
        ("plain text", False, "plain text"),
    ],
)
def test_strip_thinking(text, inside, visible):
    assert strip_thinking(text, inside) == visible
    # every prefix strips to a prefix of the whole (what streaming relies on), but for a partial tag
    for n in range(len(text)):
        head = strip_thinking(text[:n], inside)
        assert visible.startswith(head[: len(head) - _partial_tag(head)]), (text[:n], head)


def _partial_tag(text: str) -> int:
    """Length of the longest suffix of `text` that could still become a think tag."""
    tags = ("<think>", "</think>")
    return next((k for k in range(len(text), 0, -1) if any(t.startswith(text[-k:]) for t in tags)), 0)

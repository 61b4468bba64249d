"""Tokenizer-level behaviour: streaming detokenization and chat templates."""

from __future__ import annotations

import pytest

from native_host.engine import EngineError, GenerationOptions
from native_host.engine.text import IncrementalDetokenizer
from native_host.model_format import ChatTemplate, ChatTemplateError

MIXED = "Voilà — naïve café, 日本語のテキスト, emoji 😀👍🏽 and 🇫🇷 flags. Ünïcödé!"


def test_streaming_never_splits_a_utf8_character(engine):
    ids = engine.tokenizer.encode(MIXED, add_special_tokens=False).ids
    detok = IncrementalDetokenizer(engine.tokenizer)
    pieces = [detok.add(token) for token in ids]
    pieces.append(detok.flush())
    assert all("\ufffd" not in piece for piece in pieces)
    assert "".join(pieces) == MIXED == engine.decode(ids)
    # the case is really exercised: some tokens carry only part of a character
    assert pieces.count("") >= 3
    single = [engine.tokenizer.decode([t]) for t in ids]
    assert any("\ufffd" in s for s in single)


def test_streamed_generation_pieces_equal_text(engine):
    prompt = engine.encode(
        engine.render_chat([{"role": "user", "content": "Translate 'thank you' to Japanese."}])
    )
    pieces: list[str] = []
    result = engine.generate(
        prompt, GenerationOptions(max_new_tokens=40), on_token=lambda _t, p: pieces.append(p)
    )
    assert "".join(pieces) == result.text
    assert not result.text.isascii()
    # only a run cut by the length limit may end inside a character
    body = result.text[:-1] if result.finish_reason == "length" else result.text
    assert "\ufffd" not in body


def test_chat_template_renders_and_raises_cleanly(engine):
    rendered = engine.render_chat([{"role": "user", "content": "Hi"}])
    assert rendered.endswith("<|im_start|>assistant\n")
    assert "<|im_start|>user\nHi<|im_end|>" in rendered
    strict = ChatTemplate(
        "{% if messages[0]['role'] != 'user' %}{{ raise_exception('first message must be user') }}{% endif %}"
        "{{ bos_token }}{{ messages[0]['content'] }}{{ eos_token }}",
        "<s>",
        "</s>",
    )
    assert strict.render([{"role": "user", "content": "x"}]) == "<s>x</s>"
    with pytest.raises(ChatTemplateError, match="first message must be user"):
        strict.render([{"role": "system", "content": "x"}])
    with pytest.raises(EngineError, match="role"):
        engine.render_chat([{"content": "no role"}])


def test_template_cannot_reach_python_internals():
    template = ChatTemplate("{{ messages.__class__.__mro__[1].__subclasses__() }}", "", "")
    with pytest.raises(ChatTemplateError):
        template.render([{"role": "user", "content": "x"}])

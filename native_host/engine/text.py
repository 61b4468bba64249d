"""Chat-template rendering, a model's thinking blocks, and streaming detokenization."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from tokenizers import Tokenizer

from native_host.engine.errors import EngineError, ModelDirError

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
# What end_of_turn_token renders: a question and an answer no template changes (plain words, no tags).
PROBE_CHAT = (
    {"role": "user", "content": "Probe question"},
    {"role": "assistant", "content": "Probe answer"},
)


def template_switches(source: str) -> dict[str, Any]:
    """The variables Fantasma sets in a chat template that reads them: thinking off (`enable_thinking`,
    Qwen3 / Qwen3.5 templates) — a rewrite is a direct answer, and a thought is tokens the user waits
    for and never sees. export/modeldir.py writes this into fantasma_model.json (`chat_template_kwargs`);
    engine/config.py applies it to model dirs written before that key existed."""
    return {"enable_thinking": False} if "enable_thinking" in source else {}


def strip_thinking(text: str, inside: bool = False) -> str:
    """`text` without the model's thinking: every <think>…</think> block, an unclosed <think> and all
    after it, a stray </think>. Whitespace after a removed block goes too where the kept text is empty or
    already ends in whitespace ("<think>…</think>\n\nAnswer" → "Answer"). `inside`: the prompt opened a
    block, so everything up to the first </think> is thought (and nothing, if none comes).

    Applied to a growing text, each result is a prefix of the next one's, except that a suffix which could
    still become a tag (e.g. "<thi") may vanish: a streaming caller holds such a suffix back."""
    kept, pos, removed = "", 0, False  # removed: a tag or block ends at `pos`
    if inside:
        close = text.find(THINK_CLOSE)
        if close < 0:
            return ""
        pos, removed = close + len(THINK_CLOSE), True
    while True:
        if removed and (not kept or kept[-1].isspace()):
            while pos < len(text) and text[pos].isspace():
                pos += 1
        opening, stray = text.find(THINK_OPEN, pos), text.find(THINK_CLOSE, pos)
        if stray >= 0 and (opening < 0 or stray < opening):
            kept, pos, removed = kept + text[pos:stray], stray + len(THINK_CLOSE), True
            continue
        if opening < 0:
            return kept + text[pos:]
        kept += text[pos:opening]
        close = text.find(THINK_CLOSE, opening + len(THINK_OPEN))
        if close < 0:
            return kept  # unclosed: the rest is thought
        pos, removed = close + len(THINK_CLOSE), True


class ChatTemplate:
    """A Hugging Face style chat template, rendered in a sandbox (the template is data from the model dir).

    Provides what HF templates expect: `raise_exception`, `strftime_now`, `tojson`, `bos_token`,
    `eos_token`; trim_blocks/lstrip_blocks as transformers sets them.
    """

    def __init__(self, source: str, bos_token: str, eos_token: str) -> None:
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        env.globals["raise_exception"] = _raise_exception
        env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
        env.filters["tojson"] = lambda value, indent=None: json.dumps(
            value, ensure_ascii=False, indent=indent
        )
        try:
            self._template = env.from_string(source)
        except TemplateError as exc:
            raise ModelDirError(f"fantasma_model.json: chat_template does not parse ({exc})") from exc
        self.bos_token = bos_token
        self.eos_token = eos_token

    def render(
        self,
        messages: list[dict[str, Any]],
        add_generation_prompt: bool = True,
        switches: dict[str, Any] | None = None,
    ) -> str:
        """`switches`: extra template variables (e.g. enable_thinking=False); they cannot replace the
        messages, the generation-prompt flag or the special tokens."""
        for message in messages:
            if not isinstance(message, dict) or "role" not in message or "content" not in message:
                raise EngineError("each chat message needs 'role' and 'content'")
        try:
            return self._template.render(
                {
                    **(switches or {}),
                    "messages": messages,
                    "add_generation_prompt": add_generation_prompt,
                    "bos_token": self.bos_token,
                    "eos_token": self.eos_token,
                }
            )
        except TemplateError as exc:
            raise EngineError(f"chat template failed: {exc}") from exc


def end_of_turn_token(
    template_source: str | None,
    tokenizer: Tokenizer,
    bos_token: str = "",
    eos_token: str = "",
    switches: dict[str, Any] | None = None,
) -> int | None:
    """The token the chat template writes right after an assistant message (`<|im_end|>`, `<|eot_id|>`,
    `<end_of_turn>`, ...), found by rendering the template with a probe answer and tokenizing what follows
    it: the first token there, when it is one of the tokenizer's added tokens and only whitespace comes
    before it. None when the template writes no such token or cannot render the probe. The exporters
    (export/eos.py) and the engine (a model dir written before they did, engine/config.py) call this."""
    if not template_source:
        return None
    try:
        rendered = ChatTemplate(template_source, bos_token, eos_token).render(
            [dict(m) for m in PROBE_CHAT], add_generation_prompt=False, switches=switches
        )
    except (EngineError, ModelDirError, TypeError, ValueError):
        return None
    answer = PROBE_CHAT[-1]["content"]
    at = rendered.rfind(answer)
    if at < 0:
        return None
    tail = rendered[at + len(answer) :]
    added = tokenizer.get_added_tokens_decoder()
    encoding = tokenizer.encode(tail, add_special_tokens=False)
    for token_id, (start, _end) in zip(encoding.ids, encoding.offsets, strict=True):
        if token_id in added:
            return int(token_id) if not tail[:start].strip() else None
        if tail[start:_end].strip():
            return None  # text, not a turn-ending token, comes first
    return None


def _raise_exception(message: str) -> None:
    raise TemplateError(message)


class IncrementalDetokenizer:
    """Turns a token stream into text pieces without ever emitting half a UTF-8 character.

    Byte-level BPE splits multi-byte characters across tokens; decoding such a token alone gives U+FFFD.
    We decode a small window (`prefix` .. end) and emit only the part past what was already emitted,
    holding back while the window ends in U+FFFD. Decoding with a little left context also keeps
    tokenizers that strip a leading space on the first token (Metaspace) from eating spaces.
    """

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._ids: list[int] = []
        self._prefix_offset = 0  # start of the decode window
        self._read_offset = 0  # tokens before this are already emitted
        self.text = ""

    def _decode(self, ids: list[int]) -> str:
        return self._tokenizer.decode(ids, skip_special_tokens=True)

    def add(self, token_id: int) -> str:
        """The new text this token completes ('' while a character is still incomplete)."""
        self._ids.append(token_id)
        emitted = self._decode(self._ids[self._prefix_offset : self._read_offset])
        window = self._decode(self._ids[self._prefix_offset :])
        if len(window) > len(emitted) and not window.endswith("\ufffd"):
            piece = window[len(emitted) :]
            self._prefix_offset = self._read_offset
            self._read_offset = len(self._ids)
            self.text += piece
            return piece
        return ""

    def flush(self) -> str:
        """Whatever is still held back (an incomplete character decodes as U+FFFD)."""
        emitted = self._decode(self._ids[self._prefix_offset : self._read_offset])
        window = self._decode(self._ids[self._prefix_offset :])
        piece = window[len(emitted) :]
        self._prefix_offset = self._read_offset = len(self._ids)
        self.text += piece
        return piece

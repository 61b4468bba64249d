"""Chat-template rendering and streaming detokenization."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from tokenizers import Tokenizer

from native_host.engine.errors import EngineError, ModelDirError


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

    def render(self, messages: list[dict[str, Any]], add_generation_prompt: bool = True) -> str:
        for message in messages:
            if not isinstance(message, dict) or "role" not in message or "content" not in message:
                raise EngineError("each chat message needs 'role' and 'content'")
        try:
            return self._template.render(
                messages=messages,
                add_generation_prompt=add_generation_prompt,
                bos_token=self.bos_token,
                eos_token=self.eos_token,
            )
        except TemplateError as exc:
            raise EngineError(f"chat template failed: {exc}") from exc


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

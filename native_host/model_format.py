"""What a model dir's fantasma_model.json says that both the exporter that writes it and the engine that
reads it compute (docs/model-format.md), so both read one definition: the chat template (rendered in a
sandbox), the template variables Fantasma sets, the token that ends a turn, and the sampling keys a model
dir records. A leaf: the standard library, jinja2 and tokenizers only (export/ may import it; it may not
import the engine, which loads onnxruntime).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from tokenizers import Tokenizer

# The generation_config.json keys a model dir records (fantasma_model.json `generation_config`).
SAMPLING_KEYS = ("do_sample", "temperature", "top_p", "top_k", "presence_penalty", "repetition_penalty")
# What end_of_turn_token renders: a question and an answer no template changes (plain words, no tags).
PROBE_CHAT = (
    {"role": "user", "content": "Probe question"},
    {"role": "assistant", "content": "Probe answer"},
)


class ChatTemplateError(ValueError):
    """A chat template failed on these messages (the message is written for the user; the engine raises
    it again as an EngineError)."""


class ChatTemplateSourceError(ChatTemplateError):
    """A chat template does not parse (the engine raises it again as a ModelDirError)."""


def template_switches(source: str) -> dict[str, Any]:
    """The variables Fantasma sets in a chat template that reads them: thinking off (`enable_thinking`,
    Qwen3 / Qwen3.5 templates) — a rewrite is a direct answer, and a thought is tokens the user waits
    for and never sees. export/modeldir.py writes this into fantasma_model.json (`chat_template_kwargs`);
    engine/config.py applies it to model dirs written before that key existed."""
    return {"enable_thinking": False} if "enable_thinking" in source else {}


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
            raise ChatTemplateSourceError(
                f"fantasma_model.json: chat_template does not parse ({exc})"
            ) from exc
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
                raise ChatTemplateError("each chat message needs 'role' and 'content'")
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
            raise ChatTemplateError(f"chat template failed: {exc}") from exc


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
    except (TypeError, ValueError):  # ChatTemplateError is a ValueError
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

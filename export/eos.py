"""The ids that end a generation, and where each came from: one helper for every exporter.

    ids, sources = eos_token_ids(declared, chat_template, tokenizer)
    meta["eos_token_ids"], meta["eos_token_sources"] = ids, sources

A chat model's turn can end on a token its config does not name: Qwen/Qwen3.5-0.8B's config.json says
`<|endoftext|>` (248044) and ships no generation_config.json, while every turn ends with `<|im_end|>`
(248046), named only by tokenizer_config.json's `eos_token` and by the chat template. So the eos ids are
the union of what the checkpoint declares (config.json, its text_config, generation_config.json,
tokenizer_config.json's `eos_token`; a GGUF's eos and eot ids) and the token the chat template writes
after an assistant message (native_host/model_format.end_of_turn_token, found by rendering, not by name).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

from native_host.model_format import end_of_turn_token, template_switches

TEMPLATE_SOURCE = "chat_template end of turn"


def as_ids(value: Any) -> list[int]:
    """An eos field as a list of ids (a config may give one id, a list, or null)."""
    if value is None:
        return []
    return [int(v) for v in (value if isinstance(value, list) else [value]) if v is not None]


def hf_declared(
    config: dict[str, Any], generation: dict[str, Any], tokenizer_config: dict[str, Any], tokenizer: Tokenizer
) -> list[tuple[str, list[int]]]:
    """(file, ids) for every eos a Hugging Face checkpoint dir declares."""
    text = config.get("text_config") or {}
    token = tokenizer_config.get("eos_token")
    if isinstance(token, dict):  # older tokenizer_config.json: {"content": "</s>", ...}
        token = token.get("content")
    token_id = tokenizer.token_to_id(token) if isinstance(token, str) else None
    return [
        ("config.json", as_ids(config.get("eos_token_id"))),
        ("config.json text_config", as_ids(text.get("eos_token_id"))),
        ("generation_config.json", as_ids(generation.get("eos_token_id"))),
        ("tokenizer_config.json eos_token", [] if token_id is None else [int(token_id)]),
    ]


def load_tokenizer(tokenizer: Tokenizer | Path | str) -> Tokenizer:
    """A tokenizer object from an exporter's tokenizer (an object, or the path of a tokenizer.json)."""
    return tokenizer if isinstance(tokenizer, Tokenizer) else Tokenizer.from_file(str(tokenizer))


def eos_token_ids(
    declared: Iterable[tuple[str, list[int]]],
    chat_template: str | None,
    tokenizer: Tokenizer | Path | str,
    bos_token_id: int | None = None,
) -> tuple[list[int], dict[str, list[str]]]:
    """(eos ids in the order first declared, {id: [where it came from, ...]}); ValueError when none."""
    tokenizer = load_tokenizer(tokenizer)
    sources: dict[int, list[str]] = {}
    for where, ids in declared:
        for token_id in ids:
            sources.setdefault(token_id, []).append(where)
    bos = tokenizer.id_to_token(bos_token_id) if bos_token_id is not None else None
    eos = tokenizer.id_to_token(min(sources)) if sources else None
    turn_end = end_of_turn_token(
        chat_template, tokenizer, bos or "", eos or "", template_switches(chat_template or "")
    )
    if turn_end is not None:
        sources.setdefault(turn_end, []).append(TEMPLATE_SOURCE)
    if not sources:
        raise ValueError(
            "no eos token: config.json, generation_config.json, tokenizer_config.json and the chat "
            "template name none; generation could never stop"
        )
    return list(sources), {str(token_id): where for token_id, where in sources.items()}

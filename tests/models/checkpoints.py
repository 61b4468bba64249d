"""The checkpoints the model-install tests start from, as a user would have them on disk:

- a tiny random Qwen3.5 laid out file by file as the hub ships Qwen/Qwen3.5-0.8B (`save_tiny_qwen35`,
  whose docstring lists the real repo's files and where they were checked): no generation_config.json,
  so `<|im_end|>` is named only by tokenizer_config.json and the chat template;
- a tiny random Llama (tests/checkpoints.py save_tiny_llama) with a ChatML template in
  tokenizer_config.json, as instruction-tuned checkpoints ship it.

A plain module; the fixtures over it live in tests/models/conftest.py."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.checkpoints import REPO, save_tiny_llama
from tests.engine.tiny_hybrid import TEXT_CONFIG, random_hybrid_weights

QWEN_NAME, LLAMA_NAME = "tiny-qwen35", "tiny-llama"  # what the tests install them as

QWEN_VOCAB = 248_320  # the real vocabulary: the rebuilt tokenizer's ids reach 248,076
IM_END, ENDOFTEXT = 248_046, 248_044
# The engine tests' tiny hybrid (tests/engine/tiny_hybrid.py) with the real vocabulary and eos, 8 layers
# (layer i is full attention when i % 4 == 3: 6 Gated DeltaNet + 2 attention) and the hub's rotary layout.
QWEN_TEXT_CONFIG = {
    **TEXT_CONFIG,
    "vocab_size": QWEN_VOCAB,
    "num_hidden_layers": 8,
    "max_position_embeddings": 4096,
    "rope_parameters": {
        "rope_type": "default",
        "rope_theta": 10_000_000.0,
        "partial_rotary_factor": 0.25,
        "mrope_section": [4, 2, 2],
        "mrope_interleaved": True,
    },
    "eos_token_id": ENDOFTEXT,
    "tie_word_embeddings": True,
}
VISION_CONFIG = dict(
    depth=1, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64, patch_size=4
)
CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


# Qwen/Qwen3.5-0.8B's files (the hub's listing, read for issue 39). Written here: every one a reader of
# the checkpoint (the exporter, transformers) reads; the others (README.md, LICENSE, .gitattributes,
# merges.txt, vocab.json, preprocessor_config.json, video_preprocessor_config.json: documentation, the
# slow tokenizer's files and the image/video processors) are not.
QWEN_REPO_FILES = (
    ".gitattributes", "LICENSE", "README.md", "chat_template.jinja", "config.json", "merges.txt",
    "model.safetensors-00001-of-00001.safetensors", "model.safetensors.index.json",
    "preprocessor_config.json", "tokenizer.json", "tokenizer_config.json",
    "video_preprocessor_config.json", "vocab.json",
)  # fmt: skip
QWEN_SHARD = "model.safetensors-00001-of-00001.safetensors"
QWEN_WRITTEN = ("chat_template.jinja", "config.json", QWEN_SHARD, "model.safetensors.index.json",
                "tokenizer.json", "tokenizer_config.json")  # fmt: skip
# The Qwen3.5 template's turn logic (chat_template.jinja; tools and image/video content left out): the
# last user query is found from the end (a user turn that is only a tool response does not count); an
# assistant turn after it gets its reasoning in a <think> block, an empty one
# (`<think>\n\n</think>\n\n`) when it has none, every earlier assistant turn gets none; the generation
# prompt opens an empty block when thinking is switched off, an open one otherwise.
QWEN35_CHAT_TEMPLATE = """\
{%- if messages[0].role == 'system' %}
    {{- '<|im_start|>system\\n' + messages[0].content|trim + '<|im_end|>\\n' }}
{%- endif %}
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
    {%- set index = (messages|length - 1) - loop.index0 %}
    {%- if ns.multi_step_tool and message.role == "user" %}
        {%- set content = message.content|trim %}
        {%- if not(content.startswith('<tool_response>') and content.endswith('</tool_response>')) %}
            {%- set ns.multi_step_tool = false %}
            {%- set ns.last_query_index = index %}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- for message in messages %}
    {%- set content = message.content|trim %}
    {%- if message.role == "system" %}
        {%- if not loop.first %}
            {{- raise_exception('System message must be at the beginning.') }}
        {%- endif %}
    {%- elif message.role == "user" %}
        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {%- set reasoning_content = '' %}
        {%- if message.reasoning_content is string %}
            {%- set reasoning_content = message.reasoning_content %}
        {%- elif '</think>' in content %}
            {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}
            {%- set content = content.split('</think>')[-1].lstrip('\\n') %}
        {%- endif %}
        {%- set reasoning_content = reasoning_content|trim %}
        {%- if loop.index0 > ns.last_query_index %}
            {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content + '\\n</think>\\n\\n' + content }}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\\n' + content }}
        {%- endif %}
        {{- '<|im_end|>\\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
    {%- if enable_thinking is defined and enable_thinking is false %}
        {{- '<think>\\n\\n</think>\\n\\n' }}
    {%- else %}
        {{- '<think>\\n' }}
    {%- endif %}
{%- endif %}
"""


def qwen35_config_json(model_config: dict) -> dict:
    """config.json with the real repo's key set and token ids (Qwen/Qwen3.5-0.8B: eos and bos
    `<|endoftext|>` 248044 in text_config, pad null, the vision token ids; the sizes are the tiny
    model's). `model_config`: the tiny model's own config.to_dict()."""
    text, vision = model_config["text_config"], model_config["vision_config"]
    return {
        "architectures": ["Qwen3_5ForConditionalGeneration"],
        "image_token_id": 248056,
        "language_model_only": False,
        "model_type": "qwen3_5",
        "text_config": {
            "attention_bias": False,
            "attention_dropout": 0.0,
            "attn_output_gate": True,
            "bos_token_id": ENDOFTEXT,
            "dtype": "bfloat16",
            "eos_token_id": ENDOFTEXT,
            "full_attention_interval": 4,
            **{
                key: text[key]
                for key in (
                    "head_dim",
                    "hidden_act",
                    "hidden_size",
                    "initializer_range",
                    "intermediate_size",
                    "layer_types",
                    "linear_conv_kernel_dim",
                    "linear_key_head_dim",
                    "linear_num_key_heads",
                    "linear_num_value_heads",
                    "linear_value_head_dim",
                )
            },
            "mamba_ssm_dtype": "float32",
            "max_position_embeddings": text["max_position_embeddings"],
            "model_type": "qwen3_5_text",
            "mtp_num_hidden_layers": 1,
            "mtp_use_dedicated_embeddings": False,
            "num_attention_heads": text["num_attention_heads"],
            "num_hidden_layers": text["num_hidden_layers"],
            "num_key_value_heads": text["num_key_value_heads"],
            "pad_token_id": None,
            "partial_rotary_factor": 0.25,
            "rms_norm_eps": text["rms_norm_eps"],
            "rope_parameters": text["rope_parameters"],
            "tie_word_embeddings": True,
            "use_cache": True,
            "vocab_size": text["vocab_size"],
        },
        "tie_word_embeddings": True,
        "transformers_version": model_config.get("transformers_version"),
        "video_token_id": 248057,
        "vision_config": {
            "deepstack_visual_indexes": [],
            **{
                key: vision[key]
                for key in (
                    "depth",
                    "hidden_act",
                    "hidden_size",
                    "in_channels",
                    "initializer_range",
                    "intermediate_size",
                    "num_heads",
                    "num_position_embeddings",
                    "out_hidden_size",
                    "patch_size",
                    "spatial_merge_size",
                    "temporal_patch_size",
                )
            },
            "model_type": "qwen3_5",
        },
        "vision_end_token_id": 248054,
        "vision_start_token_id": 248053,
    }


def qwen35_tokenizer_config() -> dict:
    """tokenizer_config.json as the Qwen3.5 repos write it (the Qwen2 tokenizer's keys): eos_token
    `<|im_end|>`, pad_token `<|endoftext|>`, no bos, every special token in added_tokens_decoder; the chat
    template is not in it (chat_template.jinja)."""
    from export.qwen_tokenizer import SPECIAL_START_ID, SPECIAL_TOKENS

    return {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": {
            str(SPECIAL_START_ID + i): {
                "content": token,
                "lstrip": False,
                "normalized": False,
                "rstrip": False,
                "single_word": False,
                "special": True,
            }
            for i, token in enumerate(SPECIAL_TOKENS)
        },
        "bos_token": None,
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|im_end|>",
        "errors": "replace",
        "model_max_length": 262144,
        "pad_token": "<|endoftext|>",
        "split_special_tokens": False,
        "tokenizer_class": "Qwen2Tokenizer",
        "unk_token": None,
    }


def save_tiny_qwen35(out: Path) -> Path:
    """The tiny hybrid checkpoint (seed 0, bf16, the real Qwen3.5 tokenizer and vocabulary of 248,320)
    laid out file by file as the hub ships Qwen/Qwen3.5-0.8B.

    The real repo's files (QWEN_REPO_FILES; Hugging Face listing as read for issue 39): README.md,
    LICENSE, .gitattributes, chat_template.jinja, config.json, merges.txt, vocab.json, tokenizer.json,
    tokenizer_config.json, preprocessor_config.json, video_preprocessor_config.json, the weights as one
    indexed shard `model.safetensors-00001-of-00001.safetensors` with `model.safetensors.index.json`,
    and NO generation_config.json. Written here: QWEN_WRITTEN (what a reader of the checkpoint reads).
    Where each was checked: the layout, the missing generation_config.json and the ids (text_config eos
    248044, `<|im_end|>` 248046 named by tokenizer_config.json and the template) from issue 39's reading
    of the repo; config.json's key set against the Qwen3.5-family config.json printed in a public model
    report (Qwen3.6-27B, the same `Qwen3_5ForConditionalGeneration` format; found with the `find_string`
    search of public repos); the template's turn logic against ollama's Qwen3.5 template excerpt
    (server tests, same search) and the Qwen3 template it derives from; tokenizer_config.json's keys
    against the Qwen3 repos' (Qwen3-4B's, same search). Text tensors under `model.language_model.*`, a
    vision tower under `model.visual.*`, tied embeddings (no lm_head)."""
    import torch
    from safetensors import safe_open
    from transformers import Qwen3_5Config, Qwen3_5ForConditionalGeneration

    from export.qwen_tokenizer import build_tokenizer

    torch.manual_seed(0)
    config = Qwen3_5Config(
        text_config=QWEN_TEXT_CONFIG, vision_config=VISION_CONFIG, tie_word_embeddings=True
    )
    model = Qwen3_5ForConditionalGeneration(config).eval()
    random_hybrid_weights(model)
    model.to(torch.bfloat16).save_pretrained(out)
    (out / "generation_config.json").unlink(missing_ok=True)  # the real repo has none
    (out / "model.safetensors").rename(out / QWEN_SHARD)
    with safe_open(str(out / QWEN_SHARD), "pt") as shard:
        names = sorted(shard.keys())
    index = {
        "metadata": {"total_size": sum(p.numel() * p.element_size() for p in model.parameters())},
        "weight_map": {name: QWEN_SHARD for name in names},
    }
    (out / "model.safetensors.index.json").write_text(json.dumps(index, indent=2), encoding="utf-8")
    (out / "config.json").write_text(
        json.dumps(qwen35_config_json(config.to_dict()), indent=2), encoding="utf-8"
    )
    (out / "tokenizer_config.json").write_text(
        json.dumps(qwen35_tokenizer_config(), indent=2), encoding="utf-8"
    )
    (out / "chat_template.jinja").write_text(QWEN35_CHAT_TEMPLATE, encoding="utf-8")
    build_tokenizer().save(str(out / "tokenizer.json"))
    return out


def save_tiny_chat_llama(out: Path) -> Path:
    save_tiny_llama(out)
    (out / "tokenizer_config.json").write_text(json.dumps({"chat_template": CHATML}), encoding="utf-8")
    return out


def fantasma(home: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 300):
    """The `fantasma` command in a subprocess, in FANTASMA_HOME `home`."""
    return subprocess.run(
        [sys.executable, "-m", "native_host.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **(env or {}), "FANTASMA_HOME": str(home)},
        timeout=timeout,
    )


def cached_qwen35(cache: pytest.Cache) -> Path:
    """save_tiny_qwen35 once into pytest's cache, under a key made of the code that makes it (building
    the real tokenizer takes ~20 s): the same dir across runs and test dirs. Never modify it."""
    digest = hashlib.sha1()
    for path in (REPO / "tests/models/checkpoints.py", REPO / "export/qwen_tokenizer.py"):
        digest.update(path.read_bytes())
    root = Path(cache.mkdir("fantasma-tiny-qwen35"))
    out = root / digest.hexdigest()[:12]
    if not (out / "config.json").is_file():
        for stale in root.iterdir():
            shutil.rmtree(stale, ignore_errors=True)
        tmp = root / f"{out.name}.partial"
        shutil.rmtree(tmp, ignore_errors=True)
        save_tiny_qwen35(tmp)
        tmp.rename(out)
    return out

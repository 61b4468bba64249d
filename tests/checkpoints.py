"""Model checkpoints the tests share: tiny random Llama checkpoints with a word-level tokenizer, and the
embedded default model exported once into pytest's cache the way `fantasma setup` makes it (the shipped
rewriting adapter merged). A plain module (conftest names collide across
test dirs); the fixtures over it live in the conftests."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TINY_VOCAB = 256
STALE_EXPORT_S = 3 * 3600  # an export of another tree this old is removed


def tiny_tokenizer_json(path: Path, vocab_size: int = TINY_VOCAB) -> Path:
    """A word-level tokenizer with `vocab_size` entries (token i is "t{i}"); checkpoints need one."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {f"t{i}": i for i in range(vocab_size)}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="t0"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(path))
    return path


def save_tiny_llama(out: Path, **overrides) -> Path:
    """A random 2-layer Llama (seed 0) saved with save_pretrained, plus its tokenizer; `overrides` are
    LlamaConfig fields."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    settings = dict(
        vocab_size=TINY_VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
        bos_token_id=1,
        eos_token_id=2,
    )
    settings.update(overrides)
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**settings)).eval()
    model.save_pretrained(out)
    tiny_tokenizer_json(out / "tokenizer.json", settings["vocab_size"])
    return out


def setup_digest(*extra: object) -> str:
    """A cache key for a model exported the way `fantasma setup` exports it: the exporter sources
    (export/*.py), setup's own source, the shipped adapter's bytes (its sha256 in the manifest, checked
    again by `choose_chat_model` on every use), the GGUF it starts from, and `extra` (a precision)."""
    from native_host.assets import smollm2_gguf
    from native_host.models import embedded as setup  # setup's steps

    digest = hashlib.sha1()
    for path in [*sorted((REPO / "export").glob("*.py")), Path(setup.__file__)]:
        digest.update(path.name.encode() + path.read_bytes())
    choice = setup.choose_chat_model(False)
    digest.update((choice.adapter.sha256 if choice.adapter is not None else "base").encode())
    gguf = smollm2_gguf()
    digest.update(f"{gguf.name}:{gguf.stat().st_size}".encode())
    digest.update(repr(extra).encode())
    return digest.hexdigest()[:12]


def _shipped_choice():
    """The chat model `fantasma setup` picks (the shipped adapter); a refused or missing adapter fails
    the tests instead of quietly testing the base model."""
    from native_host.models import embedded as setup  # setup's steps

    choice = setup.choose_chat_model(False)
    if choice.adapter is None:
        pytest.fail(f"the shipped rewriting adapter is not usable: {choice.note or 'no manifest'}")
    return choice


def export_default_model(cache: pytest.Cache, accuracy_level: int | None = None) -> Path:
    """The embedded SmolLM2 exactly as `fantasma setup` makes it: setup's own chat step builds it (the
    shipped adapter, native_host/adapters/, merged into the GGUF's weights, then int4), into pytest's
    cache under `setup_digest()`: a change to export/, to setup or to the adapter re-exports it, an
    unchanged tree reuses it across runs and test dirs. tests/engine/conftest.py uses this function.

    What differs from a user's install: the dir lives in pytest's cache, not the per-user models dir
    (tests link it there, tests/host/conftest.py), and setup's `after` step (Engine.prepare, which only
    stores the load-time checks' answers in the user's cache dir) is not run, since every test has its
    own FANTASMA_HOME. `accuracy_level` other than setup's (4, int8 activations) is the one deliberate
    difference: the same merged weights with another MatMulNBits compute type, built with the function
    setup's step calls (export.lora.export_merged) and setup's source label."""
    from export.graph import Precision
    from export.lora import export_merged
    from export.registry import ExportOptions
    from native_host import paths
    from native_host.assets import smollm2_gguf
    from native_host.models import embedded as setup  # setup's steps

    choice = _shipped_choice()
    name = (
        "fantasma-default-model" if accuracy_level is None else f"fantasma-default-model-acc{accuracy_level}"
    )
    root = Path(cache.mkdir(name))
    out = root / setup_digest(accuracy_level)
    if (out / "fantasma_model.json").is_file():
        return out
    # Exports of older trees go once nobody can still be using them (another pytest run of the same
    # checkout may hold the previous one while this one re-exports).
    for stale in root.iterdir():
        if time.time() - stale.stat().st_mtime > STALE_EXPORT_S:
            shutil.rmtree(stale, ignore_errors=True)
    tmp = root / f"{out.name}.partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    step = next(s for s in setup.steps(choice) if s.target is paths.default_model_dir)
    if accuracy_level is None:
        step.build(tmp)
    else:
        gguf = smollm2_gguf()
        options = ExportOptions(
            Precision("int4", accuracy_level=accuracy_level), source_label=choice.label(gguf.name)
        )
        export_merged(gguf, tmp, choice.adapter, options)
    if not step.ready(tmp):
        raise RuntimeError(f"{tmp}: the export finished but the model dir is incomplete")
    try:
        tmp.rename(out)
    except OSError:  # a concurrent run put the same export in place first
        shutil.rmtree(tmp, ignore_errors=True)
    return out


# HuggingFaceTB/SmolLM2-135M-Instruct's files as the hub lists them (README.md and .gitattributes are
# documentation; vocab.json and merges.txt the slow tokenizer's files, which nothing here reads).
SMOLLM2_REPO_FILES = (".gitattributes", "README.md", "config.json", "generation_config.json", "merges.txt",
                      "model.safetensors", "special_tokens_map.json", "tokenizer.json",
                      "tokenizer_config.json", "vocab.json")  # fmt: skip
# Llama 3.2 Instruct's template as a plain string (its header and turn tokens, its default system turn
# left out): a second Llama-family template, whose turn ends with <|eot_id|> and no newline.
LLAMA3_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim"
    " + '<|eot_id|>' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}"
)


def save_tiny_smollm2_instruct(out: Path) -> Path:
    """A tiny random Llama (2 layers, hidden 64, seed 0) laid out file by file as the hub ships
    HuggingFaceTB/SmolLM2-135M-Instruct, with its real tokenizer and chat template.

    The real repo's files: SMOLLM2_REPO_FILES (the Hugging Face listing). Written here: config.json
    (LlamaForCausalLM; bos 1 `<|im_start|>`, eos 2 `<|im_end|>`, pad 2, tied embeddings, vocabulary
    49,152; the sizes are the tiny model's), generation_config.json (token ids only: `_from_model_config`,
    bos, eos, pad; no sampling keys), model.safetensors, tokenizer.json, tokenizer_config.json (eos
    `<|im_end|>`, bos `<|im_start|>`, the chat template with SmolLM's default system turn),
    special_tokens_map.json. Where checked: the tokenizer, the template and the ids are the ones in the
    SmolLM2-135M-Instruct GGUF the project bundles (native_host/assets.smollm2_gguf: its
    tokenizer.chat_template, tokenizer.ggml.bos/eos/padding_token_id), rebuilt as tokenizer.json by
    export/gguf_source.tokenizer_from_gguf; the file list and config keys from the hub repo page."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from export.gguf_source import open_gguf, tokenizer_from_gguf
    from native_host.assets import smollm2_gguf

    metadata, _ = open_gguf(smollm2_gguf())
    tokenizer = tokenizer_from_gguf(metadata)
    settings = dict(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=8192,
        rms_norm_eps=1e-5,
        rope_theta=100000.0,
        tie_word_embeddings=True,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=2,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(LlamaConfig(**settings)).eval().save_pretrained(out)
    generation = {"_from_model_config": True, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 2}
    (out / "generation_config.json").write_text(json.dumps(generation, indent=2), encoding="utf-8")
    tokenizer.save(str(out / "tokenizer.json"))
    special = {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "pad_token": "<|im_end|>",
               "unk_token": "<|endoftext|>", "additional_special_tokens": ["<|im_start|>", "<|im_end|>"]}  # fmt: skip
    (out / "special_tokens_map.json").write_text(json.dumps(special, indent=2), encoding="utf-8")
    tokenizer_config = {
        "add_prefix_space": False,
        **special,
        "chat_template": metadata["tokenizer.chat_template"],
        "clean_up_tokenization_spaces": False,
        "model_max_length": 8192,
        "tokenizer_class": "GPT2Tokenizer",
        "vocab_size": tokenizer.get_vocab_size(),
    }
    (out / "tokenizer_config.json").write_text(json.dumps(tokenizer_config, indent=2), encoding="utf-8")
    return out

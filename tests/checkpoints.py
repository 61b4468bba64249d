"""Model checkpoints the tests share: tiny random Llama checkpoints with a word-level tokenizer, and the
embedded default model exported once into pytest's cache the way `fantasma setup` makes it (the shipped
rewriting adapter merged). A plain module (conftest names collide across
test dirs); the fixtures over it live in the conftests."""

from __future__ import annotations

import hashlib
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
    from native_host.commands import setup

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
    from native_host.commands import setup

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
    from native_host.commands import setup

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

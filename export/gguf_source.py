"""Reading a GGUF file: metadata, dequantized tensors, and a `tokenizers` tokenizer from metadata.

GGUF stores no tokenizer.json; the vocabulary, merges, token types and special ids live in metadata
under llama.cpp's key names. We rebuild the byte-level BPE tokenizer those describe, with the
pre-tokenizer that `tokenizer.ggml.pre` names (the one the merges were learned with).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

# gguf token types (llama.cpp's llama_token_type)
TOKEN_TYPE_CONTROL = 3
TOKEN_TYPE_USER_DEFINED = 4


class GGUFError(ValueError):
    """The GGUF file cannot be read or describes something we do not handle; the message says what."""


def _reader(path: Path):
    import gguf

    try:
        return gguf.GGUFReader(path)
    except (ValueError, OSError, IndexError) as exc:
        raise GGUFError(f"{path}: not a readable GGUF file ({exc})") from exc


def _field_value(field) -> Any:
    value = field.contents()
    return value


@functools.lru_cache(maxsize=4)
def _read(path_str: str, mtime_ns: int) -> tuple[dict[str, Any], Any]:
    reader = _reader(Path(path_str))
    metadata = {name: _field_value(field) for name, field in reader.fields.items()}
    return metadata, reader


def open_gguf(path: Path) -> tuple[dict[str, Any], Any]:
    """(metadata dict, gguf.GGUFReader); parsed once per file and process (parsing takes seconds)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    return _read(str(path.resolve()), path.stat().st_mtime_ns)


def read_gguf_metadata(path: Path) -> dict[str, Any]:
    return open_gguf(path)[0]


class GGUFTensors:
    """Dequantized float32 tensors by GGUF name, in checkpoint orientation ([out, in] for linears)."""

    def __init__(self, reader) -> None:
        self._by_name = {tensor.name: tensor for tensor in reader.tensors}

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def names(self) -> list[str]:
        return list(self._by_name)

    def numel(self, name: str) -> int:
        return int(self._by_name[name].n_elements)

    def get(self, name: str) -> np.ndarray:
        from gguf.quants import dequantize

        try:
            tensor = self._by_name[name]
        except KeyError:
            raise GGUFError(f"tensor {name!r} is missing from the GGUF file") from None
        try:
            return np.asarray(dequantize(tensor.data, tensor.tensor_type), dtype=np.float32)
        except NotImplementedError as exc:
            raise GGUFError(f"tensor {name!r}: cannot dequantize {tensor.tensor_type.name} ({exc})") from exc


# --- tokenizer -----------------------------------------------------------------------------------

_LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _byte_level(use_regex: bool) -> pre_tokenizers.PreTokenizer:
    return pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=use_regex)


def _pre_tokenizer(pre: str | None) -> pre_tokenizers.PreTokenizer:
    """The split llama.cpp applies for `tokenizer.ggml.pre` (llama-vocab.cpp), in `tokenizers` terms."""
    if pre in (None, "default", "gpt2", "gpt-2"):
        return _byte_level(use_regex=True)
    if pre == "smollm":
        # llama.cpp: "\p{N}" then the GPT-2 regex; the same as SmolLM2's own tokenizer.json.
        return pre_tokenizers.Sequence(
            [pre_tokenizers.Digits(individual_digits=True), _byte_level(use_regex=True)]
        )
    if pre in ("llama3", "llama-v3", "llama-bpe", "smaug-bpe", "falcon3"):
        return pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(_LLAMA3_SPLIT), behavior="isolated"), _byte_level(use_regex=False)]
        )
    raise GGUFError(
        f"GGUF pre-tokenizer {pre!r} is not supported (supported: default, gpt2, smollm, llama-bpe)"
    )


def tokenizer_from_gguf(metadata: dict[str, Any]) -> Tokenizer:
    """A byte-level BPE `tokenizers.Tokenizer` rebuilt from GGUF metadata (tokenizer.ggml.model gpt2)."""
    kind = metadata.get("tokenizer.ggml.model")
    if kind != "gpt2":
        raise GGUFError(
            f"GGUF tokenizer model {kind!r} is not supported (only byte-level BPE, 'gpt2'); "
            "export from the Hugging Face dir instead, which has tokenizer.json"
        )
    tokens: list[str] = list(metadata["tokenizer.ggml.tokens"])
    merges = [tuple(merge.split(" ", 1)) for merge in metadata.get("tokenizer.ggml.merges", [])]
    token_types = list(metadata.get("tokenizer.ggml.token_type", []))
    bpe = models.BPE(
        vocab={token: index for index, token in enumerate(tokens)},
        merges=merges,
        fuse_unk=False,
        byte_fallback=False,
    )
    tokenizer = Tokenizer(bpe)
    tokenizer.pre_tokenizer = _pre_tokenizer(metadata.get("tokenizer.ggml.pre"))
    tokenizer.decoder = decoders.ByteLevel()
    # Control tokens (<|im_start|>, <|endoftext|>) must stay whole and be skippable on decode;
    # user-defined ones stay whole but are ordinary text.
    tokenizer.add_special_tokens(
        [
            AddedToken(tokens[i], special=True, normalized=False)
            for i, kind in enumerate(token_types)
            if kind == TOKEN_TYPE_CONTROL
        ]
    )
    tokenizer.add_tokens(
        [
            AddedToken(tokens[i], special=False, normalized=False)
            for i, kind in enumerate(token_types)
            if kind == TOKEN_TYPE_USER_DEFINED
        ]
    )
    return tokenizer


def special_ids_from_gguf(metadata: dict[str, Any], tokenizer: Tokenizer) -> dict[str, Any]:
    """bos/eos/pad ids, add_bos_token and the chat template, as fantasma_model.json names them; the eos
    ids are the file's eos and eot (end of turn) ids and the template's end of turn (export/eos.py)."""
    from export.eos import as_ids, eos_token_ids

    eos = metadata.get("tokenizer.ggml.eos_token_id")
    if eos is None:
        raise GGUFError("GGUF metadata has no tokenizer.ggml.eos_token_id; generation could never stop")
    bos = metadata.get("tokenizer.ggml.bos_token_id")
    pad = metadata.get("tokenizer.ggml.padding_token_id", eos)
    template = metadata.get("tokenizer.chat_template")
    declared = [
        ("GGUF tokenizer.ggml.eos_token_id", as_ids(eos)),
        ("GGUF tokenizer.ggml.eot_token_id", as_ids(metadata.get("tokenizer.ggml.eot_token_id"))),
    ]
    eos_ids, sources = eos_token_ids(declared, template, tokenizer, None if bos is None else int(bos))
    return {
        "bos_token_id": None if bos is None else int(bos),
        "eos_token_ids": eos_ids,
        "eos_token_sources": sources,
        "pad_token_id": int(pad),
        "add_bos_token": bool(metadata.get("tokenizer.ggml.add_bos_token", False)),
        "chat_template": template,
    }


def unpermute_rotary_rows(weight: np.ndarray, num_heads: int) -> np.ndarray:
    """Undo llama.cpp's q/k row permutation (convert_hf_to_gguf.py `permute`).

    llama.cpp stores each head's rows interleaved (pairs for its GPT-J-style rope); Hugging Face keeps
    the two halves of a head apart (rotate_half). The same reshape/swap as transformers' GGUF loader.
    """
    head_half = weight.shape[0] // num_heads // 2
    w = weight.reshape(num_heads, head_half, 2, *weight.shape[1:])
    return w.swapaxes(2, 1).reshape(weight.shape)

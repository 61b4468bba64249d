"""Sentence embeddings for the meaning guard: the exported all-MiniLM-L6-v2 run with onnxruntime."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

EMBEDDER_FILE = "embedder.onnx"
META_FILE = "embedder.json"
# Batch size for one session run; longer lists are split so padding stays short.
BATCH = 16


class EmbedderError(RuntimeError):
    """The embedder dir is missing or unusable; the message says what to do."""


class Embedder:
    def __init__(self, model_dir: Path, threads: int | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        ort.disable_telemetry_events()  # see native_host/engine/runner.py

        model_dir = Path(model_dir)
        missing = [f for f in (EMBEDDER_FILE, "tokenizer.json", META_FILE) if not (model_dir / f).exists()]
        if missing:
            raise EmbedderError(
                f"embedder not installed in {model_dir} (missing {', '.join(missing)}); run: fantasma setup"
            )
        try:
            self.meta = json.loads((model_dir / META_FILE).read_text())
            self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
            self.tokenizer.enable_truncation(int(self.meta.get("max_seq_length", 256)))
            self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            if threads:
                options.intra_op_num_threads = threads
            options.log_severity_level = 3
            self.session = ort.InferenceSession(
                str(model_dir / EMBEDDER_FILE), options, providers=["CPUExecutionProvider"]
            )
        except EmbedderError:
            raise
        except Exception as exc:  # corrupt file, bad JSON, unsupported op: all mean "re-export"
            raise EmbedderError(f"embedder in {model_dir} is unusable ({exc}); run: fantasma setup") from exc
        self.model_dir = model_dir

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings, one row per text ([n, hidden] float32)."""
        rows: list[np.ndarray] = []
        # Sort by length so each batch pads little; restore the order at the end.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            batch = [texts[i] for i in order[start : start + BATCH]]
            encodings = self.tokenizer.encode_batch(batch)
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            (out,) = self.session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})
            rows.append(out)
        if not rows:
            return np.zeros((0, int(self.meta.get("hidden_size", 384))), dtype=np.float32)
        stacked = np.concatenate(rows)
        result = np.empty_like(stacked)
        result[order] = stacked
        return result

    def similarity(self, a: str, b: str) -> float:
        ea, eb = self.embed([a, b])
        return float(np.dot(ea, eb))

    def embed_document(self, text: str, max_words: int = 150) -> np.ndarray:
        """One unit vector for a text of any length: the word-weighted mean of its pieces' embeddings
        (pieces of at most `max_words` words cut at sentence ends), so nothing past 256 tokens is lost."""
        pieces: list[str] = []
        current: list[str] = []
        for sentence in re.split(r"(?<=[.!?])\s+", text.strip()):
            if current and len(" ".join([*current, sentence]).split()) > max_words:
                pieces.append(" ".join(current))
                current = []
            current.append(sentence)
        if current:
            pieces.append(" ".join(current))
        vectors = self.embed(pieces)
        weights = np.array([max(1, len(p.split())) for p in pieces], dtype=np.float32)
        mean = (vectors * weights[:, None]).sum(axis=0)
        return mean / max(float(np.linalg.norm(mean)), 1e-12)

    def document_similarity(self, a: str, b: str) -> float:
        return float(np.dot(self.embed_document(a), self.embed_document(b)))

    def similarities(self, reference: str, candidates: Sequence[str]) -> list[float]:
        """Cosine of each candidate against the reference, in one batched pass."""
        vectors = self.embed([reference, *candidates])
        return [float(v) for v in vectors[1:] @ vectors[0]]

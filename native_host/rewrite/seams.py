"""What rewrite/ asks of the models it runs, as types: the language model (`native_host.engine.Engine`),
the fluency scorer (the same engine, or a judge model in train/select.py) and the meaning embedder
(`engine/embedder.py`'s `Embedder`).

    llm_windows.py ─ LanguageModel: encode, render_chat, generate (+ score_texts)
    guards.py, search.py ─ FluencyScorer: score_texts (the fluency guard)
    llm_windows.py, search.py, pipeline.py, guide/alternatives.py ─ MeaningEmbedder: embed, similarities,
        document_similarity (the meaning guard)

Structural (`typing.Protocol`): the real classes fit without naming these; `_fits` below has mypy
check that they do. Nothing here imports the engine at run time: that loads onnxruntime, which a light
rewrite never needs (native_host/models/cache.py loads it on first use).

Looked up with `getattr`, so a model may lack them: the engine's `sampling` (its own sampling settings,
native_host/engine/sampling.py), `generate_batch` (sampled candidates in one batch) and `warm_prefix`
(the shared prompt prefix cached); native_host/models/size_class.py reads `parameters` and
`context_length` the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from native_host.engine import Engine
    from native_host.engine.embedder import Embedder
    from native_host.engine.options import GenerationOptions, GenerationResult


class FluencyScorer(Protocol):
    """Log-probabilities of text under a language model (guards.token_logprobs, the fluency guard)."""

    def score_texts(self, texts: list[str], prefix: str = "") -> list[np.ndarray]:
        """The natural-log probability of each token of each text after `prefix`."""
        ...


class LanguageModel(FluencyScorer, Protocol):
    """The engine as the LLM-window path drives it: a chat prompt rendered and tokenized, candidates
    generated from it."""

    def encode(self, text: str) -> list[int]: ...

    def render_chat(self, messages: list[dict[str, Any]], add_generation_prompt: bool = True) -> str: ...

    def generate(
        self,
        prompt_ids: list[int],
        options: GenerationOptions | None = None,
        on_token: Callable[[int, str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> GenerationResult: ...


class MeaningEmbedder(Protocol):
    """Sentence embeddings for the meaning guard (guards.check_similarity)."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings, one row per text."""
        ...

    def similarities(self, reference: str, candidates: Sequence[str]) -> list[float]:
        """Cosine of each candidate against the reference."""
        ...

    def document_similarity(self, a: str, b: str) -> float:
        """Cosine of two texts of any length."""
        ...


if TYPE_CHECKING:

    def _fits(engine: Engine, embedder: Embedder) -> tuple[LanguageModel, MeaningEmbedder]:
        """Never called: mypy checks here that the real engine and embedder fit the seams."""
        return engine, embedder

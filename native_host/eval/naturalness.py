"""How natural the rewritten text reads: language-model perplexity of the rewrite over the original's.

The default model scores every token of each text given the tokens before it. A ratio of 1.0 means
the rewrite is as predictable to the model as the original; above 1 it reads as less fluent English
to the model (odd word choices, broken syntax). Both texts are scored by the same model in the same
run, so the ratio does not depend on how well the model knows the corpus.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def token_logprobs(engine: Any, texts: Sequence[str]) -> list[np.ndarray]:
    """Natural-log probability of each token of each text after the ones before it; the first token
    is predicted from the model's bos token (else its pad token), as `Engine.score` does.

    One forward pass per text over the engine's runner, keeping the logits of every position; where an
    engine has no runner, `Engine.score_texts`. Both give the same perplexity within 1% on the default
    model, but score_texts advances one position per pass (it is built for many short continuations
    after one shared prefix), which made it 4.6x slower on whole 250-word chunks (docs/eval.md).
    """
    if getattr(engine, "runner", None) is None:
        return [np.asarray(row, dtype=np.float64) for row in engine.score_texts(list(texts))]
    return [_logprobs_one_pass(engine, text) for text in texts]


def _logprobs_one_pass(engine: Any, text: str) -> np.ndarray:
    start = engine.bos_token_id if engine.bos_token_id is not None else engine.pad_token_id
    ids = [start, *engine.tokenizer.encode(text, add_special_tokens=False).ids][: engine.context_length]
    if len(ids) < 2:
        return np.zeros(0)
    with engine._lock:  # one pass at a time on a session, as Engine.generate does
        logits, _ = engine.runner.forward(np.array([ids]), engine.runner.empty_states(1), keep=len(ids))
    logits = np.asarray(logits[0, :-1], dtype=np.float64)  # position i predicts token i + 1
    top = logits.max(axis=1, keepdims=True)
    log_norm = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
    return logits[np.arange(len(ids) - 1), ids[1:]] - log_norm


def perplexity(logprobs: np.ndarray) -> float | None:
    if logprobs.size == 0:
        return None
    return float(math.exp(-float(np.mean(logprobs))))


def perplexity_ratios(engine: Any, originals: Sequence[str], rewritten: Sequence[str]) -> list[float | None]:
    """Per pair: perplexity(rewritten) / perplexity(original); None where either text is too short."""
    scored = token_logprobs(engine, [*originals, *rewritten])
    n = len(originals)
    ratios: list[float | None] = []
    for before_lp, after_lp in zip(scored[:n], scored[n:], strict=True):
        before, after = perplexity(before_lp), perplexity(after_lp)
        ratios.append(None if before is None or after is None else after / before)
    return ratios

"""Sampling maths on fixed logits (no model needed)."""

from __future__ import annotations

import numpy as np

from native_host.engine.options import GenerationOptions
from native_host.engine.sampling import Sampler

LOGITS = np.log(np.array([0.5, 0.25, 0.15, 0.07, 0.03], dtype=np.float32))


def sampler(**kw) -> Sampler:
    settings = {"greedy": False, "temperature": 1.0, "top_p": 1.0, "top_k": 0, "seed": 0, **kw}
    return Sampler(GenerationOptions(**settings))


def test_top_k_and_top_p_cut_the_tail():
    assert np.count_nonzero(sampler(top_k=2).probs(LOGITS)) == 2
    p = sampler(top_p=0.7).probs(LOGITS)  # 0.5 + 0.25 reaches 0.7
    assert np.count_nonzero(p) == 2
    assert np.isclose(p.sum(), 1.0)
    assert np.allclose(sampler().probs(LOGITS), np.exp(LOGITS) / np.exp(LOGITS).sum())


def test_speculative_acceptance_keeps_the_distribution():
    """Accept the draft with p(d), else resample without d: the emitted token is distributed as p."""
    s = sampler()
    draws = 40000
    counts = np.zeros(5)
    for _ in range(draws):
        _, token = s.accept_draft(LOGITS, 1)
        counts[token] += 1
    assert np.allclose(counts / draws, sampler().probs(LOGITS), atol=0.01)


def test_greedy_acceptance_is_argmax():
    s = Sampler(GenerationOptions(greedy=True))
    assert s.accept_draft(LOGITS, 0) == (True, 0)
    assert s.accept_draft(LOGITS, 3) == (False, 0)

"""Choosing the next token from logits: greedy, or temperature / top-k / top-p sampling."""

from __future__ import annotations

import numpy as np

from native_host.engine.options import GenerationOptions


class Sampler:
    """One per generation (or per batch row): owns the random generator, so a seed fixes the tokens."""

    def __init__(self, options: GenerationOptions) -> None:
        self.options = options
        self.rng = np.random.default_rng(options.seed)

    def probs(self, logits: np.ndarray) -> np.ndarray:
        """The distribution sampling draws from, after temperature, top-k and top-p (float64, sums to 1)."""
        o = self.options
        scaled = logits.astype(np.float64) / o.temperature
        if 0 < o.top_k < scaled.shape[-1]:
            kth = np.partition(scaled, -o.top_k)[-o.top_k]
            scaled = np.where(scaled < kth, -np.inf, scaled)
        scaled -= scaled.max()
        p = np.exp(scaled)
        p /= p.sum()
        if o.top_p < 1.0:
            order = np.argsort(-p, kind="stable")
            cumulative = np.cumsum(p[order])
            # keep the smallest set whose mass reaches top_p (the token that crosses it included)
            keep = int(np.searchsorted(cumulative, o.top_p) + 1)
            mask = np.zeros_like(p, dtype=bool)
            mask[order[:keep]] = True
            p = np.where(mask, p, 0.0)
            p /= p.sum()
        return p

    def choose(self, logits: np.ndarray) -> int:
        if self.options.greedy:
            return int(np.argmax(logits))
        p = self.probs(logits)
        return int(self.rng.choice(p.shape[-1], p=p))

    def accept_draft(self, logits: np.ndarray, draft_token: int) -> tuple[bool, int]:
        """Speculative acceptance of a deterministic (prompt-lookup) draft token.

        Greedy: accept when it is the argmax. Sampling: accept with probability p(draft); on rejection
        draw from p with the draft removed and renormalised. With a point-mass draft distribution this is
        the standard rule (Leviathan et al. 2023), so the output distribution is unchanged.
        Returns (accepted, token to emit).
        """
        if self.options.greedy:
            best = int(np.argmax(logits))
            return best == draft_token, best
        p = self.probs(logits)
        if self.rng.random() < p[draft_token]:
            return True, draft_token
        p[draft_token] = 0.0
        total = p.sum()
        if total <= 0:  # p was a point mass on the draft; cannot happen after a rejection, but be safe
            return True, draft_token
        return False, int(self.rng.choice(p.shape[-1], p=p / total))

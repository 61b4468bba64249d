"""Choosing the next token from logits: greedy, or temperature / top-k / top-p sampling."""

from __future__ import annotations

import numpy as np

from native_host.engine.options import GenerationOptions


class Sampler:
    """One per generation (or per batch row): owns the random generator, so a seed fixes the tokens."""

    def __init__(self, options: GenerationOptions, ending_ids: np.ndarray | None = None) -> None:
        self.options = options
        self.rng = np.random.default_rng(options.seed)
        # tokens that would end the output (eos, stop strings), banned for the first min_new_tokens
        self.ending_ids = ending_ids if ending_ids is not None else np.zeros(0, dtype=np.int64)
        self.emitted = 0  # every choose/accept_draft call decides exactly one output token, in order

    def _masked(self, logits: np.ndarray) -> np.ndarray:
        chosen_before, self.emitted = self.emitted, self.emitted + 1
        if chosen_before >= self.options.min_new_tokens or not self.ending_ids.size:
            return logits
        logits = np.array(logits, dtype=np.float32, copy=True)
        logits[self.ending_ids] = -np.inf
        return logits

    def support(self, logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(token ids in increasing order, their probabilities): the tokens sampling can draw after
        temperature, top-k and top-p; every other token has probability 0.

        The top-k cut comes first and shrinks the work from the vocabulary to ~k tokens (a full-vocabulary
        sort cost ~1.5 ms per row and step, as much as a batch-4 forward pass of the default model).
        Ids stay in increasing order so a draw equals one from the full-vocabulary distribution."""
        o = self.options
        scaled = logits.astype(np.float64) / o.temperature
        if 0 < o.top_k < scaled.shape[-1]:
            kth = np.partition(scaled, -o.top_k)[-o.top_k]
            ids = np.flatnonzero(scaled >= kth)  # ties at the k-th value are all kept
        else:
            ids = np.arange(scaled.shape[-1])
        values = scaled[ids]
        values -= values.max()
        p = np.exp(values)
        p /= p.sum()
        if o.top_p < 1.0:
            order = np.argsort(-p, kind="stable")
            cumulative = np.cumsum(p[order])
            # keep the smallest set whose mass reaches top_p (the token that crosses it included)
            keep = np.sort(order[: int(np.searchsorted(cumulative, o.top_p) + 1)])
            ids, p = ids[keep], p[keep]
            p /= p.sum()
        return ids, p

    def probs(self, logits: np.ndarray) -> np.ndarray:
        """The distribution sampling draws from, over the whole vocabulary (float64, sums to 1)."""
        ids, p = self.support(logits)
        full = np.zeros(logits.shape[-1], dtype=np.float64)
        full[ids] = p
        return full

    def choose(self, logits: np.ndarray) -> int:
        logits = self._masked(logits)
        if self.options.greedy:
            return int(np.argmax(logits))
        ids, p = self.support(logits)
        return int(ids[self.rng.choice(p.shape[-1], p=p)])

    def accept_draft(self, logits: np.ndarray, draft_token: int) -> tuple[bool, int]:
        """Speculative acceptance of a deterministic (prompt-lookup) draft token.

        Greedy: accept when it is the argmax. Sampling: accept with probability p(draft); on rejection
        draw from p with the draft removed and renormalised. With a point-mass draft distribution this is
        the standard rule (Leviathan et al. 2023), so the output distribution is unchanged.
        Returns (accepted, token to emit).
        """
        logits = self._masked(logits)
        if self.options.greedy:
            best = int(np.argmax(logits))
            return best == draft_token, best
        ids, p = self.support(logits)
        at = int(np.searchsorted(ids, draft_token))
        p_draft = float(p[at]) if at < ids.shape[0] and ids[at] == draft_token else 0.0
        if self.rng.random() < p_draft:
            return True, draft_token
        if p_draft > 0:
            p = p.copy()
            p[at] = 0.0
        total = p.sum()
        if total <= 0:  # p was a point mass on the draft; cannot happen after a rejection, but be safe
            return True, draft_token
        return False, int(ids[self.rng.choice(p.shape[-1], p=p / total)])

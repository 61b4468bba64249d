"""Prompt-lookup drafts: when the output's last n-gram occurred earlier, guess that what followed it then
follows it now. Rewriting copies much of its input, so these guesses are often right, and checking k of
them costs one forward pass instead of k."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def propose_draft(context: np.ndarray, max_ngram: int, max_tokens: int) -> list[int]:
    """Up to `max_tokens` tokens that followed the latest earlier occurrence of the context's last n-gram.

    Tries the longest n-gram first (n = max_ngram .. 1); a longer match is a better predictor.
    """
    if max_tokens <= 0:
        return []
    length = context.shape[0]
    for n in range(min(max_ngram, length - 1), 0, -1):
        tail = context[length - n :]
        # windows start at 0 .. length-n-1, so the tail never matches itself
        windows = sliding_window_view(context[: length - 1], n)
        hits = np.flatnonzero((windows == tail).all(axis=1))
        if hits.size:
            start = int(hits[-1]) + n
            return context[start : start + max_tokens].tolist()
    return []

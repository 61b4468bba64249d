"""What the pipeline asks of the model it runs, read from the model dir (its parameter count and context
length in fantasma_model.json, through the engine), never from the model's name.

    kind = model_class(engine)   # ModelClass(parameters, restructures, window_words)

Below RESTRUCTURE_MIN_PARAMETERS (the embedded SmolLM2-135M): the plain paraphrase prompt, windows of at
most MAX_WINDOW_WORDS (also rewrite/windows.py's default), LLM windows only when asked
(`RewriteOptions.llm_windows=True`), exactly as before this module existed. At or above it: the restructuring prompt (rewrite/prompt.py: split, merge, reorder
clauses, plainer words), windows up to RESTRUCTURE_WINDOW_WORDS (bounded by the context), and LLM windows
in `medium` and `strong` by default, their candidates still picked by the identifiability search under
every guard and within the strength's budget. Why these numbers: docs/rewrite.md, "Models above the size
threshold".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# A small model paraphrases short inputs best; longer windows drift and truncate.
MAX_WINDOW_WORDS = 40
# 0.5 B, chosen, not measured (no checkpoint between 135 M and 0.8 B could be run here): the embedded
# 135 M model does not restructure sentences under the guards (docs/train.md, "The shipped adapter") and
# stays below with room; the Qwen3.5-0.8B this class is for (752 M text parameters) and the 1B+
# Llama-family models are above it.
RESTRUCTURE_MIN_PARAMETERS = 500_000_000
# Up to three ordinary sentences: room to merge two and reorder their clauses. Longer windows are one
# edit that changes many words, which the search's budgets (≤ 8% of the words in medium) rarely admit.
RESTRUCTURE_WINDOW_WORDS = 60
# The fixed part of a prompt (instructions + worked example, ~200 tokens) with room to spare, and an
# upper bound of tokens per English word; a window and its answer (≤ 1.6× its length) must fit the rest.
PROMPT_TOKENS = 512
TOKENS_PER_WORD = 2


@dataclass(frozen=True)
class ModelClass:
    parameters: int  # fantasma_model.json `parameters` (estimated for old model dirs)
    restructures: bool  # asked to restructure sentences, windows on by default
    window_words: int  # the longest window group_windows builds for this model


def model_class(engine: Any) -> ModelClass:
    parameters = int(getattr(engine, "parameters", 0) or 0)
    if parameters < RESTRUCTURE_MIN_PARAMETERS:
        return ModelClass(parameters, False, MAX_WINDOW_WORDS)
    context = int(getattr(engine, "context_length", 0) or 0)
    room = (context - PROMPT_TOKENS) // (TOKENS_PER_WORD * 3)  # window + answer of 1.6 × + slack
    return ModelClass(parameters, True, max(1, min(RESTRUCTURE_WINDOW_WORDS, room)))


def windows_on(llm_windows: bool | None, kind: ModelClass) -> bool:
    """`RewriteOptions.llm_windows` as given, or by the model's class when None (the default)."""
    return kind.restructures if llm_windows is None else llm_windows

"""What a caller asks for (GenerationOptions) and what it gets back (GenerationResult)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

# "abandoned": the caller's `abandon` test said the output so far can no longer be used.
FinishReason = Literal["eos", "stop", "length", "cancelled", "abandoned"]


@dataclass(frozen=True)
class GenerationOptions:
    max_new_tokens: int = 256
    greedy: bool = True
    temperature: float = 0.8
    top_p: float = 0.95
    top_k: int = 50  # 0 = no top-k cut
    seed: int | None = None
    # Penalties on tokens already seen (sampling.py): presence as OpenAI and vLLM define it (a flat
    # subtraction from the logit of every token the output already has; 0 = off), repetition as
    # transformers' RepetitionPenaltyLogitsProcessor (the logit of every prompt or output token divided
    # by it when positive, multiplied when negative; 1 = off).
    presence_penalty: float = 0.0
    repetition_penalty: float = 1.0
    stop_strings: tuple[str, ...] = ()
    # No eos and no token containing a stop string before this many new tokens (a rewrite must not stop
    # halfway: a 135M model often does). 0 = off.
    min_new_tokens: int = 0
    # Called with the output's text after each token (stop string trimmed, thoughts left out); True ends
    # the output there, finish reason "abandoned". A rewrite's candidate that has failed a guard it cannot
    # pass any more stops decoding (rewrite/llm_windows.py). Not part of equality: options that differ
    # only in it decode the same tokens up to the stop.
    abandon: Callable[[str], bool] | None = field(default=None, compare=False, repr=False)
    # Speed features (issue 7). Each can be switched off for comparison and for tests; with greedy
    # decoding none of them changes the tokens.
    speculative: bool = True  # prompt-lookup drafts verified in one forward pass
    draft_tokens: int = 8  # most tokens drafted per verification pass
    draft_ngram: int = 3  # longest n-gram matched against the context (falls back to shorter ones)
    adaptive_draft: bool = True  # shrink the draft after a miss, grow it back while drafts are accepted
    reuse_prefix: bool = True  # start from states cached by Engine.warm_prefix when the prompt starts with it

    def __post_init__(self) -> None:
        if self.max_new_tokens < 0:
            raise ValueError("max_new_tokens must be >= 0")
        if self.min_new_tokens < 0:
            raise ValueError("min_new_tokens must be >= 0")
        if not self.greedy:
            if self.temperature <= 0:
                raise ValueError("temperature must be > 0 when sampling (use greedy=True instead)")
            if not 0 < self.top_p <= 1:
                raise ValueError("top_p must be in (0, 1]")
            if self.top_k < 0:
                raise ValueError("top_k must be >= 0")
        if self.repetition_penalty <= 0:
            raise ValueError("repetition_penalty must be > 0 (1 = off)")
        if self.draft_tokens < 1 or self.draft_ngram < 1:
            raise ValueError("draft_tokens and draft_ngram must be >= 1")
        if isinstance(self.stop_strings, str):
            raise ValueError("stop_strings must be a tuple of strings, not one string")
        if any(not s for s in self.stop_strings):
            raise ValueError("stop_strings must not contain an empty string")


@dataclass
class GenerationResult:
    token_ids: list[int]  # generated tokens (eos included when it ended the run)
    text: str  # decoded text, stop string trimmed
    finish_reason: FinishReason
    prompt_tokens: int
    timings: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "token_ids": self.token_ids,
            "text": self.text,
            "finish_reason": self.finish_reason,
            "prompt_tokens": self.prompt_tokens,
            "timings": self.timings,
        }

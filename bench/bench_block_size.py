"""Decode speed against logit drift of the int4 block size, on the random-weight Qwen3.5-0.8B shape.

    .venv/bin/python bench/bench_block_size.py [--blocks 32 64 128] [--rounds 3] [--threads N]

Issue 39's known lever for the engine against llama.cpp: fewer bytes per weight in decode. Our exporter
stores MatMulNBits weights at accuracy level 4 with a block size; MLAS repacks each block with an fp32
scale and an fp32 block sum, 4 + 64/B bits per weight (6 at block 32, 5 at 64, 4.5 at 128), and a decode
step of this shape streams all of them (docs/engine.md, "Decode on the hybrid"). Each block size is
exported from the same checkpoint (bench/bench_qwen35_vs_genai.py builds it, cached in bench/out/) with
`Precision("int4", block_size=B, accuracy_level=4)`, the exporter's own option (`fantasma-export
--block-size`). Measured, all engines loaded in one process and the rounds interleaved (a shared machine's
load then hits each alike):
- decode tok/s: greedy, 64 steps after a 128-token prompt, no speculation (random weights make its
  drafts meaningless), median over rounds;
- drift against the checkpoint in fp32 (transformers, the same 128 prompt tokens): mean KL(reference ||
  int4) per position, the share of positions whose top-1 token agrees, and the perplexity each gives the
  prompt relative to the reference's. Random weights give near-flat logits, so these show how far each
  block size moves the logits, not what a trained model loses (docs/results.md, "Quantization", has
  SmolLM2's perplexity at each block size).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_qwen35_vs_genai import CKPT, OUT, build_checkpoint, export_is_current, export_ours, prompt_ids

PROMPT, STEPS = 128, 64


def model_dir(block: int) -> Path:
    return OUT / ("qwen35_0.8b_ours_int4" if block == 32 else f"qwen35_0.8b_ours_int4_b{block}")


def reference_logits(ids: list[int]) -> np.ndarray:
    """[positions, vocab] fp32 logits of the checkpoint itself (transformers, CPU)."""
    import torch
    from transformers import AutoModelForImageTextToText

    model = AutoModelForImageTextToText.from_pretrained(CKPT, torch_dtype=torch.float32)
    model.eval()
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]))
    logits = out.logits[0].float().numpy()
    del model
    return logits


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def drift(reference: np.ndarray, ours: np.ndarray, ids: list[int]) -> dict[str, float]:
    ref, got = log_softmax(reference), log_softmax(ours)
    kl = float((np.exp(ref) * (ref - got)).sum(axis=-1).mean())
    top1 = float((ref.argmax(-1) == got.argmax(-1)).mean())
    targets = np.array(ids[1:])
    rows = np.arange(len(targets))
    nll_ref, nll_got = -ref[rows, targets].mean(), -got[rows, targets].mean()
    return {"kl": kl, "top1_agree": top1, "ppl_ratio": float(np.exp(nll_got - nll_ref))}


def decode_tok_s(engine, ids: list[int]) -> float:
    from native_host.engine import GenerationOptions

    options = GenerationOptions(max_new_tokens=STEPS, speculative=False, reuse_prefix=False)
    result = engine.generate(ids, options)
    return float(result.timings["decode_tokens_per_s"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int)
    args = parser.parse_args()
    from native_host.engine import Engine

    OUT.mkdir(parents=True, exist_ok=True)
    if not (CKPT / "text_params.json").is_file():
        build_checkpoint()
    for block in args.blocks:
        if not export_is_current(model_dir(block)):
            print(f"exporting block {block} ...", flush=True)
            export_ours(model_dir(block), block)
            Engine.prepare(model_dir(block), threads=args.threads)
    ids = prompt_ids(PROMPT)
    reference = reference_logits(ids)
    engines = {block: Engine.load(model_dir(block), threads=args.threads) for block in args.blocks}
    rows: dict[int, dict] = {}
    for block, engine in engines.items():
        # logits at every prompt position, for the drift against the reference
        states = engine.runner.empty_states(1, PROMPT + 1)
        logits, _ = engine.runner.forward(np.array([ids]), states, keep=PROMPT)
        engine.runner.release_binding()
        rows[block] = {**drift(reference[:-1], logits[0][:-1], ids), "tok_s": []}
        rows[block]["bytes"] = sum(p.stat().st_size for p in model_dir(block).glob("*.onnx*"))
    for _ in range(args.rounds):
        for block, engine in engines.items():
            rows[block]["tok_s"].append(decode_tok_s(engine, ids))
    base = statistics.median(rows[args.blocks[0]]["tok_s"])
    print(
        f"{'block':>6}{'MB':>8}{'decode tok/s':>14}{'vs first':>10}{'KL':>10}{'top1 agree':>12}{'ppl ratio':>11}"
    )
    for block, row in rows.items():
        speed = statistics.median(row["tok_s"])
        print(
            f"{block:>6}{row['bytes'] / 2**20:>8.0f}{speed:>14.2f}{speed / base:>9.2f}x{row['kl']:>10.4f}"
            f"{row['top1_agree']:>12.3f}{row['ppl_ratio']:>11.4f}   rounds {[round(t, 2) for t in row['tok_s']]}"
        )
    print(f"at {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

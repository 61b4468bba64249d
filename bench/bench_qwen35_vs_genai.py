"""Our Qwen3.5 int4 export vs onnxruntime-genai's and llama.cpp's, on a random checkpoint of the exact 0.8B text shape.

    .venv/bin/python bench/bench_qwen35_vs_genai.py [--rebuild-peer] [--threads N] [--trials N]
        [--llamacpp-python PATH] [--against TREE ...]

Builds (once, cached under bench/out/) a random-weight Qwen3_5ForConditionalGeneration with the
Qwen3.5-0.8B text shape in the real VLM layout (bf16 save_pretrained; the vision tower is shrunk to
one tiny block: both exporters ignore it), exports it with ours (every run) and with
`python -m onnxruntime_genai.models.builder -p int4 -e cpu` (cached), then measures:
- load time and peak RSS (512-token prefill + 128 decode steps) of each peer alone in its own
  subprocess (ours after `Engine.prepare`, which `fantasma setup` runs after its export: the
  load-time checks are not part of a user's start-up);
- prefill tok/s at 128 and 512 tokens and greedy decode tok/s (64 steps after a 128-token prompt)
  in short trials, one subprocess per trial, the peers interleaved with rotating order: on a shared
  machine other load comes and goes, and interleaving lets it hit every peer alike. Reported: medians
  over trials, and ratios as medians of per-trial ratios. (All peers in one process was tried: ours
  then ran ~10% slower than alone, the sessions' thread pools interfere.)
Peers: ours (our graph on our engine's runner: IO binding, states updated in place), genai (its graph
on its own runtime), genai-graph (its graph on plain onnxruntime with IO binding, states as fresh
outputs: separates the graphs from the runtimes), llamacpp (llama-cpp-python, Q4_0, when available).
`--block-size N` adds ours exported with int4 block size N (the default export is block 32, like
llama.cpp's Q4_0): a coarser block stores fewer scale bytes per weight, which a memory-bound decode step
reads every token; it is a quantization change, so its tokens differ. `--against TREE` adds our engine as it was in another checkout of this repository (a `git worktree` or
`git archive` of an older commit) as a peer: its own exporter writes its own model dir from the same
checkpoint (cached per tree), and its children import that tree's `native_host` (PYTHONPATH), so old and
new decode are measured in the same run, interleaved, whatever the machine's speed that hour.
Same intra-op thread count for all. End to end = one fresh process: load + 128-token prompt + 128
greedy tokens (what a user waits for on a first request), interleaved like the speed trials.

llama.cpp is optional and never part of `make test`: llama-cpp-python is sdist-only, so it is built in
its own venv (docs/engine.md has the command) and named with --llamacpp-python (or the
FANTASMA_LLAMACPP_PYTHON variable; the current interpreter is used when it can import llama_cpp).
The checkpoint is converted with the matching llama.cpp source's `convert_hf_to_gguf.py --no-mtp`
(the sdist is fetched once with that venv's pip into bench/out/) and quantized to Q4_0 with
`llama_model_quantize`; both cached. Without it the peer is skipped with a message.

Goals: prefill >= 1.0x both peers at 128 and 512 tokens, decode not slower than onnxruntime-genai's nor
than `--against` the previous engine, start-up <= llama.cpp's, end to end >= 1.1x llama.cpp, peak RSS
<= 1.1x genai's. Current figures: docs/results.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "out"
CKPT = OUT / "qwen35_0.8b_random"
OURS = OUT / "qwen35_0.8b_ours_int4"
PEER = OUT / "qwen35_0.8b_genai_int4"
GGUF_F16 = OUT / "qwen35_0.8b_f16.gguf"
GGUF_Q4 = OUT / "qwen35_0.8b_q4_0.gguf"
LLAMA_FTYPE_MOSTLY_Q4_0 = 2
PREFILL_LENGTHS = (128, 512)
DECODE_PROMPT, DECODE_STEPS = 128, 128
TEXT_SHAPE = dict(  # Qwen3.5-0.8B (DESIGN.md)
    vocab_size=248320,
    hidden_size=1024,
    intermediate_size=3584,
    num_hidden_layers=24,
    num_attention_heads=8,
    num_key_value_heads=2,
    head_dim=256,
    linear_num_key_heads=16,
    linear_num_value_heads=16,
    linear_key_head_dim=128,
    linear_value_head_dim=128,
    linear_conv_kernel_dim=4,
    max_position_embeddings=262144,
    rope_parameters={
        "rope_type": "default",
        "rope_theta": 10_000_000.0,
        "partial_rotary_factor": 0.25,
        "mrope_section": [11, 11, 10],
        "mrope_interleaved": True,
    },
    tie_word_embeddings=True,
    eos_token_id=248046,
)
TINY_VISION = dict(depth=1, hidden_size=64, intermediate_size=128, num_heads=2, out_hidden_size=1024)


def build_checkpoint() -> None:
    import torch
    from transformers import Qwen3_5Config, Qwen3_5ForConditionalGeneration

    from export.qwen_tokenizer import CHAT_TEMPLATE, build_tokenizer

    print(f"building random checkpoint in {CKPT} ...", flush=True)
    torch.manual_seed(0)
    config = Qwen3_5Config(text_config=TEXT_SHAPE, vision_config=TINY_VISION, tie_word_embeddings=True)
    model = Qwen3_5ForConditionalGeneration(config).to(torch.bfloat16)
    text_params = sum(p.numel() for n, p in model.named_parameters() if "language_model" in n)
    model.save_pretrained(CKPT)
    build_tokenizer().save(str(CKPT / "tokenizer.json"))
    (CKPT / "tokenizer_config.json").write_text(json.dumps({"chat_template": CHAT_TEMPLATE}))
    (CKPT / "text_params.json").write_text(json.dumps({"text_params": text_params}))
    print(f"  {text_params / 1e6:.0f} M text parameters", flush=True)


def export_ours(out: Path = OURS, block_size: int = 32, head_block_size: int | None = None) -> float:
    from export.graph import Precision
    from export.qwen35 import export
    from export.registry import ExportOptions

    start = time.perf_counter()
    precision = Precision("int4", block_size=block_size, accuracy_level=4, head_block_size=head_block_size)
    export(CKPT, out, ExportOptions(precision=precision))
    return time.perf_counter() - start


def export_peer() -> float:
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", str(CKPT), "-o", str(PEER)]
    subprocess.run([*cmd, "-p", "int4", "-e", "cpu"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def export_is_current(out: Path) -> bool:
    """`out` holds an export written after the last change to this tree's exporter."""
    meta = out / "fantasma_model.json"
    sources = Path(__file__).resolve().parent.parent.glob("export/*.py")
    return meta.is_file() and meta.stat().st_mtime > max(p.stat().st_mtime for p in sources)


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and p.suffix in (".onnx", ".data"))


def prompt_ids(n: int, seed: int = 0) -> list[int]:
    return np.random.default_rng(seed).integers(0, 248044, n).tolist()  # below the special tokens


# --- measured in a child process ------------------------------------------------------------------
class OursRunner:
    """Our engine's runner (native_host/engine), as the host uses it: key/value in preallocated buffers
    and conv/recurrent states updated in place (both checked at load), IO binding, logits only for the
    last position."""

    def __init__(self, model_dir: Path, threads: int) -> None:
        from native_host.engine.config import read_config
        from native_host.engine.runner import Runner

        # the tokenizer (0.7 s for 248k tokens) is left out, as genai's figure leaves out its own
        config, states = read_config(model_dir)
        self.runner = Runner.open(model_dir, config, states, threads=threads)
        self.capacity = max(*PREFILL_LENGTHS, DECODE_PROMPT + DECODE_STEPS) + 1

    def reset(self) -> None:
        self.states = self.runner.empty_states(1, capacity=self.capacity)

    def step(self, ids: list[int]) -> int:
        logits, self.states = self.runner.forward(np.asarray([ids], dtype=np.int64), self.states, keep=1)
        return int(logits[0, -1].argmax())


class PeerGraphRunner:
    """onnxruntime-genai's graph on plain onnxruntime, driven exactly like ours (same session options,
    IO binding): isolates what the exporters built from what the two runtimes do."""

    def __init__(self, model_dir: Path, threads: int) -> None:
        import onnxruntime as ort

        self.ort = ort
        head_size = json.loads((model_dir / "genai_config.json").read_text())["model"]["decoder"]["head_size"]
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(
            str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self.shapes = {
            v.name: [
                1
                if d == "batch_size"
                else 0
                if d == "past_sequence_length"
                else head_size
                if isinstance(d, str)
                else d
                for d in v.shape
            ]
            for v in self.session.get_inputs()
            if v.name.startswith("past")
        }

    def reset(self) -> None:
        self.states = {
            n: self.ort.OrtValue.ortvalue_from_numpy(np.zeros(s, np.float32)) for n, s in self.shapes.items()
        }
        self.length = 0

    def step(self, ids: list[int]) -> int:
        positions = np.arange(self.length, self.length + len(ids), dtype=np.int64)
        self.length += len(ids)
        binding = self.session.io_binding()
        binding.bind_cpu_input("input_ids", np.asarray([ids], dtype=np.int64))
        binding.bind_cpu_input("attention_mask", np.ones((1, self.length), dtype=np.int64))
        binding.bind_cpu_input(
            "position_ids", np.ascontiguousarray(np.broadcast_to(positions, (3, 1, len(ids))))
        )
        for name, value in self.states.items():
            binding.bind_ortvalue_input(name, value)
        binding.bind_output("logits")
        outputs_of = {
            n: n.replace("past_key_values", "present").replace("past.", "present.") for n in self.states
        }
        for name in outputs_of.values():
            binding.bind_output(name)
        self.session.run_with_iobinding(binding)
        outputs = binding.get_outputs()
        for name, value in zip(outputs_of, outputs[1:], strict=True):
            self.states[name] = value
        return int(outputs[0].numpy()[0, -1].argmax())


class PeerRunner:
    """onnxruntime-genai's own generator loop (greedy)."""

    def __init__(self, model_dir: Path, threads: int) -> None:
        import onnxruntime_genai as og

        # Same intra-op thread count as ours (genai reads it from genai_config.json).
        config_path = model_dir / "genai_config.json"
        genai_config = json.loads(config_path.read_text())
        genai_config["model"]["decoder"]["session_options"]["intra_op_num_threads"] = threads
        config_path.write_text(json.dumps(genai_config, indent=4))
        self.og = og
        config = og.Config(str(model_dir))
        config.clear_providers()
        self.model = og.Model(config)

    def reset(self) -> None:
        params = self.og.GeneratorParams(self.model)
        params.set_search_options(
            max_length=max(*PREFILL_LENGTHS, DECODE_PROMPT + DECODE_STEPS) + 1, do_sample=False
        )
        self.generator = self.og.Generator(self.model, params)
        self.first = True

    def step(self, ids: list[int]) -> int:
        if self.first:
            self.generator.append_tokens(ids)
            self.first = False
        else:
            self.generator.generate_next_token()
        return int(self.generator.get_next_tokens()[0])


class LlamaCppRunner:
    """llama.cpp through llama-cpp-python's low-level calls: one decode per step, last logits only."""

    def __init__(self, model_path: Path, threads: int) -> None:
        import llama_cpp

        self.lib = llama_cpp
        self.llm = llama_cpp.Llama(
            model_path=str(model_path),
            n_ctx=1024,
            n_batch=512,
            n_ubatch=512,
            n_threads=threads,
            n_threads_batch=threads,
            logits_all=False,
            verbose=False,
        )
        self.n_vocab = self.llm.n_vocab()

    def reset(self) -> None:
        ctx = self.llm._ctx.ctx
        if hasattr(self.lib, "llama_get_memory"):  # recurrent + attention memory both cleared
            self.lib.llama_memory_clear(self.lib.llama_get_memory(ctx), True)
        else:
            self.lib.llama_kv_self_clear(ctx)
        self.llm.reset()

    def step(self, ids: list[int]) -> int:
        self.llm.eval(ids)
        logits = self.lib.llama_get_logits_ith(self.llm._ctx.ctx, -1)
        return int(np.ctypeslib.as_array(logits, shape=(self.n_vocab,)).argmax())


RUNNERS = {"ours": OursRunner, "peer": PeerRunner, "peer_graph": PeerGraphRunner, "llamacpp": LlamaCppRunner}
DECODE_TRIAL_STEPS = 64  # greedy decode steps per speed trial


def measure_memory(kind: str, model_dir: Path, threads: int) -> dict:
    """One peer alone in this process: load time and peak RSS over a 512-token prefill + 128 decode steps."""
    start = time.perf_counter()
    runner = RUNNERS[kind](model_dir, threads)
    load_s = time.perf_counter() - start
    runner.reset()
    runner.step(prompt_ids(max(PREFILL_LENGTHS), seed=1))
    runner.reset()
    token = runner.step(prompt_ids(DECODE_PROMPT, seed=3))
    for _ in range(DECODE_STEPS):
        token = runner.step([token])
    return {"load_s": load_s, "peak_rss_mb": peak_rss_mb()}


def measure_speed(kind: str, model_dir: Path, threads: int) -> dict[str, float]:
    """One short speed trial of one peer (its own process; the parent interleaves the peers)."""
    runner = RUNNERS[kind](model_dir, threads)
    runner.reset()
    runner.step(prompt_ids(16, seed=9))  # warm-up: first-run allocations and prepacking
    rates = {}
    for n in PREFILL_LENGTHS:
        runner.reset()
        start = time.perf_counter()
        runner.step(prompt_ids(n, seed=n))
        rates[f"prefill_{n}_tok_s"] = n / (time.perf_counter() - start)
    runner.reset()
    token = runner.step(prompt_ids(DECODE_PROMPT, seed=3))
    start = time.perf_counter()
    for _ in range(DECODE_TRIAL_STEPS):
        token = runner.step([token])
    rates["decode_tok_s"] = DECODE_TRIAL_STEPS / (time.perf_counter() - start)
    return rates


def measure_end_to_end(kind: str, model_dir: Path, threads: int) -> dict[str, float]:
    """A first request in a fresh process: load + 128-token prompt + 128 greedy tokens (imports excluded)."""
    start = time.perf_counter()
    runner = RUNNERS[kind](model_dir, threads)
    loaded = time.perf_counter()
    runner.reset()
    token = runner.step(prompt_ids(DECODE_PROMPT, seed=5))
    prefilled = time.perf_counter()
    for _ in range(DECODE_STEPS - 1):
        token = runner.step([token])
    done = time.perf_counter()
    return {
        "e2e_s": done - start,
        "e2e_load_s": loaded - start,
        "e2e_prefill_s": prefilled - loaded,
        "e2e_decode_s": done - prefilled,
    }


def peak_rss_mb() -> float:
    """VmHWM: unlike ru_maxrss it restarts at exec, so the parent's RSS at fork does not leak in."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_child(
    arguments: list[str], threads: int, python: str | None = None, tree: Path | None = None
) -> dict:
    """This script in a fresh process; with `tree`, `native_host` is imported from that checkout."""
    import os

    cmd = [python or sys.executable, __file__, *arguments, "--threads", str(threads)]
    env = {**os.environ, "PYTHONPATH": str(tree)} if tree is not None else None
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def tree_label(tree: Path) -> str:
    """`ours@<short commit>` for a git checkout, else `ours@<directory name>`."""
    probe = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return f"ours@{probe.stdout.strip() if probe.returncode == 0 else tree.name}"


def export_in_tree(tree: Path, label: str, threads: int) -> Path:
    """The checkpoint exported by another checkout's exporter (int4, block 32, accuracy level 4, as
    ours), cached under bench/out/ by label; prepared with that tree's Engine.prepare where it has one."""
    import os

    out = OUT / f"qwen35_0.8b_{label.replace('@', '_at_')}_int4"
    if (out / "fantasma_model.json").is_file():
        return out
    print(f"exporting with {label}'s exporter ({tree}) ...", flush=True)
    export_script = (
        "import sys; from pathlib import Path; from export.graph import Precision; "
        "from export.qwen35 import export; from export.registry import ExportOptions; "
        "export(Path(sys.argv[1]), Path(sys.argv[2]), "
        "ExportOptions(precision=Precision('int4', block_size=32, accuracy_level=4)))"
    )
    # after the rename: the checks cache is keyed by the final path (as in `fantasma setup`)
    prepare_script = (
        "import sys; from pathlib import Path; from native_host.engine import Engine\n"
        "if hasattr(Engine, 'prepare'): Engine.prepare(Path(sys.argv[1]), threads=int(sys.argv[2]))"
    )
    partial = out.with_name(out.name + ".partial")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-c", export_script, str(CKPT), str(partial)], check=True, env=env)
    partial.rename(out)
    subprocess.run([sys.executable, "-c", prepare_script, str(out), str(threads)], check=True, env=env)
    return out


def lower_is_better(metric: str) -> bool:
    """Times (…_s) and sizes (…_mb); rates end in tok_s."""
    return metric.endswith(("_s", "_mb")) and not metric.endswith("tok_s")


def find_llamacpp(explicit: str | None) -> str | None:
    """An interpreter that can import llama_cpp, or None."""
    import os

    for candidate in (explicit, os.environ.get("FANTASMA_LLAMACPP_PYTHON"), sys.executable):
        if not candidate:
            continue
        probe = subprocess.run([candidate, "-c", "import llama_cpp"], capture_output=True)
        if probe.returncode == 0:
            return candidate
    return None


def build_gguf(python: str) -> None:
    """Q4_0 GGUF of the checkpoint: convert with the llama.cpp source matching the installed
    llama-cpp-python (its sdist, fetched once with that interpreter's pip), quantize with its library."""
    import os
    import tarfile

    if GGUF_Q4.is_file():
        return
    version = subprocess.run(
        [python, "-c", "import llama_cpp; print(llama_cpp.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    source = OUT / f"llama_cpp_python-{version}"
    if not (source / "vendor/llama.cpp/convert_hf_to_gguf.py").is_file():
        print(f"fetching the llama-cpp-python {version} sdist for convert_hf_to_gguf.py ...", flush=True)
        pip = [python, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(OUT)]
        subprocess.run([*pip, f"llama-cpp-python=={version}"], check=True, capture_output=True)
        with tarfile.open(OUT / f"llama_cpp_python-{version}.tar.gz") as archive:
            members = [m for m in archive.getmembers() if "/vendor/llama.cpp/" in m.name and m.isfile()]
            # the converter, its `conversion` package and gguf-py: every Python file of the source tree
            wanted = [m for m in members if m.name.endswith(".py") or "/gguf-py/" in m.name]
            archive.extractall(OUT, members=wanted, filter="data")
    converter = source / "vendor/llama.cpp/convert_hf_to_gguf.py"
    env = {**os.environ, "PYTHONPATH": str(source / "vendor/llama.cpp/gguf-py")}
    if not GGUF_F16.is_file():
        print("converting the checkpoint to GGUF (f16) ...", flush=True)
        cmd = [sys.executable, str(converter), str(CKPT), "--outfile", str(GGUF_F16), "--outtype", "f16"]
        subprocess.run([*cmd, "--no-mtp"], check=True, env=env, capture_output=True)
    print("quantizing to Q4_0 ...", flush=True)
    quantize = (
        "import sys, llama_cpp as l; p = l.llama_model_quantize_default_params(); "
        f"p.ftype = {LLAMA_FTYPE_MOSTLY_Q4_0}; "
        "sys.exit(l.llama_model_quantize(sys.argv[1].encode(), sys.argv[2].encode(), p))"
    )
    subprocess.run([python, "-c", quantize, str(GGUF_F16), str(GGUF_Q4)], check=True, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rebuild-peer", action="store_true", help="re-run onnxruntime-genai's builder")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--trials", type=int, default=4, help="speed trials per peer, interleaved")
    parser.add_argument("--measure-memory", choices=tuple(RUNNERS), help=argparse.SUPPRESS)
    parser.add_argument("--measure-speed", choices=tuple(RUNNERS), help=argparse.SUPPRESS)
    parser.add_argument("--measure-e2e", choices=tuple(RUNNERS), help=argparse.SUPPRESS)
    parser.add_argument("--llamacpp-python", help="an interpreter with llama-cpp-python installed")
    parser.add_argument(
        "--block-size",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="also measure ours exported with int4 block size N (default export: 32)",
    )
    parser.add_argument(
        "--head-block-size",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="also measure ours exported with the lm_head (tied embedding) at int4 block size N",
    )
    parser.add_argument(
        "--against",
        type=Path,
        action="append",
        default=[],
        metavar="TREE",
        help="also measure our engine and exporter as in this checkout of an older commit",
    )
    parser.add_argument("--no-genai", action="store_true", help="leave onnxruntime-genai out (shorter runs)")
    parser.add_argument(
        "--reuse-exports",
        action="store_true",
        help="skip re-exporting ours (and -b/-h variants) when the dir is newer than every export/*.py",
    )
    parser.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_memory:
        print(json.dumps(measure_memory(args.measure_memory, args.dir, args.threads)))
        return 0
    if args.measure_speed:
        print(json.dumps(measure_speed(args.measure_speed, args.dir, args.threads)))
        return 0
    if args.measure_e2e:
        print(json.dumps(measure_end_to_end(args.measure_e2e, args.dir, args.threads)))
        return 0

    OUT.mkdir(parents=True, exist_ok=True)
    if not (CKPT / "text_params.json").is_file():
        build_checkpoint()
    text_params = json.loads((CKPT / "text_params.json").read_text())["text_params"]
    # What `fantasma setup` does after its export: the engine's load-time checks run once now, so the
    # loads measured below are the start-up a user waits for (docs/engine.md "Start-up").
    from native_host.engine import Engine

    def export_prepared(label: str, out: Path, block_size: int = 32, head: int | None = None) -> float:
        if args.reuse_exports and export_is_current(out):
            print(f"reusing {label} ({out.name}: newer than this tree's export/*.py)", flush=True)
            return float("nan")
        print(f"exporting {label} ...", flush=True)
        seconds = export_ours(out, block_size, head)
        prepared = Engine.prepare(out, threads=args.threads)
        print(f"  prepared (op check + load-time checks): {prepared}", flush=True)
        return seconds

    ours_export_s = export_prepared("ours (int4)", OURS)
    dirs: dict[str, Path] = {"ours": OURS}
    peer_export_s = float("nan")
    if not args.no_genai:
        if args.rebuild_peer or not (PEER / "genai_config.json").is_file():
            print("exporting peer (onnxruntime-genai builder, int4) ...", flush=True)
            peer_export_s = export_peer()
        dirs.update(peer=PEER, peer_graph=PEER)

    llamacpp_python = find_llamacpp(args.llamacpp_python)
    pythons: dict[str, str | None] = dict.fromkeys(dirs)
    trees: dict[str, Path] = {}  # ours@<commit> peers: our runner from another checkout
    variants: list[str] = []  # ours-b<N> / ours-h<N>: this tree, another int4 block size
    for block_size in args.block_size:
        label, out = f"ours-b{block_size}", OUT / f"qwen35_0.8b_ours_int4_b{block_size}"
        export_prepared(label, out, block_size)
        dirs[label], pythons[label] = out, None
        variants.append(label)
    for head_block_size in args.head_block_size:
        label, out = f"ours-h{head_block_size}", OUT / f"qwen35_0.8b_ours_int4_h{head_block_size}"
        export_prepared(label, out, 32, head_block_size)
        dirs[label], pythons[label] = out, None
        variants.append(label)
    for tree in args.against:
        label = tree_label(tree.resolve())
        dirs[label], trees[label] = export_in_tree(tree.resolve(), label, args.threads), tree.resolve()
        pythons[label] = None
    if llamacpp_python is None:
        print("llama.cpp peer skipped: no interpreter with llama_cpp (pass --llamacpp-python)", flush=True)
    else:
        try:
            build_gguf(llamacpp_python)
            dirs["llamacpp"], pythons["llamacpp"] = GGUF_Q4, llamacpp_python
        except subprocess.CalledProcessError as exc:
            tail = (exc.stderr or b"").decode(errors="replace").strip().splitlines()[-3:]
            print(f"llama.cpp peer skipped: building its GGUF failed: {' | '.join(tail)}", flush=True)

    def child(mode: str, kind: str) -> dict:
        runner = "ours" if kind in trees or kind in variants else kind
        return run_child(
            [mode, runner, "--dir", str(dirs[kind])], args.threads, pythons[kind], trees.get(kind)
        )

    rows: dict[str, dict[str, float]] = {}
    for kind in dirs:
        rows[kind] = child("--measure-memory", kind)
        print(f"  memory {kind}: {rows[kind]}", flush=True)
    rates: dict[str, dict[str, list[float]]] = {kind: {} for kind in rows}
    kinds = list(rows)
    for trial in range(args.trials):
        shift = trial % len(kinds)
        for kind in kinds[shift:] + kinds[:shift]:
            for mode in ("--measure-speed", "--measure-e2e"):
                for metric, value in child(mode, kind).items():
                    rates[kind].setdefault(metric, []).append(value)
        print(
            f"  speed trial {trial + 1}/{args.trials}: { {k: round(rates[k]['decode_tok_s'][-1], 1) for k in kinds} }",
            flush=True,
        )
    peers = [kind for kind in kinds if kind != "ours"]
    ratios: dict[str, dict[str, float]] = {kind: {} for kind in peers}
    for metric, ours_rates in rates["ours"].items():
        rows["ours"][metric] = statistics.median(ours_rates)
        for kind in peers:
            rows[kind][metric] = statistics.median(rates[kind][metric])
            pairs = zip(ours_rates, rates[kind][metric], strict=True)
            if lower_is_better(metric):  # the peer's over ours, so > 1 means ours is better
                ratios[kind][metric] = statistics.median(p / o for o, p in pairs)
            else:
                ratios[kind][metric] = statistics.median(o / p for o, p in pairs)
    rows["ours"]["export_s"] = ours_export_s
    for kind in ("peer", "peer_graph"):
        if kind in rows:
            rows[kind]["export_s"] = peer_export_s
            rows[kind]["size_mb"] = dir_bytes(PEER) / 1e6
    for label in [*trees, *variants]:
        rows[label]["size_mb"] = dir_bytes(dirs[label]) / 1e6
        rows[label]["export_s"] = float("nan")  # trees: cached; variants: not timed
    rows["ours"]["size_mb"] = dir_bytes(OURS) / 1e6
    if "llamacpp" in rows:
        rows["llamacpp"]["size_mb"] = GGUF_Q4.stat().st_size / 1e6
        rows["llamacpp"]["export_s"] = float("nan")
    fp32_mb = text_params * 4 / 1e6  # analytic: every text parameter as float32 (a fp32 export's size)

    keys = [
        "load_s",
        "prefill_128_tok_s",
        "prefill_512_tok_s",
        "decode_tok_s",
        "e2e_s",
        "e2e_load_s",
        "e2e_prefill_s",
        "e2e_decode_s",
        "peak_rss_mb",
        "size_mb",
        "export_s",
    ]
    names = {
        "peer": "genai",
        "peer_graph": "genai-graph",
        "llamacpp": "llama.cpp",
        **{t: t for t in [*trees, *variants]},
    }
    print(
        f"\nQwen3.5-0.8B shape, random weights, {text_params / 1e6:.0f} M text params, {args.threads} threads"
    )
    if "peer" in rows:
        print(
            "genai = its graph on its runtime; genai-graph = its graph driven like ours (plain onnxruntime);"
        )
    print(
        "ratios: > 1 = ours better (times, MB: peer / ours; rates: ours / peer); trial metrics: median of per-trial ratios"
    )
    header = f"{'metric':<20}{'ours':>10}" + "".join(f"{names[k]:>13}{'ours vs':>9}" for k in peers)
    print(header)
    for key in keys:
        line = f"{key:<20}{rows['ours'][key]:>10.2f}"
        for kind in peers:
            value = rows[kind][key]
            ours = rows["ours"][key]
            ratio = ratios[kind].get(
                key, (value / ours if lower_is_better(key) else ours / value) if value else float("nan")
            )
            line += f"{value:>13.2f}{ratio:>9.2f}"
        print(line)
    print(
        f"int4 size / fp32 size (fp32 = params x 4 B = {fp32_mb:.0f} MB): {rows['ours']['size_mb'] / fp32_mb:.1%}"
    )
    (OUT / "qwen35_vs_genai.json").write_text(
        json.dumps({"rows": rows, "ratios": ratios, "rates": rates, "fp32_mb": fp32_mb}, indent=2)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

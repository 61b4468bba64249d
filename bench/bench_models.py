"""A `medium` rewrite with the hybrid Qwen3.5-0.8B shape next to the embedded model, in the same run.

    nice .venv/bin/python bench/bench_models.py [--repeats 2] [--threads N] [--realistic [--levers]]
        [--only embedded|hybrid-0.8B]

What it measures, for each model, in a fresh process of its own (what the host is when it starts):
- first rewrite after start: from spawning the process to the first `medium` rewrite's result (Python
  start-up, imports, loading the model and the embedder, warming the prompt prefix, the rewrite);
- warm `medium` time per 100 words: the same text rewritten `--repeats` more times in that process
  (other seeds), seconds per 100 words of input, median;
- peak RSS of that process (VmHWM) over all of it.
Against what: the embedded model (SmolLM2-135M-Instruct int4 with the shipped adapter, as `fantasma setup`
installs it) in the same run, so the two see the same machine load; the figures are printed side by side
with hybrid / embedded ratios. Each model runs with the pipeline's defaults for it: the embedded model
scores the search's fluency guard and writes no windows (`llm_windows` off for small models), the hybrid
model, above the size threshold, also writes the restructuring windows that join the search's pool
(docs/rewrite.md, "Models above the size threshold").

The hybrid is a random-weight checkpoint of the exact Qwen3.5-0.8B text shape (bench/bench_qwen35_vs_genai.py
builds it, cached under bench/out/; exported here with our int4 exporter when the export is older than
export/*.py). Random weights never write eos, so each window's candidates run to the pipeline's token
budget (1.6 × the window's tokens + 12) and every candidate is refused by the guards: the hybrid's time is
an upper bound of what a trained 0.8B model costs on the same text, and its output equals the search's
rule edits. The embedded model is installed with `fantasma setup` into bench/out/home (FANTASMA_HOME)
when it is not there yet; both runs read that home, with the profile off (typicality), so no user data
is read.

`--realistic` (issue 39): each window candidate stops after as many tokens as its window's original has,
what a working rewrite writes before its eos (the weights are still random, so every candidate is still
refused by the guards; the output says so). The hybrid's row then also shows where its time went, from the
engine's own per-call timings: tokens prefilled and seconds of prefill, greedy and sampled decode, the
search's scoring. `--levers` (with `--realistic`) measures each speed lever of issue 39 in the warm process,
one warm rewrite per variant, each the product path with one lever taken away or (for levers the product
has not got) added by the bench, through public calls only (the engine's GenerationOptions of each call,
changed on the way in; no function of the product is replaced), and prints each one's share of the warm rewrite, in wall and in CPU seconds (on a shared machine the
CPU share is the steadier one):
- prefix: the windows' prompts share a token prefix (their longest common prefix, measured here); the
  variant warms exactly that prefix, so every window prefills only its own part (what issue 39's
  deliverable 3 gives: since it is in, the product path hits already and this variant saves nothing);
  its share = the seconds it saves;
- batch: the sampled candidates of all windows as one batch instead of one batch per window: measured on
  the engine alone (`sample_batch` of r rows, k times, against one of k·r rows, same steps), its share =
  the sampled decode seconds times the saving;
- windows: the product path picks, in `medium`, only the sentences the identifiability search says matter
  (llm_windows.select_pieces); the variant gives the restructuring model every sentence again, measured on
  the windows alone (llm_windows.rewrite_windows over both selections) and added to the warm rewrite;
- speculation: the greedy candidate without prompt-lookup drafts (GenerationOptions.speculative off; a
  model whose card warns against greedy decoding, Qwen3.5, has no greedy candidate);
- early stop: a candidate ends once it has failed a guard it cannot pass any more (an invented or added
  number, link, handle, tag or code span: llm_windows.abandon_when); the variant decodes every candidate to
  its end (random weights write such tokens at their own rate, not a trained model's: the count of
  stopped candidates is printed with it);
- preload: the host loads the chosen model with the embedder when it starts (native_host/models/choice.py
  preload); its share of the first rewrite = the load seconds in it.

Goal (issue 27): a user who picks the 0.8B hybrid knows what a rewrite costs next to the default; the
README's "Use a stronger model" quotes the time per 100 words. Current figures: docs/results.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
HOME = OUT / "home"

# ~140 words of forum prose with markers the neutralizer leaves (pet phrases, British words, hedges,
# long and short sentences), so medium has sentences to restructure and rule edits to choose from.
TEXT = (
    "To be fair, I reckon the new parking policy is a bit of a shambles, and at the end of the day "
    "nobody on the committee seems to have actually read the survey we sent round in the spring. "
    "Honestly, the whole thing was decided in one meeting that ran for ten minutes. "
    "The car park behind the library used to be free after six, which suited the evening classes, "
    "whereas now everyone pays the same rate all night, regardless of whether they stay for an hour. "
    "I have asked twice for the figures behind the change and have had no answer at all. "
    "If the council wants people to come into town in the evenings, it should not make it harder "
    "for them, to be fair. "
    "Anyway, I will raise it again at the residents' meeting on the fourth, and I would be glad of "
    "a few more voices there."
)


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class EngineCalls:
    """The engine's own timings of every call a rewrite makes, summed (observation only: the calls and
    their results are the engine's)."""

    KEYS = (
        "prompts",
        "prefilled_tokens",
        "reused_tokens",
        "prefill_s",
        "greedy_tokens",
        "greedy_decode_s",
        "sampled_tokens",
        "sampled_decode_s",
        "score_s",
        "abandoned",  # candidates stopped early (llm_windows.abandon_when)
    )

    def __init__(self, engine: Any, realistic: bool = False) -> None:
        self.engine = engine
        self.prompts: list[list[int]] = []
        # what a variant changes in every call's GenerationOptions (`{"speculative": False}`), and
        # --realistic's budget (original_length)
        self.changes: dict[str, Any] = {}
        self.realistic = realistic
        self.reset()
        generate, sample_batch, score = engine.generate, engine.sample_batch, engine.score
        self.sample_batch_as_is = sample_batch  # the engine's own, for the batch lever on the engine alone

        def timed_generate(prompt_ids: list[int], options: Any = None, *args: Any, **kwargs: Any) -> Any:
            options = self.varied(options)
            result = generate(prompt_ids, options, *args, **kwargs)
            self._add(prompt_ids, result, "greedy")
            self.sums["abandoned"] += result.finish_reason == "abandoned"
            return result

        def timed_sample_batch(prompt_ids: list[int], options_list: Any, **kwargs: Any) -> Any:
            results = sample_batch(prompt_ids, [self.varied(o) for o in options_list], **kwargs)
            if results:  # one prefill, one decode for all rows: the timings are the batch's
                self._add(prompt_ids, results[0], "sampled", sum(len(r.token_ids) for r in results))
                self.sums["abandoned"] += sum(r.finish_reason == "abandoned" for r in results)
            return results

        def timed_score(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return score(*args, **kwargs)
            finally:
                self.sums["score_s"] += time.perf_counter() - started

        engine.generate, engine.sample_batch, engine.score = timed_generate, timed_sample_batch, timed_score

    def reset(self) -> None:
        self.sums = dict.fromkeys(self.KEYS, 0.0)
        self.prompts = []

    def varied(self, options: Any) -> Any:
        """The call's options with the variant's changes, and with --realistic the window's original length
        as the budget."""
        if options is None:
            return options
        changes = dict(self.changes)
        if self.realistic:
            changes["max_new_tokens"] = original_length(options.max_new_tokens)
        return replace(options, **changes) if changes else options

    def _add(self, prompt_ids: list[int], result: Any, kind: str, tokens: int | None = None) -> None:
        timings = result.timings
        reused = int(timings.get("reused_prefix_tokens", 0))
        self.prompts.append(list(prompt_ids))
        self.sums["prompts"] += 1
        self.sums["prefilled_tokens"] += len(prompt_ids) - reused
        self.sums["reused_tokens"] += reused
        self.sums["prefill_s"] += float(timings.get("prefill_s", 0.0))
        self.sums[f"{kind}_tokens"] += len(result.token_ids) if tokens is None else tokens
        self.sums[f"{kind}_decode_s"] += float(timings.get("decode_s", 0.0))

    def common_prefix(self) -> list[int]:
        """The longest token prefix all prompts of the last rewrite share (minus one token: a prompt
        keeps at least one token to prefill)."""
        if not self.prompts:
            return []
        first, n = self.prompts[0], min(len(p) for p in self.prompts) - 1
        for prompt in self.prompts[1:]:
            n = min(n, next((i for i, (a, b) in enumerate(zip(first, prompt, strict=False)) if a != b), n))
        return first[:n]

    def report(self) -> dict:
        return {k: round(v, 3) for k, v in self.sums.items()}


def original_length(budget: int) -> int:
    """--realistic: a candidate stops after as many tokens as its window's original (what a working
    rewrite writes before its eos; random weights never write one). The window's tokens, n, are read back
    from the product's budget (llm_windows.token_budget: int(n × BUDGET_RATIO) + BUDGET_SLACK, exact for
    one n); a budget at the cap (a window of over 90 tokens, longer than any window of this text) stays."""
    from native_host.rewrite import llm_windows
    from native_host.rewrite.options import MAX_NEW_TOKENS

    if budget >= MAX_NEW_TOKENS:
        return budget
    return max(1, math.ceil((budget - llm_windows.BUDGET_SLACK) / llm_windows.BUDGET_RATIO))


def sampled_batch_saving(
    engine: Any, sample_batch: Callable[..., Any], rows_per_window: int, windows: int, steps: int
) -> dict:
    """Seconds (wall and this process's CPU) for `windows` batches of `rows_per_window` sampled rows
    against one batch of all of them, the same number of steps each (no stop string, no eos in reach:
    every row runs `steps`)."""
    from native_host.engine import GenerationOptions

    prompt = engine.encode("The car park behind the library used to be free after six.")
    options = [
        GenerationOptions(max_new_tokens=steps, greedy=False, temperature=0.7, seed=i)
        for i in range(rows_per_window * windows)
    ]
    sample_batch(prompt, options[:rows_per_window])  # warm the batch shapes

    def timed(batches: list[list[Any]]) -> tuple[float, float]:
        started, cpu = time.perf_counter(), time.process_time()
        for batch in batches:
            sample_batch(prompt, batch)
        return time.perf_counter() - started, time.process_time() - cpu

    split = [options[w * rows_per_window : (w + 1) * rows_per_window] for w in range(windows)]
    apart, apart_cpu = timed(split)
    together, together_cpu = timed([options])
    return {
        "apart_s": round(apart, 3),
        "together_s": round(together, 3),
        "apart_cpu_s": round(apart_cpu, 3),
        "together_cpu_s": round(together_cpu, 3),
        "saving": round(1 - together / apart, 4),
        "cpu_saving": round(1 - together_cpu / apart_cpu, 4),
    }


def measure(model_dir: Path, repeats: int, threads: int | None, realistic: bool, levers: bool) -> dict:
    """In the child: the first rewrite, then `repeats` warm ones; prints one JSON line."""
    from native_host import models
    from native_host.rewrite import RewriteOptions, rewrite

    calls: EngineCalls | None = None

    cpu_s: list[
        float
    ] = []  # this process's CPU seconds per rewrite: less stretched by other jobs than wall time

    def once(seed: int) -> tuple[float, dict]:
        options = RewriteOptions(
            strength="medium", model_dir=model_dir, use_profile=False, seed=seed, threads=threads
        )
        if calls is not None:
            calls.reset()
        started, cpu = time.perf_counter(), time.process_time()
        result = rewrite(TEXT, options)
        cpu_s.append(round(time.process_time() - cpu, 3))
        return time.perf_counter() - started, result.to_json()

    started = time.perf_counter()
    engine_load_s = 0.0
    if realistic:  # the budget is set on the engine's calls, so the engine is loaded first (timed with it)
        calls = EngineCalls(models.get_engine(model_dir, threads), realistic=True)
        engine_load_s = time.perf_counter() - started
    _, first = once(0)
    first_s = time.perf_counter() - started
    first["timings"]["load_s"] = float(first["timings"].get("load_s", 0.0)) + engine_load_s
    first_done = time.time()
    engine = models.get_engine(model_dir, threads)
    calls = calls or EngineCalls(engine)
    runs = [once(seed) for seed in range(1, repeats + 1)]
    warm = [s for s, _ in runs]
    warm_calls = calls.report()
    # the levers' variants rerun the last warm rewrite (its seed), each with one lever changed
    product = {"seed": repeats, "s": warm[-1], "cpu_s": cpu_s[-1], "calls": warm_calls, "run": runs[-1][1]}
    product["threads"] = threads
    row_levers = measure_levers(engine, calls, once, first, cpu_s, product) if levers and runs else None
    return {
        "first_done_at": first_done,
        "first_rewrite_s": first_s,
        "warm_s": warm,
        "peak_rss_mb": peak_rss_mb(),
        "windows": len(first["windows"]),
        "candidates": sum(w["candidates"] for w in first["windows"]),
        "windows_passed": sum(1 for w in first["windows"] if w["path"] == "llm"),
        "applied_edits": len((first.get("search") or {}).get("applied", [])),
        "path": first["path"],
        "timings": first["timings"],
        "threads": getattr(engine, "threads", None),
        "engine_calls_last_warm": warm_calls,
        "cpu_s": cpu_s[: repeats + 1],
        "levers": row_levers,
    }


def measure_levers(
    engine: Any,
    calls: EngineCalls,
    once: Callable[[int], tuple[float, dict]],
    first: dict,
    cpu_s: list[float],
    product: dict,
) -> dict:
    """One warm rewrite per variant (module docstring); seconds each, and the engine's calls in each."""
    out: dict[str, Any] = {}
    seed, base = product["seed"], product["run"]
    out["product"] = {k: product[k] for k in ("s", "cpu_s", "calls")} | {"windows": len(base["windows"])}
    prefix = calls.common_prefix()
    # the sampled rows per window: every candidate but the greedy one, where there is one
    greedy = 1 if product["calls"]["greedy_tokens"] else 0
    windows = len(base["windows"])
    rows = max(0, (base["windows"] or [{"candidates": greedy}])[0]["candidates"] - greedy)

    engine.warm_prefix(prefix)  # what a true prefix hit gives: each window prefills its own part
    s, _ = once(seed)
    out["prefix"] = {
        "s": round(s, 3),
        "cpu_s": cpu_s[-1],
        "calls": calls.report(),
        "common_prefix_tokens": len(prefix),
    }
    engine.clear_prefixes()

    if windows and rows > 1:
        steps = max(8, int(calls.sums["sampled_tokens"] / max(1, windows * rows)))
        out["batch"] = sampled_batch_saving(engine, calls.sample_batch_as_is, rows, windows, steps)
        out["batch"]["steps"] = steps

    out["windows"] = every_sentence_windows(engine, calls, product)

    calls.changes = {"speculative": False}  # no prompt-lookup drafts
    s, _ = once(seed)
    out["speculation"] = {"s": round(s, 3), "cpu_s": cpu_s[-1], "calls": calls.report()}

    calls.changes = {"abandon": None}  # every candidate decoded to its end
    s, _ = once(seed)
    out["early_stop"] = {"s": round(s, 3), "cpu_s": cpu_s[-1], "calls": calls.report()}
    calls.changes = {}

    out["preload"] = {"first_load_s": round(float(first["timings"].get("load_s", 0.0)), 3)}
    return out


def every_sentence_windows(engine: Any, calls: EngineCalls, product: dict) -> dict:
    """The windows lever, on the windows alone: llm_windows.rewrite_windows over the windows of every
    sentence against over those the product path picks (the sentences the identifiability search says
    matter most, by the same public functions the pipeline calls), same engine, embedder and options. The
    difference is added to the product's warm rewrite: the search has no more to do with the extra
    windows, since random weights' candidates are all refused."""
    from native_host import models, style
    from native_host.models.size_class import model_class
    from native_host.rewrite import RewriteOptions, llm_windows
    from native_host.rewrite.windows import group_windows, split_pieces
    from native_host.style.identify import Identifiability

    options = RewriteOptions(
        strength="medium", use_profile=False, seed=product["seed"], threads=product["threads"]
    )
    embedder = models.get_embedder(None, product["threads"])  # the one the rewrites use
    neutral, _ = style.neutralize(TEXT, options.neutral_target, options.protected_terms)
    pieces, kind = split_pieces(neutral), model_class(engine)
    weights = Identifiability.load(None).score(neutral).sentences if kind.restructures else None
    picked = llm_windows.select_pieces(pieces, neutral, "medium", kind.restructures, contributions=weights)
    every = llm_windows.select_pieces(pieces, neutral, "strong")  # strong: every rewritable sentence

    def seconds(selected: set[int]) -> tuple[float, float, int]:
        windows = group_windows(pieces, selected, kind.window_words)
        calls.reset()
        started, cpu = time.perf_counter(), time.process_time()
        llm_windows.rewrite_windows(windows, engine, embedder, options, None, {}, lambda k: None)
        return time.perf_counter() - started, time.process_time() - cpu, len(windows)

    product_wall, product_cpu, _ = seconds(picked)
    wall, cpu, n = seconds(every)
    return {
        "s": round(product["s"] + wall - product_wall, 3),
        "cpu_s": round(product["cpu_s"] + cpu - product_cpu, 3),
        "calls": calls.report(),
        "windows": n,
    }


def run_child(model_dir: Path, repeats: int, threads: int | None, flags: list[str]) -> dict:
    env = {**os.environ, "FANTASMA_HOME": str(HOME), "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, __file__, "--child", str(model_dir), "--repeats", str(repeats), *flags]
    if threads:
        cmd += ["--threads", str(threads)]
    spawned = time.time()
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    row = json.loads(done.stdout.strip().splitlines()[-1])
    row["start_to_first_s"] = row.pop("first_done_at") - spawned
    return row


def embedded_dir() -> Path:
    """The embedded model dir in bench/out/home, installed by `fantasma setup` when missing."""
    env = {**os.environ, "FANTASMA_HOME": str(HOME)}
    probe = "from native_host import paths; print(paths.default_model_dir())"
    found = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, env=env)
    where = Path(found.stdout.strip())
    if not (where / "fantasma_model.json").is_file():
        print(f"installing the embedded model into {HOME} (fantasma setup) ...", flush=True)
        subprocess.run([sys.executable, "-m", "native_host.cli", "setup"], check=True, env=env)
    return where


def hybrid_dir(threads: int | None) -> Path:
    sys.path.insert(0, str(REPO / "bench"))
    from bench_qwen35_vs_genai import CKPT, OURS, build_checkpoint, export_is_current, export_ours

    OUT.mkdir(parents=True, exist_ok=True)
    if not (CKPT / "text_params.json").is_file():
        build_checkpoint()
    if not export_is_current(OURS):
        print(f"exporting the 0.8B-shape hybrid (int4) to {OURS} ...", flush=True)
        export_ours(OURS)
        from native_host.engine import Engine

        Engine.prepare(OURS, threads=threads)  # what `fantasma setup` runs after its export
    return OURS


def words() -> int:
    return len(TEXT.split())


def machine() -> str:
    """The commit (and whether the tree has uncommitted changes), the CPU and its core count."""

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True).stdout.strip()

    cpus = [line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")]
    cpu = cpus[0].split(":", 1)[1].strip() if cpus else platform.processor()
    dirty = " (+ uncommitted changes)" if git("status", "--porcelain") else ""
    return f"commit {git('rev-parse', '--short', 'HEAD')}{dirty}; {cpu}, {os.cpu_count()} cores"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=2, help="warm rewrites after the first (default 2)")
    parser.add_argument("--threads", type=int, help="intra-op threads (default: the pipeline's own)")
    parser.add_argument(
        "--realistic", action="store_true", help="candidates stop after their window's original length"
    )
    parser.add_argument("--levers", action="store_true", help="with --realistic: each speed lever's share")
    parser.add_argument("--only", choices=("embedded", "hybrid-0.8B"), help="measure one model only")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        row = measure(args.child, args.repeats, args.threads, args.realistic, args.levers)
        print(json.dumps(row))
        return 0

    embedded = embedded_dir()  # `fantasma setup` installs the embedder both models rewrite with
    models = {"embedded": lambda: embedded, "hybrid-0.8B": lambda: hybrid_dir(args.threads)}
    chosen = {name: find() for name, find in models.items() if args.only in (None, name)}
    mode = (
        "realistic: each candidate stops after as many tokens as its window's original has (what a working "
        "rewrite writes); random weights still, so every window candidate is refused by the guards"
        if args.realistic
        else "candidates run to the token budget (random weights never write eos)"
    )
    print(f"{machine()}; text {words()} words; {args.repeats} warm repeats; {mode}", flush=True)
    flags = [flag for flag, on in (("--realistic", args.realistic), ("--levers", args.levers)) if on]
    rows = {}
    for name, model_dir in chosen.items():
        print(f"measuring {name} ({model_dir}) ...", flush=True)
        rows[name] = run_child(model_dir, args.repeats, args.threads, flags if name != "embedded" else [])
        print(f"  {json.dumps(rows[name])}", flush=True)

    def per_100(row: dict) -> float:
        return statistics.median(row["warm_s"]) / words() * 100

    lines = [
        ("medium s / 100 words (warm)", per_100),
        ("first rewrite after start s", lambda r: r["start_to_first_s"]),
        ("peak RSS MB", lambda r: r["peak_rss_mb"]),
        ("LLM windows (first run)", lambda r: r["windows"]),
        ("window candidates", lambda r: r["candidates"]),
        ("edits applied", lambda r: r["applied_edits"]),
    ]
    print(
        f"{'':<28}" + "".join(f"{name:>14}" for name in rows) + (f"{'ratio':>10}" if len(rows) == 2 else "")
    )
    for label, value in lines:
        values = [value(row) for row in rows.values()]
        ratio = ""
        if len(values) == 2:
            ratio = f"{values[1] / values[0]:>9.2f}x" if values[0] else f"{'-':>10}"
        print(f"{label:<28}" + "".join(f"{v:>14.2f}" for v in values) + ratio)
    hybrid = rows.get("hybrid-0.8B")
    if hybrid and hybrid.get("levers"):
        print_levers(hybrid)
    return 0


def print_levers(row: dict) -> None:
    """Each lever's share: the seconds it saves over the warm rewrite without it, in wall time and in this
    process's CPU time (on a shared machine the CPU share is the steadier one)."""
    levers = row["levers"]
    product = levers["product"]
    print(
        f"levers (warm rewrite on the product path: {product['s']:.2f} s wall, {product['cpu_s']:.2f} s CPU, "
        f"{words()} words)"
    )

    def line(name: str, wall: tuple[float, float], cpu: tuple[float, float] | None, note: str) -> None:
        shares = f"wall {wall[0]:>7.2f} s = {wall[0] / wall[1]:>6.1%}"
        if cpu is not None:
            shares += f"; CPU {cpu[0]:>7.2f} s = {cpu[0] / cpu[1]:>6.1%}"
        print(f"  {name:<12} saves {shares}  {note}")

    if "prefix" in levers:
        p = levers["prefix"]
        line(
            "prefix",
            (product["s"] - p["s"], product["s"]),
            (product["cpu_s"] - p["cpu_s"], product["cpu_s"]),
            f"(common prefix {p['common_prefix_tokens']} tokens; prefilled "
            f"{product['calls']['prefilled_tokens']:.0f} -> {p['calls']['prefilled_tokens']:.0f} tokens)",
        )
    if "batch" in levers:
        b = levers["batch"]
        saved = product["calls"]["sampled_decode_s"] * b["saving"]
        line(
            "batch",
            (saved, product["s"]),
            (product["calls"]["sampled_decode_s"] * b["cpu_saving"], product["s"]),
            f"(the sampled rows of all windows in one batch: {b['apart_s']} s -> {b['together_s']} s on the "
            f"engine alone, {b['steps']} steps; times the sampled decode's {product['calls']['sampled_decode_s']} s)",
        )
    for name, key in (("windows", "windows"), ("speculation", "speculation"), ("early stop", "early_stop")):
        if key in levers:
            off = levers[key]
            note = "(the variant without it -> the product path)"
            if key == "early_stop":
                decoded = ("greedy_tokens", "sampled_tokens")
                note = (
                    f"({product['calls'].get('abandoned', 0):.0f} candidates stopped early; tokens decoded "
                    f"{sum(off['calls'][k] for k in decoded):.0f} -> {sum(product['calls'][k] for k in decoded):.0f})"
                )
            line(
                name,
                (off["s"] - product["s"], off["s"]),
                (off["cpu_s"] - product["cpu_s"], off["cpu_s"]),
                note,
            )
    load = levers["preload"]["first_load_s"]
    line("preload", (load, row["first_rewrite_s"]), None, "(model + embedder load inside the first rewrite)")


if __name__ == "__main__":
    sys.exit(main())

"""A finished run's training selection redone with other ranking weights, without training: for each
weight on the Delta family (`SelectionConfig.w_delta`), which examples the ranking picks and what they
remove from their chunks' identifiability, family by family. The cheap look at a ranking change before
a round is spent on it.

    python -m train.reselect RUN --rounds 3 [--w-delta 0,0.1,0.25,0.5,1] --out FILE.json
    python -m train.reselect RUN --rounds 3 --probe-windows 30 --candidates 8 --from-round 3 --out FILE.json

`--probe-windows N`: instead of the finished rounds' candidates, K candidates for the next N windows of
the run's seeded draw (past every window a round used) from round `--from-round`'s model, written
beside FILE (resumable) and selected alone: what a next round with that K would have to choose from.

Every candidate that passes the selection's checks is scored once (fluency by RUN/round_0/model, the
base export, as in the recipe; identifiability in its chunk as train/select.py reads it); the ranking
for each weight is then a choice among those scores.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

from native_host.rewrite import guards
from train.generate import read_records
from train.select import ChunkIdentifiability, SelectionConfig, select_record

Z_FAMILIES = ("char3", "delta", "function_words")


def survivors(
    records: list[dict], corpora: list[str], judge_dir: Path, config: SelectionConfig, seed: int = 0
) -> tuple[list[dict], Counter]:
    """Per window (latest record of an id) with a candidate that passes every check: its candidates'
    similarity and identifiability drops; and the count of candidates each check dropped."""
    from tqdm import tqdm

    from native_host.engine import Engine

    latest = {rec["id"]: rec for rec in records}
    judge = Engine.load(judge_dir)
    chunks = ChunkIdentifiability(corpora, seed)
    windows: list[dict] = []
    dropped: Counter[str] = Counter()
    for record in tqdm(latest.values(), desc="select", unit="window"):
        _, outcome = select_record(record, judge, config, chunks.scorer(record))
        dropped.update(v.guard for v in outcome.values() if isinstance(v, guards.Verdict))
        texts = {c["n"]: c for c in record["candidates"]}
        kept = [
            {
                "n": n,
                "rewrite": texts[n]["text"],
                "similarity": texts[n]["similarity"],
                "score_drop": v["identifiability_drop"],
                "z_drop": v["z_drop"],
                "licensed_determiners": v["licensed_determiners"],
            }
            for n, v in outcome.items()
            if isinstance(v, dict)
        ]
        if kept:
            windows.append({"id": record["id"], "source": record["text"], "candidates": kept})
    return windows, dropped


def probe_records(
    run_dir: Path, rounds: int, windows: int, candidates: int, from_round: int, out_path: Path
) -> tuple[list[dict], dict]:
    """K candidates for the next `windows` windows of the run's draw, from round `from_round`'s model."""
    from train.data import TrainingWindow, training_windows
    from train.generate import GenerateConfig, generate

    config = json.loads((run_dir / "recipe.json").read_text())["config"]
    used = {
        rec["id"]
        for r in range(1, rounds + 1)
        for rec in read_records(run_dir / f"round_{r}" / "candidates.jsonl")
    }
    known = [
        TrainingWindow(**json.loads(line))
        for line in (run_dir / "windows.jsonl").read_text().splitlines()
        if line.strip()
    ]
    # recipe._extend_windows' draw: the larger draw repeats the smaller one's order past `known`
    larger = training_windows(tuple(config["corpora"]), len(known) + windows, config["seed"])
    draw = {w.id: w for w in known + larger[len(known) :]}
    fresh = [w for w in draw.values() if w.id not in used][:windows]
    generation = {**config["generate"], "candidates": candidates}
    summary = generate(
        fresh, run_dir / f"round_{from_round}" / "model", out_path, GenerateConfig(**generation)
    )
    return read_records(out_path), summary


def choose(windows: list[dict], config: SelectionConfig) -> list[dict]:
    """Each window's best candidate by train/select.py's ranking (similarity + score drop + Delta z)."""

    def rank(c: dict) -> float:
        return (
            c["similarity"]
            + config.w_identifiability * c["score_drop"]
            + config.w_delta * c["z_drop"].get("delta", 0.0)
        )

    out = []
    for window in windows:
        best: dict = max(window["candidates"], key=rank)
        out.append({"id": window["id"], "source": window["source"], **best})
    return out


def summarize(chosen: list[dict]) -> dict:
    """Mean drops of the chosen examples and how many of them raise each family's z (> 0.001)."""
    if not chosen:
        return {"examples": 0}
    z = {f: [e["z_drop"].get(f, 0.0) for e in chosen] for f in Z_FAMILIES}
    return {
        "examples": len(chosen),
        "mean_similarity": round(statistics.fmean(e["similarity"] for e in chosen), 4),
        "mean_score_drop": round(statistics.fmean(e["score_drop"] for e in chosen), 5),
        "mean_z_drop": {f: round(statistics.fmean(v), 4) for f, v in z.items()},
        "raising_z": {f: sum(1 for x in v if x < -0.001) for f, v in z.items()},
        "with_licensed_determiner_drop": sum(1 for e in chosen if e.get("licensed_determiners")),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.reselect", description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--rounds", type=int, required=True, help="the run's finished rounds 1..N")
    parser.add_argument("--w-delta", default="0,0.1,0.25,0.5,1", help="comma-separated Delta weights")
    parser.add_argument("--min-similarity", type=float, default=SelectionConfig.min_similarity)
    parser.add_argument(
        "--licensed-determiners",
        action="store_true",
        help="a dropped determiner passes when the chunk's Delta and function-word z both fall",
    )
    parser.add_argument("--probe-windows", type=int, default=0, help="select over N fresh windows instead")
    parser.add_argument("--candidates", type=int, default=8, help="candidates per probe window")
    parser.add_argument("--from-round", type=int, help="the round whose model writes the probe (default: N)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    run_dir = Path(args.run)
    corpora = json.loads((run_dir / "recipe.json").read_text())["config"]["corpora"]
    generation = None
    if args.probe_windows:
        probe_path = args.out.with_name(args.out.stem + "-candidates.jsonl")
        records, generation = probe_records(
            run_dir,
            args.rounds,
            args.probe_windows,
            args.candidates,
            args.from_round or args.rounds,
            probe_path,
        )
    else:
        records = [
            rec
            for r in range(1, args.rounds + 1)
            for rec in read_records(run_dir / f"round_{r}" / "candidates.jsonl")
        ]
    config = SelectionConfig(
        min_similarity=args.min_similarity, licensed_determiners=args.licensed_determiners
    )
    windows, dropped = survivors(records, corpora, run_dir / "round_0" / "model", config, args.seed)
    baseline = {e["id"]: e["n"] for e in choose(windows, config)}
    by_weight = {}
    for w in (float(x) for x in args.w_delta.split(",")):
        chosen = choose(windows, dataclasses.replace(config, w_delta=w))
        by_weight[str(w)] = {
            **summarize(chosen),
            "choices_changed_vs_w0": sum(1 for e in chosen if baseline[e["id"]] != e["n"]),
        }
    result = {
        "run": str(run_dir),
        "records": len({r["id"] for r in records}),
        "probe": None
        if not args.probe_windows
        else {
            "windows": args.probe_windows,
            "candidates": args.candidates,
            "from_round": args.from_round or args.rounds,
        },
        "generation": generation,
        "windows_with_a_survivor": len(windows),
        "windows_with_several_survivors": sum(1 for w in windows if len(w["candidates"]) > 1),
        "dropped_by_check": dict(dropped.most_common()),
        "by_w_delta": by_weight,
        "windows": windows,
    }
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "windows"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A finished run's training selection redone with other ranking weights, without training: for each
weight on the Delta family (`SelectionConfig.w_delta`), which examples the ranking picks and what they
remove from their chunks' identifiability, family by family. The cheap look at a ranking change before
a round is spent on it.

    python -m train.reselect RUN --rounds 3 [--w-delta 0,0.1,0.25,0.5,1] --out FILE.json

Every candidate that passes the selection's checks is scored once (fluency by RUN/round_0/model, the
base export, as in the recipe; identifiability in its chunk as train/select.py reads it); the ranking
for each weight is then a choice among those scores.
"""

from __future__ import annotations

import argparse
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
    run_dir: Path, rounds: int, config: SelectionConfig, seed: int = 0
) -> tuple[list[dict], Counter]:
    """Per window (latest record of an id) with a candidate that passes every check: its candidates'
    similarity and identifiability drops; and the count of candidates each check dropped."""
    from tqdm import tqdm

    from native_host.engine import Engine

    run_dir = Path(run_dir)
    corpora = json.loads((run_dir / "recipe.json").read_text())["config"]["corpora"]
    records = {
        rec["id"]: rec
        for r in range(1, rounds + 1)
        for rec in read_records(run_dir / f"round_{r}" / "candidates.jsonl")
    }
    judge = Engine.load(run_dir / "round_0" / "model")
    chunks = ChunkIdentifiability(corpora, seed)
    windows: list[dict] = []
    dropped: Counter[str] = Counter()
    for record in tqdm(records.values(), desc="select", unit="window"):
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
            }
            for n, v in outcome.items()
            if isinstance(v, dict)
        ]
        if kept:
            windows.append({"id": record["id"], "source": record["text"], "candidates": kept})
    return windows, dropped


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
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.reselect", description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--rounds", type=int, required=True, help="select over rounds 1..N's candidates")
    parser.add_argument("--w-delta", default="0,0.1,0.25,0.5,1", help="comma-separated Delta weights")
    parser.add_argument("--min-similarity", type=float, default=SelectionConfig.min_similarity)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    config = SelectionConfig(min_similarity=args.min_similarity)
    windows, dropped = survivors(args.run, args.rounds, config, args.seed)
    baseline = {e["id"]: e["n"] for e in choose(windows, config)}
    by_weight = {}
    for w in (float(x) for x in args.w_delta.split(",")):
        chosen = choose(windows, SelectionConfig(min_similarity=args.min_similarity, w_delta=w))
        by_weight[str(w)] = {
            **summarize(chosen),
            "choices_changed_vs_w0": sum(1 for e in chosen if baseline[e["id"]] != e["n"]),
        }
    result = {
        "run": str(args.run),
        "rounds": args.rounds,
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

#!/usr/bin/env python3
"""Which rule should put a text at "unlikely"? (beside meter_thresholds.py, which moves one boundary)

The meter's score is the mean of three families' figures (char3, delta, function_words). The calibration
at "unlikely" fails on the char 3-gram attacker (docs/results.md), so this probe keeps every family's
figure per text and compares rules: the mean below a boundary, and the mean below it with every family
(or only char3) below a gate. Each text is judged by the attackers as written and with the kept words
masked; texts are grouped by the chunk they came from, so a rule's figure can be read per chunk too.

    place:  .venv/bin/python research/probes/meter_rules.py place OUT.json --from-eval DIR \\
            --from-study research/log/writer-study/…-run{2,…}.json
    rules:  .venv/bin/python research/probes/meter_rules.py rules OUT.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from native_host.eval.attackers import ATTACKERS, mask_kept
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import parse_corpus_spec, training_texts
from native_host.style.identify import Identifiability
from native_host.style.linkability import shown


def _judge(split, texts: list[str], truth: list[str]) -> dict[str, dict[str, list[bool]]]:
    out: dict[str, dict[str, list[bool]]] = {}
    for read_name, read in (("written", str), ("masked", mask_kept)):
        train = [read(c.text) for c in split.train], [c.author for c in split.train]
        out[read_name] = {}
        for k, cls in ATTACKERS.items():
            named = cls().fit(*train).predict([read(t) for t in texts])
            out[read_name][k] = [bool(n == a) for n, a in zip(named, truth, strict=True)]
    return out


def _rows(split, texts: list[str], authors: list[str], chunk_ids: list[str], kinds: list[str]) -> list[dict]:
    meters = {
        a: Identifiability.from_texts(training_texts(split, a), exclude_corpora=(split.corpus,))
        for a in split.authors
    }
    judged = _judge(split, texts, authors)
    rows = []
    for i, text in enumerate(texts):
        report = meters[authors[i]].score(text, sentences=False)
        rows.append(
            {
                "corpus": split.corpus,
                "chunk": chunk_ids[i],
                "kind": kinds[i],
                "chance": 1 / len(split.authors),
                "score": report.score,
                "families": report.families,
                "written": {k: judged["written"][k][i] for k in ATTACKERS},
                "masked": {k: judged["masked"][k][i] for k in ATTACKERS},
            }
        )
    return rows


def from_eval(directory: Path) -> list[dict]:
    options = json.loads((directory / "eval_report.json").read_text())["options"]
    samples = [json.loads(line) for line in (directory / "samples.jsonl").read_text().splitlines() if line]
    rows = []
    for spec in options["corpora"]:
        name, n = parse_corpus_spec(spec)
        split = split_corpus(
            find_corpus(name, load_manifest()),
            n or options["authors"],
            options["chunks_per_author"],
            options["train_chunks_per_author"],
            held_out=options.get("held_out", "chunks"),
        )
        mine = {r["original"]: r for r in samples if r["corpus"] == split.corpus}
        texts, authors, ids, kinds = [], [], [], []
        for j, c in enumerate(split.test):
            for kind in ("original", "rewritten"):
                texts.append(mine[c.text][kind])
                authors.append(c.author)
                ids.append(f"eval:{split.corpus}:{j}")
                kinds.append(kind)
        rows += _rows(split, texts, authors, ids, kinds)
    return rows


def from_study(path: Path, train: int = 30) -> list[dict]:
    state = json.loads(path.read_text(encoding="utf-8"))
    split = split_corpus(
        find_corpus(state["corpus"], load_manifest()),
        len(state["authors"]),
        len(state["chunks"]) // len(state["authors"]),
        train,
        held_out=state.get("held_out", "chunks"),
    )
    texts, authors, ids, kinds = [], [], [], []
    for chunk in state["chunks"]:
        text = chunk["original"]
        for n in range(len(chunk["steps"]) + 1):
            if n:
                step = chunk["steps"][n - 1]
                text = step.get("text_before", text).replace(step["from"], step["to"], 1)
            texts.append(text)
            authors.append(chunk["author"])
            ids.append(f"study:{chunk['id']}")
            kinds.append("original" if n == 0 else "rewritten")
    return _rows(split, texts, authors, ids, kinds)


def _rules() -> dict[str, object]:
    rules: dict[str, object] = {}
    for b in (0.20, 0.25, 0.30):
        rules[f"mean<{b:.2f}"] = lambda r, b=b: shown(r["score"]) < b
        for g in (0.3, 0.4, 0.5):
            rules[f"mean<{b:.2f} & every family<{g}"] = lambda r, b=b, g=g: (
                shown(r["score"]) < b and max(r["families"].values()) < g
            )
            rules[f"mean<{b:.2f} & char3<{g}"] = lambda r, b=b, g=g: (
                shown(r["score"]) < b and r["families"]["char3"] < g
            )
    return rules


def report(rows: list[dict]) -> list[str]:
    lines = [
        f"{'rule':<34} {'texts':>5} {'chunks':>6} {'study':>5}  worst − chance as written | masked  (char3 delta fw wp)"
    ]
    for name, rule in _rules().items():
        below = [r for r in rows if rule(r)]  # type: ignore[operator]
        if not below:
            lines.append(f"{name:<34} {0:>5}")
            continue
        chance = float(np.mean([r["chance"] for r in below]))
        parts = []
        for read in ("written", "masked"):
            accs = [float(np.mean([r[read][k] for r in below])) for k in ATTACKERS]
            parts.append(f"{(max(accs) - chance) * 100:+5.1f} ({' '.join(f'{a * 100:.0f}' for a in accs)})")
        chunks = {r["chunk"] for r in below}
        study = {c for c in chunks if c.startswith("study:")}
        lines.append(f"{name:<34} {len(below):>5} {len(chunks):>6} {len(study):>5}  {parts[0]} | {parts[1]}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    place = sub.add_parser("place")
    place.add_argument("out", type=Path)
    place.add_argument("--from-eval", nargs="*", type=Path, default=[])
    place.add_argument("--from-study", nargs="*", type=Path, default=[])
    rules = sub.add_parser("rules")
    rules.add_argument("placed", type=Path)
    args = parser.parse_args()
    if args.command == "place":
        rows = [r for d in args.from_eval for r in from_eval(d)]
        for study in args.from_study:
            rows += [dict(r, run=study.stem) for r in from_study(study)]
        args.out.write_text(json.dumps(rows) + "\n", encoding="utf-8")
        print(f"{len(rows)} texts placed in {args.out}")
    else:
        print("\n".join(report(json.loads(args.placed.read_text()))))


if __name__ == "__main__":
    main()

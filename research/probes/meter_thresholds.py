#!/usr/bin/env python3
"""Where should the meter's level boundaries be? (the tuning side of eval/calibration.py)

Places test texts at the meter's level (each author's --profile surrogate, trained on that author's
training chunks, the population without the corpus) and says, for each candidate "unlikely" boundary,
how many texts fall below it and each attacker's accuracy there against chance + 10 points. Two sources:
- `--from-eval DIR ...`: the originals and rewrites of `fantasma eval --profile` runs (their samples.jsonl;
  the attackers refitted on the same split, as `fantasma eval` fits them);
- `--corpora ...`: originals only, no rewriting (cheap; for corpora that are not the reported ones).

Usage: .venv/bin/python research/probes/meter_thresholds.py --corpora sotu,russian,problemM:8 \\
       [--chunks-per-author 10] [--from-eval /tmp/run ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from native_host.eval import calibration
from native_host.eval.attackers import ATTACKERS, mask_kept
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import parse_corpus_spec, rival_texts, training_texts
from native_host.style.identify import Identifiability

READ = str  # what the attackers read of a text: as written, or with --masked what the writer keeps masked
RIVALS = (
    ""  # --rivals all|some|none|wrong: what each author's meter holds as rivals ("": as each run was made)
)
SOME_RIVALS, SOME_CHUNKS = 2, 10  # --rivals some: the next 2 candidates only, 10 of their chunks each


def _mode(made_with_rivals: bool) -> str:
    """The rivals each meter holds here: --rivals, else what the eval or study was run with."""
    return RIVALS or ("all" if made_with_rivals else "none")


def _rivals(split, author: str, mode: str, wrong: dict[str, list[str]]) -> dict[str, list[str]] | None:
    """What an author's meter holds as rivals: all the other candidates' training chunks (`all`, what the
    attackers hold), a writer who knows only some suspects and less of their writing (`some`), writers the
    attackers do not hold (`wrong`), or none."""
    if mode == "wrong":
        return wrong
    if mode == "none":
        return None
    every = rival_texts(split, author)
    if mode == "all":
        return every
    names = sorted(every)
    after = [n for n in names if n > author] + [n for n in names if n < author]
    return {n: every[n][:SOME_CHUNKS] for n in after[:SOME_RIVALS]}


BOUNDARIES = [round(x, 2) for x in np.arange(0.10, 0.71, 0.05)]


def _split(spec: str, authors: int, chunks: int, train: int, held_out: str = "chunks"):
    name, n = parse_corpus_spec(spec)
    return split_corpus(find_corpus(name, load_manifest()), n or authors, chunks, train, held_out=held_out)


def _place(
    split, texts: dict[str, list[str]], scores: dict[str, list[float]], unlikely: bool
) -> list[calibration.Placed]:
    """`unlikely`: whether the meters may say "unlikely" (they hold rivals; linkability.says_unlikely)."""
    train = [READ(c.text) for c in split.train], [c.author for c in split.train]
    truth = [c.author for c in split.test]
    named = {
        k: {kind: cls().fit(*train).predict([READ(x) for x in t]) for kind, t in texts.items()}
        for k, cls in ATTACKERS.items()
    }
    out = []
    for kind in texts:
        for i, author in enumerate(truth):
            correct = {k: named[k][kind][i] == author for k in ATTACKERS}
            out.append(
                calibration.Placed(
                    split.corpus, kind, scores[kind][i], 1 / len(split.authors), correct, unlikely
                )
            )
    return out


def from_eval(directory: Path) -> list[calibration.Placed]:
    report = json.loads((directory / "eval_report.json").read_text())
    options = report["options"]
    rows = [json.loads(line) for line in (directory / "samples.jsonl").read_text().splitlines() if line]
    placed = []
    for spec in options["corpora"]:
        split = _split(
            spec,
            options["authors"],
            options["chunks_per_author"],
            options["train_chunks_per_author"],
            options.get("held_out", "chunks"),
        )
        mine = {r["original"]: r for r in rows if r["corpus"] == split.corpus}
        chunks = [mine[c.text] for c in split.test]
        texts = {"original": [r["original"] for r in chunks], "rewritten": [r["rewritten"] for r in chunks]}
        scores = {
            "original": [r["identifiability_before"] for r in chunks],
            "rewritten": [r["identifiability_after"] for r in chunks],
        }
        mode = _mode(bool(options.get("rivals")))
        if mode in ("all", "some") and not options.get("rivals"):  # scored again, holding the rivals
            meters = {
                a: Identifiability.from_texts(
                    training_texts(split, a),
                    exclude_corpora=(split.corpus,),
                    rival_texts=_rivals(split, a, mode, {}),
                )
                for a in split.authors
            }
            authors = [c.author for c in split.test]
            scores = {
                kind: [meters[a].score(t, sentences=False).score for a, t in zip(authors, ts, strict=True)]
                for kind, ts in texts.items()
            }
        placed += _place(split, texts, scores, mode in ("all", "some") or not options["profile"])
    return placed


def originals(spec: str, chunks: int, train: int, held_out: str) -> list[calibration.Placed]:
    split = _split(spec, 3, chunks, train, held_out)
    surrogates = {
        a: Identifiability.from_texts(
            training_texts(split, a),
            exclude_corpora=(split.corpus,),
            rival_texts=_rivals(split, a, _mode(False), {}),
        )
        for a in split.authors
    }
    texts = [c.text for c in split.test]
    scores = [surrogates[c.author].score(c.text, sentences=False).score for c in split.test]
    return _place(split, {"original": texts}, {"original": scores}, _mode(False) in ("all", "some"))


def _study_texts(chunk: dict) -> list[str]:
    """Every text a writer's chunk went through: the original, then the text after each edit."""
    texts = [chunk["original"]]
    for step in chunk["steps"]:
        before = step.get("text_before", texts[-1])
        texts.append(before.replace(step["from"], step["to"], 1))
    return texts


def from_study(path: Path, train: int) -> list[calibration.Placed]:
    """A writer study (research/probes/writer_study.py): its live dir or its exported JSON. Every text the
    writers' chunks went through (original and after each edit), scored by the author's meter made again
    from the study's split, judged by the attackers refitted on the same training chunks."""
    state = json.loads((path / "study.json" if path.is_dir() else path).read_text(encoding="utf-8"))
    held_out = state.get("held_out", "chunks")  # run 1 (2026-12-06) held out chunks
    split = split_corpus(
        find_corpus(state["corpus"], load_manifest()),
        len(state["authors"]),
        len(state["chunks"]) // len(state["authors"]),
        train,
        held_out=held_out,
    )
    mode = _mode(bool(state.get("rivals")))
    wrong: dict[str, list[str]] = {}
    if mode == "wrong":  # two writers of the same corpus the attackers do not hold: the wrong suspects
        wider = split_corpus(
            find_corpus(state["corpus"], load_manifest()),
            len(state["authors"]) + 2,
            len(state["chunks"]) // len(state["authors"]),
            train,
            held_out=held_out,
        )
        wrong = {a: training_texts(wider, a) for a in wider.authors if a not in split.authors}
    meters = {
        a: Identifiability.from_texts(
            training_texts(split, a),
            exclude_corpora=(split.corpus,),
            rival_texts=_rivals(split, a, mode, wrong),
        )
        for a in split.authors
    }
    texts, scores, truth = [], [], []
    for chunk in state["chunks"]:
        for text in _study_texts(chunk):
            texts.append(text)
            scores.append(meters[chunk["author"]].score(text, sentences=False).score)
            truth.append(chunk["author"])
    trained = [READ(c.text) for c in split.train], [c.author for c in split.train]
    named = {k: cls().fit(*trained).predict([READ(t) for t in texts]) for k, cls in ATTACKERS.items()}
    kind = lambda i: "original" if texts[i] in {c["original"] for c in state["chunks"]} else "rewritten"  # noqa: E731
    return [
        calibration.Placed(
            split.corpus,
            kind(i),
            scores[i],
            1 / len(split.authors),
            {k: named[k][i] == truth[i] for k in ATTACKERS},
            mode != "none",
        )
        for i in range(len(texts))
    ]


def scan(placed: list[calibration.Placed]) -> list[str]:
    lines = [f"{'unlikely below':>14} {'texts':>6} {'chance':>7} worst attacker − chance (points)"]
    for b in BOUNDARIES:
        below = [t for t in placed if calibration.level(t.score, max(b, 0.5), b, t.unlikely) == "unlikely"]
        if not below:
            lines.append(f"{b:>14.2f} {0:>6}")
            continue
        chance = float(np.mean([t.chance for t in below]))
        accs = {k: float(np.mean([t.correct[k] for t in below])) for k in ATTACKERS}
        worst = max(accs, key=lambda k: accs[k])
        lines.append(
            f"{b:>14.2f} {len(below):>6} {chance * 100:6.1f}% {(accs[worst] - chance) * 100:+6.1f} ({worst}; "
            + ", ".join(f"{k} {v * 100:.0f}%" for k, v in accs.items())
            + ")"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-eval", nargs="*", type=Path, default=[])
    parser.add_argument("--corpora", default="")
    parser.add_argument("--chunks-per-author", type=int, default=10)
    parser.add_argument("--train-chunks", type=int, default=30)
    parser.add_argument("--held-out", choices=("chunks", "documents"), default="chunks")
    parser.add_argument("--from-study", nargs="*", type=Path, default=[])
    parser.add_argument("--json", type=Path, default=None, help="also write every placed text here")
    parser.add_argument(
        "--masked",
        action="store_true",
        help="the attackers read every text with the words the writer keeps masked",
    )
    parser.add_argument(
        "--rivals",
        choices=("all", "some", "none", "wrong"),
        default="",
        help="each author's meter holds the other candidates as rivals: all their training chunks, "
        f"{SOME_CHUNKS} chunks of {SOME_RIVALS} of them, or none (default: as each study was run); "
        "wrong (studies only): two other writers of the corpus whom the attackers do not hold",
    )
    parser.add_argument(
        "--band",
        action="store_true",
        help='place texts by the score\'s band: below 0.30 is "unlikely" even where the meter holds no rival '
        "(what the meter said before it needed one)",
    )
    args = parser.parse_args()
    global READ, RIVALS
    RIVALS = args.rivals
    if args.masked:
        READ = mask_kept
    placed = [t for d in args.from_eval for t in from_eval(d)]
    for study in args.from_study:
        placed += from_study(study, args.train_chunks)
    for spec in filter(None, args.corpora.split(",")):
        placed += originals(spec, args.chunks_per_author, args.train_chunks, args.held_out)
    if args.band:
        placed = [dataclasses.replace(t, unlikely=True) for t in placed]
    table = calibration.calibrate(placed)
    if args.json:
        args.json.write_text(json.dumps(table["texts"]) + "\n", encoding="utf-8")
    print("\n".join(calibration.format_lines(table)))
    print("\n".join(scan(placed)))


if __name__ == "__main__":
    main()

"""How many distinct chunks stand behind the calibration's "unlikely" row, and which ones an attacker
still names (issue 43). A writer-study run contributes every text its writers made, and runs share their
30 chunks, so the texts at "unlikely" are not independent: this groups them by chunk.

    python research/probes/calibration_chunks.py research/log/writer-study/2026-12-06-problemC-documents-run*.json

For each attacker (as written, and with the words the writer keeps masked): its accuracy over the texts
the meter puts at "unlikely", the mean over chunks of its per-chunk accuracy, and per chunk how many of
its texts there it names.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from native_host.eval.attackers import ATTACKERS, mask_kept
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import rival_texts, training_texts
from native_host.style import linkability
from native_host.style.identify import Identifiability


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", type=Path, help="writer-study exports of one split")
    ap.add_argument("--train-chunks", type=int, default=30)
    ap.add_argument("--rivals", action="store_true", help="each meter holds the other candidates as rivals")
    args = ap.parse_args()
    runs = [json.loads(p.read_text(encoding="utf-8")) for p in args.runs]
    first = runs[0]
    split = split_corpus(
        find_corpus(first["corpus"], load_manifest()),
        len(first["authors"]),
        len(first["chunks"]) // len(first["authors"]),
        args.train_chunks,
        held_out=first["held_out"],
    )
    meters = {
        a: Identifiability.from_texts(
            training_texts(split, a),
            exclude_corpora=(split.corpus,),
            rival_texts=rival_texts(split, a) if args.rivals else None,
        )
        for a in split.authors
    }
    texts: list[str] = []
    where: list[tuple[str, str]] = []  # (chunk, author)
    for run in runs:
        for chunk in run["chunks"]:
            versions = [chunk["original"]]
            for step in chunk["steps"]:
                versions.append(step.get("text_before", versions[-1]).replace(step["from"], step["to"], 1))
            for text in versions:
                # the score's band: without rivals the meter says "possibly" there (linkability.held)
                if linkability.band(meters[chunk["author"]].score(text, sentences=False).score) == "unlikely":
                    texts.append(text)
                    where.append((chunk["id"], chunk["author"]))
    print(f'{len(texts)} texts at "unlikely" from {len({c for c, _ in where})} chunks ({len(runs)} runs)')
    for label, read in (("as written", lambda t: t), ("kept words masked", mask_kept)):
        train = [read(c.text) for c in split.train], [c.author for c in split.train]
        for name, cls in ATTACKERS.items():
            named = cls().fit(*train).predict([read(t) for t in texts])
            per: dict[str, list[bool]] = defaultdict(list)
            for (cid, author), guess in zip(where, named, strict=True):
                per[cid].append(guess == author)
            over_texts = sum(sum(v) for v in per.values()) / len(texts)
            over_chunks = sum(sum(v) / len(v) for v in per.values()) / len(per)
            counts = " ".join(f"{c}:{sum(v)}/{len(v)}" for c, v in sorted(per.items()))
            print(f"  {label:18} {name:15} texts {over_texts:6.1%}  chunks {over_chunks:6.1%}  {counts}")


if __name__ == "__main__":
    main()

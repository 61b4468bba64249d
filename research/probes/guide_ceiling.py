#!/usr/bin/env python3
"""How far can following the guide go? (issue 43: 2/3 of the chunks at "unlikely" within 6 sentences)

For each chunk of a writer study (its meters, as `writer_study.py prepare` made them), greedily by the
guide's `gain`, the sentence of most gain is reduced to what the writer must keep (`reasons.kept_of`: its
names, number words, subject words, pronouns and figures) and the text scored again, up to 12 sentences.
A reduced sentence carries none of the writer's style words, so this is what the best possible rewording
of those sentences could do, less what a rewording's new words add either way. Prints per chunk after how
many sentences the meter says "unlikely" (or never), and how many chunks get there within k sentences.

    python research/probes/guide_ceiling.py STUDY [--band]

`--band`: "unlikely" as the score below 0.30 whether or not the meter holds a rival (the meter of runs
2-9, which held none, said "unlikely" there).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from native_host.guide.analysis import guide
from native_host.style import linkability, reasons

MOST = 12
WITHIN = (0, 1, 2, 3, 4, 5, 6, 8, 12)


def reached(meter, text: str, band: bool) -> int | None:
    """After how many reduced sentences the meter says "unlikely" (None: not within MOST, or no sentence
    left whose reduction lowers the score)."""
    keep = reasons.keep_words(text)
    says = linkability.says_unlikely(meter.mode, meter.rivals)
    reduced: set[str] = set()
    for k in range(MOST + 1):
        score = meter.score(text, sentences=False).score
        if (linkability.band(score) if band else linkability.level(score, says)) == "unlikely":
            return k
        report = guide(meter, text)
        left = [s for s in report.sentences if text[s.start : s.end] not in reduced and s.gain > 0]
        if not left or k == MOST:
            return None
        best = max(left, key=lambda s: s.gain)
        bare = reasons.kept_of(text[best.start : best.end], keep) + "."
        reduced.add(bare)
        text = text[: best.start] + bare + text[best.end :]
    return None


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("study", type=Path)
    parser.add_argument("--band", action="store_true")
    args = parser.parse_args()
    with (args.study / "surrogates.pkl").open("rb") as f:
        meters = pickle.load(f)
    state = json.loads((args.study / "study.json").read_text(encoding="utf-8"))
    found = {}
    for chunk in state["chunks"]:
        found[chunk["id"]] = reached(meters[chunk["author"]], chunk["original"], args.band)
        print(chunk["id"], "never" if found[chunk["id"]] is None else found[chunk["id"]], flush=True)
    counts = {k: sum(1 for r in found.values() if r is not None and r <= k) for k in WITHIN}
    print(
        "chunks at 'unlikely' within k reduced sentences: "
        + ", ".join(f"{k}: {n}" for k, n in counts.items())
    )


if __name__ == "__main__":
    main()

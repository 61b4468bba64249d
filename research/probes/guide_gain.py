"""Which of a sentence's figures tells how much rewording it lowers the meter (issue 43; docs/decisions.md,
"The guide names first what rewording can take off the meter").

    python research/probes/guide_gain.py research/log/writer-study/2026-12-06-problemC-documents-run{3,4,5}.json

Replays every edit of the writer-study runs given (their exported texts and steps) against the meters
the study used (rebuilt: the same split of the same corpus, each author's training chunks), and compares
the meter's drop of each edit with the edited sentence's figures before it (for an edit of sentences N
to M, the span's): `contribution` (the score minus the score without it), its share by `weight`, and
`gain` (the score minus the score with it reduced to the words the writer keeps). Prints Spearman's rho of each with the drops, the
median drop over contribution and over gain, the mean drop by the edited sentence's rank by gain, and how
often an edit of a sentence marked `enough` reached "unlikely".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import parse_corpus_spec, training_texts
from native_host.guide.analysis import guide
from native_host.style import reasons
from native_host.style.identify import Identifiability, score_of


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", type=Path, help="writer-study exports (writer_study.py export)")
    ap.add_argument("--corpus", default="problemC:5")
    ap.add_argument("--chunks-per-author", type=int, default=6)
    ap.add_argument("--train-chunks", type=int, default=30)
    args = ap.parse_args()
    runs = [json.loads(p.read_text(encoding="utf-8")) for p in args.runs]
    name, authors = parse_corpus_spec(args.corpus)
    held_out = {r["held_out"] for r in runs}
    assert len(held_out) == 1, "runs of one split only"
    split = split_corpus(
        find_corpus(name, load_manifest()),
        authors or 5,
        args.chunks_per_author,
        args.train_chunks,
        held_out=held_out.pop(),
    )
    meters = {
        a: Identifiability.from_texts(training_texts(split, a), exclude_corpora=(split.corpus,))
        for a in split.authors
    }
    rows = []  # drop, contribution, weight share, gain, rank by gain, marked enough, reached "unlikely"
    for run in runs:
        for chunk in run["chunks"]:
            ident, text = meters[chunk["author"]], chunk["original"]
            for step in chunk["steps"]:
                if step["from"] not in text:
                    break
                start = text.index(step["from"])
                end = start + len(step["from"])
                report = guide(ident, text)
                assert abs(report.score - step["score_before"]) < 1e-3, "not the meters the study used"
                # the edited span (one sentence, or N to M together) as the guide reads a sentence
                state = ident.state(text)
                kept = reasons.kept_of(text[start:end], reasons.keep_words(text))
                inside = [k for k, s in enumerate(report.sentences) if start <= s.start < end]
                positive = sum(max(0.0, x.weight) for x in report.sentences)
                by_gain = sorted(range(len(report.sentences)), key=lambda k: -report.sentences[k].gain)
                rows.append(
                    (
                        step["score_before"] - step["score_after"],
                        report.score - score_of(state.zs_with(state.delta(start, end, ""))),
                        sum(max(0.0, report.sentences[k].weight) for k in inside) / positive
                        if positive
                        else 0.0,
                        report.score - score_of(state.zs_with(state.delta(start, end, kept))),
                        min((by_gain.index(k) for k in inside), default=len(by_gain)),
                        any(report.sentences[k].enough for k in inside),
                        step["level_after"] == "unlikely",
                    )
                )
                text = text.replace(step["from"], step["to"], 1)
    a = np.array(rows)
    print(f"{len(a)} edits")
    for label, k in (("contribution", 1), ("share by weight", 2), ("gain", 3)):
        print(f"  Spearman of the meter's drop with the sentence's {label}: {spearman(a[:, 0], a[:, k]):.3f}")
    for label, k in (("contribution", 1), ("gain", 3)):
        sel = a[:, k] > 0.01
        print(f"  median drop / {label} (where it is over 0.01): {np.median(a[sel, 0] / a[sel, k]):.2f}")
    for rank in range(4):
        sel = a[:, 4] == rank if rank < 3 else a[:, 4] >= rank
        label = (
            f"{rank + 1}{'st' if rank == 0 else 'nd' if rank == 1 else 'rd' if rank == 2 else 'th or later'}"
        )
        print(f"  edits of the sentence {label} by gain: {int(sel.sum())}, mean drop {a[sel, 0].mean():.3f}")
    enough = a[:, 5] > 0
    print(
        f"  edits of a sentence marked 'enough' (its gain alone reaches \"unlikely\"): {int(enough.sum())}, "
        f"reached it: {int(a[enough, 6].sum())}; edits of other sentences that reached it: "
        f"{int(a[~enough, 6].sum())} of {int((~enough).sum())}"
    )


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Does the guide's ranking agree with the attackers' leave-one-sentence-out drops? (a quick probe)

The agreement part of `fantasma eval --guide` (native_host/eval/guide_vs_attackers.py) without the rewrites, so a
scoring change can be measured in minutes: per test chunk of each corpus, Spearman's rho between the
guide's per-sentence figure and each real attacker's drop in the true author's probability when that
sentence is removed; the mean per corpus, then over corpora, per attacker. The attackers are the eval's
(trained on the training chunks); the guide's surrogate is each author's --profile one (training chunks,
the population without the corpus), with --rivals also the other candidates' training chunks.

Usage: .venv/bin/python research/probes/guide_agreement.py [--by weight|contribution] [--rivals]
       [--corpora federalist,brontes,problemC:5] [--chunks-per-author 10]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from native_host.eval.attackers import ATTACKERS
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.guide_vs_attackers import spearman, without
from native_host.eval.run import parse_corpus_spec, rival_texts, training_texts
from native_host.guide.analysis import guide
from native_host.style.identify import Identifiability


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--by", choices=("weight", "contribution"), default="weight")
    parser.add_argument("--rivals", action="store_true")
    parser.add_argument("--corpora", default="federalist,brontes,problemC:5")
    parser.add_argument("--chunks-per-author", type=int, default=10)
    args = parser.parse_args()
    manifest = load_manifest()
    overall: dict[str, list[float]] = {name: [] for name in ATTACKERS}
    for spec in args.corpora.split(","):
        name, authors = parse_corpus_spec(spec)
        split = split_corpus(find_corpus(name, manifest), authors or 3, args.chunks_per_author, 30)
        surrogates = {
            a: Identifiability.from_texts(
                training_texts(split, a),
                rival_texts=rival_texts(split, a) if args.rivals else None,
                exclude_corpora=(split.corpus,),
            )
            for a in split.authors
        }
        fitted = {
            n: cls().fit([c.text for c in split.train], [c.author for c in split.train])
            for n, cls in ATTACKERS.items()
        }
        rhos: dict[str, list[float]] = {n: [] for n in ATTACKERS}
        for chunk in split.test:
            sentences = guide(surrogates[chunk.author], chunk.text).sentences
            if len(sentences) < 3:
                continue
            figure = [getattr(s, args.by) for s in sentences]
            texts = [chunk.text] + [without(chunk.text, [(s.start, s.end)]) for s in sentences]
            for n, attacker in fitted.items():
                p = attacker.probabilities(texts)
                truth = attacker.classes().index(chunk.author)
                rho = spearman(figure, list(p[0, truth] - p[1:, truth]))
                if rho is not None:
                    rhos[n].append(rho)
        line = ", ".join(f"{n} {np.mean(v):.2f}" for n, v in rhos.items())
        print(f"{split.corpus}: {len(split.test)} chunks; mean rho {line}", flush=True)
        for n, v in rhos.items():
            overall[n].append(float(np.mean(v)))
    print(
        f"by {args.by}{' with rivals' if args.rivals else ''}: mean over corpora "
        + ", ".join(f"{n} {np.mean(v):.3f}" for n, v in overall.items())
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

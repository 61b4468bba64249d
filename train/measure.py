"""Window-level comparison of models on held-out text: the share of windows where at least one of K
candidates passes the pipeline's guards, and what the accepted rewrites change.

The windows come from the test chunks of `fantasma eval`'s own split (the README's settings by default),
which training never sees (train/data.py), cut as the pipeline's `strong` strength cuts them. Candidates
are judged exactly as in training (train/generate.py): the pipeline's prompt, sampling and guard chain.
This is the same quantity as the eval's "windows rewritten by the LLM" at a fraction of its cost (no
attackers, no edit search), for machines where the full eval does not fit.

    python -m train.measure MODEL_DIR OUT.jsonl [--corpora brontes,federalist] [--per-author 10]
                            [--windows 40] [--candidates 3]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from native_host.eval import corpora
from train.data import TrainingWindow, chunk_windows
from train.generate import GenerateConfig, generate


def held_out_windows(
    corpus_names: tuple[str, ...], authors: int, per_author: int, limit: int, seed: int = 0
) -> list[TrainingWindow]:
    manifest = corpora.load_manifest()
    out: list[TrainingWindow] = []
    for name in corpus_names:
        split = corpora.split_corpus(corpora.find_corpus(name, manifest), authors, per_author, 30)
        for i, chunk in enumerate(split.test):
            for j, text in enumerate(chunk_windows(chunk.text)):
                out.append(
                    TrainingWindow(
                        f"{split.corpus}:{i}:{j}", split.corpus, chunk.author, chunk.text[:40], text
                    )
                )
    random.Random(seed).shuffle(out)
    return out[:limit]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.measure", description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir", type=Path)
    parser.add_argument("out", type=Path, help="jsonl of judged windows (resumable); summary printed as JSON")
    parser.add_argument("--corpora", default="brontes,federalist")
    parser.add_argument("--authors", type=int, default=3)
    parser.add_argument("--per-author", type=int, default=10)
    parser.add_argument("--windows", type=int, default=40)
    parser.add_argument("--candidates", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    windows = held_out_windows(
        tuple(args.corpora.split(",")), args.authors, args.per_author, args.windows, args.seed
    )
    summary = generate(
        windows, args.model_dir, args.out, GenerateConfig(candidates=args.candidates, seed=args.seed)
    )
    summary["model_dir"] = str(args.model_dir)
    json.dump(summary, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

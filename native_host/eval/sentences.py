"""Changed sentences to read: the original next to its rewrite, a seeded random sample over all chunks.

Sentences are aligned so that a split ("A, and B." → "A. B.") or a merge comes out as one pair rather
than as unrelated halves, and a stretch of several changed sentences as one pair per sentence. A pair
never reaches across a paragraph break: a reply is shown next to its own rewrite, not folded into the
paragraph before it.
"""

from __future__ import annotations

import difflib
import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from native_host.rewrite.windows import split_pieces

SAMPLE_SIZE = 20
SAMPLES_FILE = "changed_sentences.md"


@dataclass(frozen=True)
class ChangedSentence:
    corpus: str
    author: str
    chunk: int  # index of the test chunk in the eval's order
    original: str
    rewritten: str

    def to_json(self) -> dict:
        return asdict(self)


def sentences(text: str) -> list[str]:
    return [sentence for paragraph in paragraphs(text) for sentence in paragraph]


def paragraphs(text: str) -> list[list[str]]:
    """The sentences of each paragraph (a line break or code between two sentences ends one);
    paragraphs without a sentence to read are left out."""
    out: list[list[str]] = [[]]
    for piece in split_pieces(text):
        if piece.rewritable and piece.text.strip():
            out[-1].append(" ".join(piece.text.split()))
        elif "\n" in piece.text or (not piece.rewritable and piece.text.strip()):
            out.append([])
    return [p for p in out if p]


def changed_pairs(original: str, rewritten: str) -> list[tuple[str, str]]:
    """(original sentence(s), rewritten sentence(s)) for every place the rewrite changed.

    Paragraphs are paired first (in order when both texts have as many; otherwise by their words, a
    run that differs in number becoming one unit), then the sentences inside each pair of paragraphs.
    The two are aligned word by word (typographic quotes, apostrophes and dashes folded, edge
    punctuation ignored, each sentence end a token of its own), and every original sentence is linked
    to the rewritten sentences its words went to: a sentence split into any number of parts comes out
    as one pair with all of them, two sentences merged as one pair, and a sentence whose quote marks
    were only restyled as itself next to its rewrite (never as text dropped or "(removed)")."""
    pairs = []
    for before, after in _paired_paragraphs(paragraphs(original), paragraphs(rewritten)):
        pairs.extend(_sentence_pairs(before, after))
    return pairs


def _paired_paragraphs(old: list[list[str]], new: list[list[str]]) -> list[tuple[list[str], list[str]]]:
    """Each original paragraph with its rewrite. The rewrite keeps paragraphs (no window crosses a
    break), so the counts match and they pair in order; when they do not, paragraphs are matched by
    their words and a stretch that differs in number is one unit (a paragraph dropped or added whole
    is a pair with one side empty)."""
    if len(old) == len(new):
        return list(zip(old, new, strict=True))
    signature = [" ".join(p).translate(_FOLD).lower() for p in old]
    target = [" ".join(p).translate(_FOLD).lower() for p in new]
    out: list[tuple[list[str], list[str]]] = []
    matcher = difflib.SequenceMatcher(None, signature, target, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
            out.extend(zip(old[i1:i2], new[j1:j2], strict=True))
        else:
            out.append(([s for p in old[i1:i2] for s in p], [s for p in new[j1:j2] for s in p]))
    return out


def _sentence_pairs(before: list[str], after: list[str]) -> list[tuple[str, str]]:
    """The changed places of one paragraph and its rewrite (see changed_pairs)."""
    old_tokens, old_owner = _tokens(before)
    new_tokens, new_owner = _tokens(after)
    links = _Components(len(before), len(after))
    matcher = difflib.SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for k in range(i2 - i1):
                links.join(old_owner[i1 + k], new_owner[j1 + k])
        elif op == "replace":
            # Words rewritten in place: their sentences on both sides belong together.
            for i in range(i1, i2):
                for j in range(j1, j2):
                    links.join(old_owner[i], new_owner[j])
    pairs = []
    for old_ids, new_ids in links.groups():
        old = " ".join(before[i] for i in old_ids)
        new = " ".join(after[j] for j in new_ids)
        if old != new:
            pairs.append((old, new))
    return pairs


_FOLD = str.maketrans(
    {
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u2014": "-",
        "\u2013": "-",
        "\u2026": "...",
    }
)
_EDGE = re.compile(r"^\W+|\W+$")
_END = "\x00"  # a sentence end: sentence boundaries that stay in place anchor the alignment


def _tokens(sents: list[str]) -> tuple[list[str], list[int]]:
    """The words of `sents` for alignment, and the index of the sentence each one belongs to."""
    tokens: list[str] = []
    owner: list[int] = []
    for index, sentence in enumerate(sents):
        for word in sentence.translate(_FOLD).lower().split():
            word = _EDGE.sub("", word)
            if word:
                tokens.append(word)
                owner.append(index)
        tokens.append(_END)
        owner.append(index)
    return tokens, owner


class _Components:
    """Union-find over the original sentences (ids 0..n-1) and the rewritten ones (n..n+m-1)."""

    def __init__(self, n_old: int, n_new: int) -> None:
        self.n_old, self.n_new = n_old, n_new
        self.parent = list(range(n_old + n_new))

    def _find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, old: int, new: int) -> None:
        a, b = self._find(old), self._find(self.n_old + new)
        if a != b:
            self.parent[max(a, b)] = min(a, b)

    def groups(self) -> list[tuple[list[int], list[int]]]:
        """Linked sentences in reading order; a sentence linked to nothing (dropped or added whole)
        joins its neighbour's group on the same side rather than standing alone."""
        for x in range(1, self.n_old):
            if self._alone(x):
                self._union(x, x - 1)
        if self.n_old > 1 and self._alone(0):
            self._union(0, 1)
        for j in range(1, self.n_new):
            if self._alone(self.n_old + j):
                self._union(self.n_old + j, self.n_old + j - 1)
        if self.n_new > 1 and self._alone(self.n_old):
            self._union(self.n_old, self.n_old + 1)
        members: dict[int, tuple[list[int], list[int]]] = {}
        for x in range(self.n_old + self.n_new):
            old, new = members.setdefault(self._find(x), ([], []))
            (old if x < self.n_old else new).append(x if x < self.n_old else x - self.n_old)
        return sorted(members.values(), key=lambda g: (g[0][:1] or [self.n_old], g[1][:1] or [self.n_new]))

    def _alone(self, x: int) -> bool:
        root = self._find(x)
        return all(self._find(y) != root for y in range(self.n_old + self.n_new) if y != x)

    def _union(self, a: int, b: int) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def sample_changed(
    chunks: Sequence[tuple[str, str, str, str]], k: int = SAMPLE_SIZE, seed: int = 0
) -> tuple[list[ChangedSentence], int]:
    """k changed places drawn without replacement (all of them when fewer) from chunks given as
    (corpus, author, original, rewritten); returns them in reading order and the number there were."""
    pool = [
        ChangedSentence(corpus, author, index, before, after)
        for index, (corpus, author, original, rewritten) in enumerate(chunks)
        for before, after in changed_pairs(original, rewritten)
    ]
    picked = sorted(random.Random(seed).sample(range(len(pool)), min(k, len(pool))))
    return [pool[i] for i in picked], len(pool)


def write_markdown(path: Path, samples: Sequence[ChangedSentence], total: int, seed: int) -> Path:
    """A two-column table to read: does each rewrite say the same thing in natural English?"""

    def cell(text: str) -> str:
        return text.replace("|", "\\|") or "(removed)"

    lines = [
        f"# {len(samples)} changed sentences (of {total}), seed {seed}",
        "",
        "Read each row: is the rewrite natural English that says what the original says?",
        "",
        "| # | corpus / author | original | rewritten |",
        "|---|---|---|---|",
    ]
    for n, s in enumerate(samples, 1):
        lines.append(f"| {n} | {s.corpus} / {s.author} | {cell(s.original)} | {cell(s.rewritten)} |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path

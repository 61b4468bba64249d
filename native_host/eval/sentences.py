"""Changed sentences to read: the original next to its rewrite, a seeded random sample over all chunks.

Sentences are aligned so that a split ("A, and B." → "A. B.") or a merge comes out as one pair rather
than as unrelated halves, and a stretch of several changed sentences as one pair per sentence.
"""

from __future__ import annotations

import difflib
import random
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
    return [" ".join(p.text.split()) for p in split_pieces(text) if p.rewritable and p.text.strip()]


def changed_pairs(original: str, rewritten: str) -> list[tuple[str, str]]:
    """(original sentence(s), rewritten sentence(s)) for every place the rewrite changed: unchanged
    sentences anchor the alignment, and each changed stretch between them is aligned sentence by
    sentence (a sentence may become two, or two one)."""
    before, after = sentences(original), sentences(rewritten)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    pairs = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        for old, new in _align(before[i1:i2], after[j1:j2]):
            if old != new:
                pairs.append((old, new))
    return pairs


# (original sentences, rewritten sentences) one aligned step may take, and what a step costs on top
# of the two sides' dissimilarity: 1:1 is the usual case, a split or a merge a little dearer, a
# sentence split (or merged) twice dearer still (strong's second pass can split a half again), and a
# sentence left without a partner dearest.
_STEPS = {
    (1, 1): 0.0,
    (1, 2): 0.1,
    (2, 1): 0.1,
    (1, 3): 0.2,
    (3, 1): 0.2,
    (1, 0): 1.0,
    (0, 1): 1.0,
}


def _align(old: list[str], new: list[str]) -> list[tuple[str, str]]:
    """Least-cost alignment of two short sentence lists (dynamic programming over _STEPS)."""

    def dissimilarity(a: list[str], b: list[str]) -> float:
        if not a or not b:
            return 0.0
        words_a, words_b = " ".join(a).lower().split(), " ".join(b).lower().split()
        return 1.0 - difflib.SequenceMatcher(None, words_a, words_b, autojunk=False).ratio()

    inf = float("inf")
    cost = [[inf] * (len(new) + 1) for _ in range(len(old) + 1)]
    step: dict[tuple[int, int], tuple[int, int]] = {}
    cost[0][0] = 0.0
    for i in range(len(old) + 1):
        for j in range(len(new) + 1):
            for (a, b), extra in _STEPS.items():
                if i - a < 0 or j - b < 0 or cost[i - a][j - b] == inf:
                    continue
                c = cost[i - a][j - b] + extra + dissimilarity(old[i - a : i], new[j - b : j])
                if c < cost[i][j]:
                    cost[i][j], step[(i, j)] = c, (a, b)
    pairs = []
    i, j = len(old), len(new)
    while i or j:
        a, b = step[(i, j)]
        pairs.append((" ".join(old[i - a : i]), " ".join(new[j - b : j])))
        i, j = i - a, j - b
    return pairs[::-1]


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

"""Changed sentences to read: the original next to its rewrite, a seeded random sample over all chunks.

Sentences are aligned with difflib over the two sentence lists, so a split ("A, and B." → "A. B.")
or a merge comes out as one pair of several sentences rather than as unrelated halves.
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
    """(original sentences, rewritten sentences) for every place the rewrite changed."""
    before, after = sentences(original), sentences(rewritten)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    pairs = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        pairs.append((" ".join(before[i1:i2]), " ".join(after[j1:j2])))
    return pairs


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

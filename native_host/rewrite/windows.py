"""Cutting a text into pieces the model rewrites one at a time, and putting it back together.

A text is a list of `Piece`s whose concatenation is exactly the input: sentences (rewritable) and the
whitespace / paragraph breaks between them (kept as is), so order and layout survive by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from native_host.models.size_class import MAX_WINDOW_WORDS  # a small model's window, the default
from native_host.style.sentences import sentence_spans

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n\s*|\n")


@dataclass(frozen=True)
class Piece:
    text: str
    start: int  # offset in the text the pieces were cut from
    rewritable: bool  # False for separators and code


def split_sentences(paragraph: str, offset: int = 0) -> list[Piece]:
    """The paragraph's sentences (the one splitter, native_host/style/sentences.py) and the whitespace
    between them."""
    pieces: list[Piece] = []
    cursor = 0
    for start, end in sentence_spans(paragraph):
        if start > cursor:
            pieces.append(Piece(paragraph[cursor:start], offset + cursor, False))
        pieces.append(Piece(paragraph[start:end], offset + start, True))
        cursor = end
    if cursor < len(paragraph):
        pieces.append(Piece(paragraph[cursor:], offset + cursor, False))
    return pieces


def split_pieces(text: str) -> list[Piece]:
    """Sentences and separators; fenced code blocks and blank-only lines are never rewritable."""
    pieces: list[Piece] = []
    cursor = 0
    # Fenced code is kept whole so no window ever cuts through it.
    blocks = re.split(r"(```.*?```)", text, flags=re.DOTALL)
    for block in blocks:
        if block.startswith("```") and block.endswith("```") and len(block) >= 6:
            pieces.append(Piece(block, cursor, False))
            cursor += len(block)
            continue
        local = 0
        for br in _PARAGRAPH_BREAK.finditer(block):
            para = block[local : br.start()]
            pieces.extend(_paragraph_pieces(para, cursor + local))
            pieces.append(Piece(br.group(0), cursor + br.start(), False))
            local = br.end()
        pieces.extend(_paragraph_pieces(block[local:], cursor + local))
        cursor += len(block)
    return [p for p in pieces if p.text]


def _paragraph_pieces(paragraph: str, offset: int) -> list[Piece]:
    stripped = paragraph.strip()
    if not stripped:
        return [Piece(paragraph, offset, False)] if paragraph else []
    lead = len(paragraph) - len(paragraph.lstrip())
    trail = len(paragraph.rstrip())
    out: list[Piece] = []
    if lead:
        out.append(Piece(paragraph[:lead], offset, False))
    out.extend(split_sentences(paragraph[lead:trail], offset + lead))
    if trail < len(paragraph):
        out.append(Piece(paragraph[trail:], offset + trail, False))
    return out


@dataclass(frozen=True)
class Window:
    """Consecutive pieces rewritten together (never across a paragraph break)."""

    first: int  # index of the first piece
    last: int  # index of the last piece (inclusive)
    text: str


def group_windows(pieces: list[Piece], selected: set[int], max_words: int = MAX_WINDOW_WORDS) -> list[Window]:
    """Group selected rewritable pieces into windows of neighbouring sentences in one paragraph.

    A window grows while the next piece is a plain space or a selected sentence and it stays under
    `max_words`; a newline, an unselected sentence or code ends it.
    """
    windows: list[Window] = []
    i = 0
    while i < len(pieces):
        if i not in selected or not pieces[i].rewritable:
            i += 1
            continue
        first = last = i
        words = len(pieces[i].text.split())
        j = i + 1
        while j + 1 < len(pieces):
            gap, nxt = pieces[j], pieces[j + 1]
            if gap.rewritable or "\n" in gap.text or (j + 1) not in selected or not nxt.rewritable:
                break
            nxt_words = len(nxt.text.split())
            if words + nxt_words > max_words:
                break
            words += nxt_words
            last = j + 1
            j += 2
        windows.append(Window(first, last, "".join(p.text for p in pieces[first : last + 1])))
        i = last + 1
    return windows

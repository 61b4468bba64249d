"""A reason offers another word only where writing it lowers the meter (native_host/guide/analysis.py
`swap_lowers`): in the writer study a swap taken as offered ('simply' → 'just') raised the meter."""

from __future__ import annotations

import re

from native_host.guide.analysis import guide, swap_lowers
from native_host.style import reasons

OFFER = re.compile(r"^(?:your new wording brought this in: )?'([^']+)'.*others write '([^']+)'")


def _swapped(text: str, start: int, end: int, word: str, other: str) -> str:
    found = re.search(rf"(?<![\w']){re.escape(word)}(?![\w'])", text[start:end], re.IGNORECASE)
    assert found is not None
    a, b = start + found.start(), start + found.end()
    return text[:a] + (other[:1].upper() + other[1:] if text[a].isupper() else other) + text[b:]


def test_swap_lowers_says_what_scoring_the_swapped_text_afresh_says(hamilton) -> None:
    ident, texts = hamilton
    checked = {True: 0, False: 0}
    for text in texts:
        score = ident.score(text, sentences=False).score
        state = ident.state(text)
        for start, end in ((s.start, s.end) for s in guide(ident, text).sentences):
            check = swap_lowers(state, score, start, end)
            for word, (other, _) in reasons.connectives().items():
                if not other or not re.search(rf"(?<![\w']){word}(?![\w'])", text[start:end], re.IGNORECASE):
                    continue
                fresh = ident.score(_swapped(text, start, end, word, other), sentences=False).score
                assert check(word, other) == (fresh < score), (word, other, text[start:end])
                checked[fresh < score] += 1
    assert checked[True] and checked[False], checked  # both answers were met, so either could be wrong


def test_no_reason_offers_a_swap_that_raises_the_meter(hamilton) -> None:
    ident, texts = hamilton
    offered = 0
    for text in texts:
        score = ident.score(text, sentences=False).score
        for sentence in guide(ident, text).sentences:
            for reason in sentence.reasons:
                found = OFFER.match(reason)
                if found is None:
                    continue
                offered += 1
                word, other = found.groups()
                swapped = _swapped(text, sentence.start, sentence.end, word, other)
                assert ident.score(swapped, sentences=False).score < score, reason
    assert offered  # the check ran on real offers

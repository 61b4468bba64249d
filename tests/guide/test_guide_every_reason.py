"""Every sentence the guide shows as giving something away comes with a reason to act on (writer study
run 7: a sentence named first with no reason left the writer guessing)."""

from __future__ import annotations

from native_host import wording
from native_host.guide.analysis import MIN_REASON_SHARE, guide


def test_a_sentence_that_gives_something_away_always_has_a_reason(hamilton) -> None:
    ident, texts = hamilton
    shown = fallback = 0
    for text in texts:
        for sentence in guide(ident, text).sentences:
            if sentence.share < MIN_REASON_SHARE:
                assert sentence.reasons == []  # shown as 0%: nothing to act on
                continue
            shown += 1
            assert sentence.reasons, text[sentence.start : sentence.end]
            fallback += sentence.reasons == [wording.REASON_WORDING]
    # the fallback is said where nothing else is, not instead of the named reasons
    assert shown > 20 and 0 < fallback < shown / 2, (shown, fallback)

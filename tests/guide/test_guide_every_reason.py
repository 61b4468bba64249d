"""Every sentence the guide shows as giving something away comes with a reason to act on (writer study
run 7: a sentence named first with no reason left the writer guessing)."""

from __future__ import annotations

import re

from native_host.guide.analysis import MIN_REASON_SHARE, guide
from native_host.style import reasons


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
            fallback += sentence.reasons[0].startswith("no one small word or mark stands out here")
    # the fallback is said where nothing else is, not instead of the named reasons
    assert shown > 20 and 0 < fallback < shown / 2, (shown, fallback)


def test_where_no_small_word_stands_out_the_sentences_own_common_words_are_named(hamilton) -> None:
    """The fallback names the sentence's own words that give most away, never a kept one (a name, a number,
    a subject word, a pronoun) nor a small word (writer study run 10: "no one small word or mark stands out
    here" gave nothing to work from)."""
    ident, texts = hamilton
    named = 0
    for text in texts:
        keep = reasons.keep_words(text)
        for sentence in guide(ident, text).sentences:
            said = text[sentence.start : sentence.end]
            for reason in sentence.reasons:
                if not reason.startswith("no one small word or mark stands out here, but"):
                    continue
                words = re.findall(r"'([^']+)'", reason)
                assert 1 <= len(words) <= reasons.CHOSEN, reason
                for word in words:
                    assert word not in keep and not reasons.is_small(word), (word, said)
                    assert re.search(rf"\b{re.escape(word)}\b", said, re.IGNORECASE), (word, said)
                named += 1
    assert named > 0

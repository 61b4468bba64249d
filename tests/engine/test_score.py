"""Engine.score: log-probabilities of given continuations after a shared prefix.

References: one ordinary multi-token pass over prefix + continuation with logits at every position, and
a plain forward token by token at batch 1 as generation feeds them.
"""

from __future__ import annotations

import numpy as np
import pytest

import native_host.engine.engine as engine_module
from native_host.engine import Engine, EngineError
from tests.engine.tiny_hybrid import VOCAB as HYBRID_VOCAB


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    logits = logits.astype(np.float64)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def token_by_token(engine: Engine, prefix: list[int], continuation: list[int]) -> np.ndarray:
    """Batch 1: the prefix, then one token per pass, as plain greedy decoding feeds them."""
    runner = engine.runner
    logits, states = runner.forward(
        np.array([prefix]), runner.empty_states(1, capacity=len(prefix) + len(continuation)), keep=1
    )
    out = []
    for token in continuation:
        out.append(_log_softmax(logits[0, -1])[token])
        logits, states = runner.forward(np.array([[token]]), states, keep=1)
    return np.array(out)


def one_pass(engine: Engine, prefix: list[int], continuation: list[int]) -> np.ndarray:
    """One multi-token pass over prefix + continuation, logits kept at every continuation position."""
    runner = engine.runner
    ids = prefix + continuation
    logits, _ = runner.forward(
        np.array([ids]), runner.empty_states(1, capacity=len(ids)), keep=len(continuation) + 1
    )
    table = _log_softmax(logits[0])
    return np.array([table[j, token] for j, token in enumerate(continuation)])


def random_continuations(vocab: int, lengths: list[int], seed: int = 0) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [[int(t) for t in rng.integers(3, vocab - 1, size=n)] for n in lengths]


def test_scores_equal_the_unbatched_forward_on_the_default_model(engine):
    prefix = engine.encode(engine.render_chat([{"role": "user", "content": "Say something about rain."}]))
    texts = ["Rain fell all night.", "It rained.", "The streets were wet and the gutters ran full by dawn."]
    _, continuations = engine.encode_continuations(texts)
    scores = engine.score(prefix, continuations)
    for continuation, got in zip(continuations, scores, strict=True):
        assert got.dtype == np.float32 and got.shape == (len(continuation),)
        assert np.all(got <= 0)
        np.testing.assert_allclose(got, one_pass(engine, prefix, continuation), atol=1e-4)
        np.testing.assert_allclose(got, token_by_token(engine, prefix, continuation), atol=1e-4)
    # a real sentence is far likelier than the same tokens shuffled
    shuffled = list(reversed(continuations[2]))
    assert engine.score(prefix, [shuffled])[0].sum() < scores[2].sum() - 10


def test_scores_equal_one_plain_pass_with_fp32_activations(exact_engine):
    """Independent of the token-by-token path: logits of one ordinary pass at every position."""
    prefix = exact_engine.encode("The lighthouse keeper climbed the stairs")
    continuations = [*random_continuations(49152, [9, 1, 4]), exact_engine.encode(" every evening.")]
    for continuation, got in zip(continuations, exact_engine.score(prefix, continuations), strict=True):
        np.testing.assert_allclose(got, one_pass(exact_engine, prefix, continuation), atol=2e-3)


def test_order_pieces_and_empty_continuations_do_not_change_scores(engine, monkeypatch):
    prefix = engine.encode("Notes from the meeting:")
    continuations = random_continuations(49152, [7, 3, 12, 1, 7, 5])
    alone = [engine.score(prefix, [c])[0] for c in continuations]
    batched = engine.score(prefix, continuations)
    reordered = engine.score(prefix, continuations[::-1])[::-1]
    # logits memory for 3 positions per pass: longer continuations run in pieces
    monkeypatch.setattr(engine_module, "SCORE_MEMORY_BYTES", 12 * 49152 * 3)
    chunked = engine.score(prefix, [[], *continuations, []])
    assert chunked[0].shape == chunked[-1].shape == (0,) and chunked[0].dtype == np.float32
    for expected, *others in zip(alone, batched, reordered, chunked[1:-1], strict=True):
        np.testing.assert_array_equal(others[0], expected)
        np.testing.assert_array_equal(others[1], expected)
        np.testing.assert_allclose(others[2], expected, atol=1e-4)  # pieces: other pass boundaries
    assert engine.score(prefix, []) == []
    assert [s.shape for s in engine.score(prefix, [[], []])] == [(0,), (0,)]


def test_hybrid_scores_equal_the_unbatched_forward(hybrid_engine, monkeypatch):
    """Conv/recurrent states: every continuation starts from its own copy of the prefix's."""
    prefix = [5, 17, 42, 99, 7, 5, 17]
    continuations = random_continuations(HYBRID_VOCAB, [6, 2, 11, 0, 1, 6], seed=1)
    scores = hybrid_engine.score(prefix, continuations)
    monkeypatch.setattr(engine_module, "SCORE_MEMORY_BYTES", 12 * HYBRID_VOCAB * 4)  # pieces of 4
    reordered = hybrid_engine.score(prefix, continuations[::-1])[::-1]
    for continuation, got, again in zip(continuations, scores, reordered, strict=True):
        assert got.shape == (len(continuation),)
        np.testing.assert_allclose(got, again, atol=1e-5)
        if continuation:
            np.testing.assert_allclose(got, one_pass(hybrid_engine, prefix, continuation), atol=1e-4)
            np.testing.assert_allclose(got, token_by_token(hybrid_engine, prefix, continuation), atol=1e-4)


def test_score_reuses_a_warmed_prefix_without_changing_it(hybrid_engine):
    prefix = [5, 17, 42, 99, 7, 5, 17]
    continuations = random_continuations(HYBRID_VOCAB, [5, 3], seed=2)
    cold = hybrid_engine.score(prefix, continuations)
    hybrid_engine.warm_prefix(prefix[:4])
    try:
        (cached,) = hybrid_engine._prefixes.values()
        before = [value.numpy().copy() for value in cached.values]
        for _ in range(2):
            warm = hybrid_engine.score(prefix, continuations)
            for a, b in zip(cold, warm, strict=True):
                np.testing.assert_allclose(a, b, atol=1e-5)
        after = [value.numpy() for value in cached.values]
        assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
    finally:
        hybrid_engine.clear_prefixes()


def test_score_texts_tokenizes_in_context(engine):
    prefix = "She looked out of the window and said "
    texts = ["hello", "it is raining again", ""]
    prefix_ids, continuations = engine.encode_continuations(texts, prefix)
    assert prefix_ids == engine.encode(prefix.rstrip())
    for text, continuation in zip(texts[:2], continuations[:2], strict=True):
        # the space before each text belongs to the text's first token, as in the whole sentence
        assert prefix_ids + continuation == engine.encode(prefix + text)
    assert continuations[2] == []  # an empty text is not the prefix's trailing space
    scores = engine.score_texts(texts, prefix)
    expected = engine.score(prefix_ids, continuations)
    for got, want in zip(scores, expected, strict=True):
        np.testing.assert_array_equal(got, want)
    assert scores[2].shape == (0,)
    # no prefix: scored from the start of a text (after the bos token)
    (alone,) = engine.score_texts(["The weather is fine."])
    assert alone.shape == (
        len(engine.tokenizer.encode("The weather is fine.", add_special_tokens=False).ids),
    )


def test_score_texts_keeps_the_prefix_shared_when_a_text_merges_with_it(engine):
    # "under" + "stand" is one token in context; the prefix keeps its own tokens and the text its own
    prefix_ids, (continuation,) = engine.encode_continuations(["stand"], "I do not under")
    assert prefix_ids == engine.encode("I do not under")
    assert continuation == engine.tokenizer.encode("stand", add_special_tokens=False).ids


def test_score_rejects_bad_token_ids_and_too_long_input(engine):
    with pytest.raises(EngineError, match="out of range"):
        engine.score([1, 2, 3], [[4, 10**7]])
    with pytest.raises(EngineError, match="context"):
        engine.score([1, 2, 3], [[4] * engine.context_length])

"""The engine on a hybrid graph (Gated DeltaNet conv/recurrent states + attention key/value): a tiny
random Qwen3.5 checkpoint exported in fp32. Speculation on hybrids restores the fixed-size states from
before the verification pass and re-runs the accepted tokens, so it must match plain greedy exactly."""

from __future__ import annotations

import numpy as np

from native_host.engine import GenerationOptions
from tests.engine.tiny_hybrid import VOCAB


def test_hybrid_states_are_recognised(hybrid_engine):
    kinds = [spec.kind for spec in hybrid_engine.state_specs]
    assert {"conv", "recurrent", "key", "value"} <= set(kinds)
    assert hybrid_engine.runner.has_fixed_states
    assert hybrid_engine.runner.fixed_in_place  # the load-time check found in-place updates bit-identical


def test_hybrid_partial_acceptance_restores_fixed_states(hybrid_engine, monkeypatch):
    """Random weights rarely repeat the prompt, so drafts come from an oracle that knows the greedy
    continuation and spoils its last token: every verification accepts some tokens and rejects one,
    which forces the re-run from the saved conv/recurrent states. The tokens must still be greedy's."""
    import native_host.engine.engine as engine_module

    prompt = [11, 23, 35, 47, 59, 61, 73, 85]
    plain = GenerationOptions(max_new_tokens=30, speculative=False, reuse_prefix=False)
    expected = hybrid_engine.generate(prompt, plain).token_ids

    def oracle(context, _max_ngram, max_tokens):
        done = len(context) - len(prompt)  # generated tokens so far, the pending one included
        draft = list(expected[done : done + min(3, max_tokens)])
        if draft:
            draft[-1] = (draft[-1] + 1) % VOCAB
        return draft

    monkeypatch.setattr(engine_module, "propose_draft", oracle)
    result = hybrid_engine.generate(prompt, GenerationOptions(max_new_tokens=30, reuse_prefix=False))
    assert result.token_ids == expected
    assert result.timings["draft_proposed"] > result.timings["draft_accepted"] > 0


def test_hybrid_speculation_prefix_and_batch_match_plain_greedy(hybrid_engine):
    # a prompt that repeats itself, so prompt-lookup drafts are proposed (and some are rejected)
    prompt = [5, 17, 42, 99, 7, 5, 17, 42, 99, 7, 5, 17, 42, 150, 3, 8, 5, 17, 42]
    plain = GenerationOptions(max_new_tokens=40, speculative=False, reuse_prefix=False)
    expected = hybrid_engine.generate(prompt, plain).token_ids
    assert len(expected) >= 8

    spec = hybrid_engine.generate(prompt, GenerationOptions(max_new_tokens=40, reuse_prefix=False))
    assert spec.token_ids == expected

    hybrid_engine.warm_prefix(prompt[:9])
    try:
        reused = hybrid_engine.generate(prompt, GenerationOptions(max_new_tokens=40))
        assert reused.timings["reused_prefix_tokens"] == 9
        assert reused.token_ids == expected
        batch = hybrid_engine.generate_batch(prompt, [plain, plain, plain])
        assert [r.token_ids for r in batch] == [expected] * 3
    finally:
        hybrid_engine.clear_prefixes()


def test_in_place_fixed_states_match_fresh_outputs_and_leave_cached_prefixes_intact(hybrid_engine):
    """conv/recurrent states written in place give the tokens of fresh per-step outputs, and a cached
    prefix survives being used by several generations (each one works on its own copy)."""
    runner = hybrid_engine.runner
    prompt = [5, 17, 42, 99, 7, 5, 17, 42, 99, 7, 5, 17, 42, 150, 3, 8, 5, 17, 42]
    options = GenerationOptions(max_new_tokens=24, speculative=False, reuse_prefix=False)
    assert runner.fixed_in_place
    in_place = hybrid_engine.generate(prompt, options).token_ids
    runner.fixed_in_place = False
    try:
        fresh = hybrid_engine.generate(prompt, options).token_ids
    finally:
        runner.fixed_in_place = True
    assert in_place == fresh

    hybrid_engine.warm_prefix(prompt[:9])
    try:
        (cached,) = hybrid_engine._prefixes.values()
        before = [value.numpy().copy() for value in cached.values]
        reuse = GenerationOptions(max_new_tokens=24)
        runs = [hybrid_engine.generate(prompt, reuse).token_ids for _ in range(2)]
        assert runs == [in_place, in_place]
        after = [value.numpy() for value in cached.values]
        assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
    finally:
        hybrid_engine.clear_prefixes()


def test_kept_binding_gives_the_logits_of_a_fresh_binding(hybrid_engine, monkeypatch):
    """The decode loop's passes reuse one binding of the in-place state buffers (Runner._run_in_place).
    Its logits equal those of a new binding per pass bit for bit, each returned array survives the
    next pass, and new buffers (a fresh generation, a grown capacity) get bound instead of stale ones."""
    runner = hybrid_engine.runner
    chunks = [[5, 17, 42, 99], [7], [5, 17], [150], [3]]

    def run_all(capacity: int) -> list[np.ndarray]:
        states, out = runner.empty_states(1, capacity=capacity), []
        for chunk in chunks:
            logits, states = runner.forward(np.array([chunk]), states, keep=len(chunk))
            out.append(logits)
        return out

    kept = run_all(16)
    kept_again = run_all(16)  # new buffers: the binding must follow them
    grown = run_all(5)  # capacity exceeded after 5 tokens: to_buffers makes new, larger buffers
    runner.release_binding()
    with monkeypatch.context() as patch:  # every pass through a new binding (the path for other states)

        def fresh_binding(tokens, mask, keep_array, states):
            runner.release_binding()
            return original(tokens, mask, keep_array, states)

        original = runner._run_in_place
        patch.setattr(runner, "_run_in_place", fresh_binding)
        fresh = run_all(16)
    for a, b, c, d in zip(kept, kept_again, grown, fresh, strict=True):
        assert np.array_equal(a, d) and np.array_equal(b, d) and np.array_equal(c, d)
    assert len({id(a) for a in kept}) == len(kept)

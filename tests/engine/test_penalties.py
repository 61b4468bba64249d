"""The sampler's penalties against their reference definitions, on the same logits, and the model's own
sampling settings (native_host/engine/sampling.py): generation_config.json where shipped, else the card
table, and the rewrite's candidates built from them."""

from __future__ import annotations

import numpy as np
import pytest

from native_host.engine.options import GenerationOptions
from native_host.engine.sampling import Sampler, card_table, model_sampling
from native_host.rewrite.llm_windows import candidate_options

VOCAB = 64


def random_logits(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, 3, VOCAB).astype(np.float32)


@pytest.mark.parametrize("penalty", [1.3, 0.7])
def test_repetition_penalty_is_transformers_processor(penalty):
    torch = pytest.importorskip("torch")
    from transformers import RepetitionPenaltyLogitsProcessor

    prompt, chosen = [3, 5, 5, 9, 40], [9, 17]
    sampler = Sampler(GenerationOptions(repetition_penalty=penalty), prompt_ids=prompt)
    for token in chosen:  # the sampler records what it chose; choose these by making them certain
        certain = np.full(VOCAB, -50.0, dtype=np.float32)
        certain[token] = 50.0
        assert sampler.choose(certain) == token
    logits = random_logits(1)
    logits[[3, 5]] = [2.5, -1.5]  # one positive, one negative seen logit
    expected = RepetitionPenaltyLogitsProcessor(penalty)(
        torch.tensor([prompt + chosen]), torch.tensor(logits[None].copy())
    )[0].numpy()
    np.testing.assert_allclose(sampler.penalized(logits), expected, rtol=1e-6)


def test_presence_penalty_is_the_openai_definition():
    """OpenAI / vLLM: logit[j] -= presence_penalty · (c[j] > 0), c[j] the count of j in the output so far
    (the prompt does not count), whatever the count."""
    prompt, chosen = [1, 2, 3], [7, 7, 7, 11]
    alpha = 1.5
    sampler = Sampler(GenerationOptions(presence_penalty=alpha), prompt_ids=prompt)
    for token in chosen:
        certain = np.full(VOCAB, -50.0, dtype=np.float32)
        certain[token] = 50.0
        assert sampler.choose(certain) == token
    logits = random_logits(2)
    counts = np.bincount(chosen, minlength=VOCAB)
    expected = logits - alpha * (counts > 0)
    np.testing.assert_allclose(sampler.penalized(logits), expected, rtol=1e-6)


def test_penalties_change_the_choice_and_are_off_by_default():
    logits = np.zeros(VOCAB, dtype=np.float32)
    logits[4], logits[6] = 2.0, 1.5
    plain = Sampler(GenerationOptions(greedy=True), prompt_ids=[4])
    assert plain.penalized(logits) is logits and plain.choose(logits) == 4
    assert Sampler(GenerationOptions(greedy=True, repetition_penalty=1.5), prompt_ids=[4]).choose(logits) == 6
    after = Sampler(GenerationOptions(greedy=True, presence_penalty=1.0), prompt_ids=[4])
    assert after.choose(logits) == 4 and after.choose(logits) == 6  # only output tokens are penalized


def test_a_draft_token_counts_as_output_once_accepted():
    sampler = Sampler(GenerationOptions(greedy=True, presence_penalty=5.0))
    logits = np.zeros(VOCAB, dtype=np.float32)
    logits[8] = 1.0
    assert sampler.accept_draft(logits, 8) == (True, 8)
    assert sampler.accept_draft(logits, 8) == (False, 0)  # 8 is penalized now: the argmax moved


def test_the_card_table_gives_qwen35_its_non_thinking_settings_and_no_greedy():
    sampling = model_sampling({"architecture": "qwen3_5", "generation_config": {}})
    assert sampling is not None
    assert (sampling.temperature, sampling.top_p, sampling.top_k, sampling.presence_penalty) == (
        0.7,
        0.8,
        20,
        1.5,
    )
    assert not sampling.greedy_ok and "Qwen3.5-0.8B model card" in sampling.source
    options = candidate_options(40, [1, 2, 3], sampling=sampling)
    assert not any(o.greedy for o in options)  # the card warns against greedy decoding
    assert all(o.presence_penalty == 1.5 and o.top_k == 20 and o.stop_strings == ("\n",) for o in options)
    assert [o.seed for o in options] == [1, 2, 3]


def test_a_shipped_generation_config_wins_key_by_key():
    shipped = {"do_sample": True, "temperature": 0.6, "top_p": 0.9}
    llama = model_sampling({"architecture": "llama", "generation_config": shipped})
    # top_k unset: transformers' default (50), as the file means it
    assert llama is not None and (llama.temperature, llama.top_p, llama.top_k) == (0.6, 0.9, 50)
    assert llama.greedy_ok and llama.source == "generation_config.json"
    qwen = model_sampling({"architecture": "qwen3_5", "generation_config": {"temperature": 1.0}})
    assert qwen is not None and (qwen.temperature, qwen.top_k, qwen.presence_penalty) == (1.0, 20, 1.5)
    options = candidate_options(40, [1, 2], sampling=llama)
    assert options[0].greedy and not options[1].greedy and options[1].temperature == 0.6


def test_without_settings_the_rewrite_keeps_its_own():
    """A Llama with no sampling keys (SmolLM2's generation_config.json has token ids only; a GGUF has
    none): no settings, so the embedded model keeps the greedy + T 0.7 candidates tuned for it."""
    assert card_table()["architectures"]["llama"]["settings"] is None
    assert model_sampling({"architecture": "llama", "generation_config": {"eos_token_id": 2}}) is None
    assert model_sampling({"architecture": "llama"}) is None
    options = candidate_options(40, [1, 2])
    assert options[0].greedy and options[1].temperature == 0.7 and options[1].presence_penalty == 0.0

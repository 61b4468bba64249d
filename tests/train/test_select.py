"""The training selection (train/select.py) on the real rewrites of rounds 1–2 (docs/train.md, "What
the training data teaches"): what must be dropped and what must be kept."""

from __future__ import annotations

import pytest

from train.select import (
    IdentifiabilityDrop,
    SelectionConfig,
    check_candidate,
    dropped_words,
    marker_spans,
    pronoun_swap,
    select_record,
)

STRICT = SelectionConfig()


def verdict(source: str, candidate: str, similarity: float = 0.97, fluency_drop: float = 0.0) -> str:
    """'' when kept, else the failing check's name."""
    result = check_candidate(source, candidate, similarity, fluency_drop, STRICT, marker_spans(source))
    return "" if result.ok else result.guard


# Chosen as training examples in rounds 1–2 (all passed every pipeline guard), dropped now.
DROPPED = [
    (  # content: "we face", "higher" gone; two articles gone
        "The answer to many of the domestic problems we face is not higher taxes and more spending.",
        "The answer to many domestic problems is not spending more taxes.",
        "select:content",
    ),
    (  # content: "happily", "long" gone
        "I submitted accordingly, with the best grace I could; and, happily, I had not long to wait.",
        "I submitted accordingly with best grace, and I could not wait.",
        "select:content",
    ),
    (  # content: the perfidious government gone
        "The batteries most capable of repelling foreign enterprises on our safety, are happily such as can "
        "never be turned by a perfidious government against our liberties.",
        "The batteries most capable of repelling foreign enterprises on our safety are happily such as can "
        "never be turned against our liberties.",
        "select:content",
    ),
    ("To the People of the State of New York:", "To People of State of New York:", "select:determiner"),
    (
        "Neither the President nor the Congress nor the conscience of this Nation can permit money which "
        "comes from all the people to be used in a way which discriminates against some of the people.",
        "Neither President nor Congress nor conscience of this Nation can permit money which comes from all "
        "the people to be used in a way which discriminates against some people.",
        "select:determiner",
    ),
    (  # who shall never know: a pronoun swap the embedder scores 0.994
        "What his wife really was to Mill, we shall, perhaps, never know.",
        "What his wife really was to Mill, she shall, perhaps, never know.",
        "select:pronoun",
    ),
    (
        "The authority in support of it is Mr. Jefferson, who, besides his other advantages, was himself "
        "the chief magistrate of it.",
        "The authority in support of it is Mr. Jefferson, who, besides its other advantages, was himself "
        "the chief magistrate of it.",
        "select:pronoun",
    ),
    (  # punctuation only: teaches copying
        "Raskolnikov did not speak, but looked firmly and intently at Porfiry.",
        "Raskolnikov did not speak; but looked firmly and intently at Porfiry.",
        "select:copy",
    ),
]

# Rewrites that must be kept: synonyms in place of words, a word moved, a marker's words removed.
KEPT = [
    (
        '"Certainly I shall," she said; "walking or riding: yet I\'ve no objection to dress myself decently.',
        '"Surely I shall," she said, "walking or riding: yet I\'ve no objection to dress myself modestly.',
    ),
    (
        "It is my intention to write shortly and desire her to come to me at Madeira.",
        "It is my intention to write shortly and wish her to come to me at Madeira.",
    ),
    (
        "The cavalry is much more difficult to form than infantry, and it should be kept up to the maximum.",
        "The cavalry is much harder to form than infantry, and it should be kept up to the maximum.",
    ),
    (  # reordered, nothing lost
        "He rushed at her with the axe; her mouth twitched piteously.",
        "With the axe he rushed at her; her mouth twitched piteously.",
    ),
    (  # inflection: same stem
        "The governments spend freely on the ships of the navy.",
        "The government is spending freely on the ships of the navy.",
    ),
    (  # the greetings marker's words ("Hiya all") may go: the prompt asked for that
        "Hiya all! The meeting moved to the big room on the second floor.",
        "The meeting has moved to the large room on the second floor.",
    ),
]


@pytest.mark.parametrize(("source", "candidate", "check"), DROPPED)
def test_rewrites_that_drop_words_or_change_referents_are_not_training_data(source, candidate, check):
    assert verdict(source, candidate) == check


@pytest.mark.parametrize(("source", "candidate"), KEPT)
def test_rewrites_that_replace_or_move_words_are_kept(source, candidate):
    assert verdict(source, candidate) == ""


def test_meaning_and_fluency_bars():
    source, candidate = KEPT[1]
    assert verdict(source, candidate, similarity=0.949) == "select:meaning"
    assert verdict(source, candidate, similarity=0.95) == ""
    assert verdict(source, candidate, fluency_drop=STRICT.fluency_margin + 0.01) == "select:fluency"
    assert verdict(source, candidate, fluency_drop=-0.5) == ""  # reads better than the source


def test_dropped_words_names_what_is_lost():
    dropped = dropped_words(
        "The answer to many of the domestic problems we face is not higher taxes and more spending.",
        "The answer to many domestic problems is not spending more taxes.",
    )
    assert sorted(dropped.content) == ["face", "higher"]
    assert dropped.determiners == 1  # "the" (domestic problems); "many" stays
    # A replaced stretch that brings as many content words as it loses drops nothing.
    assert dropped_words("a perfidious government", "a treacherous state").content == ()
    # Only the marker spans given are exempt.
    assert dropped_words("a perfidious government", "a government", [(2, 12)]).content == ()
    assert dropped_words("a perfidious government", "a government").content == ("perfidious",)


def test_pronoun_swap_is_loss_and_gain_not_ellipsis():
    assert pronoun_swap("we have come and we have seen", "we have come and seen") == ""
    assert pronoun_swap("we shall never know", "she shall never know") == "1p -1, 3f +1"
    assert pronoun_swap("his other advantages", "the other advantages") == ""


def test_spelling_markers_do_not_license_dropping_the_word():
    source = "I must say that the colour of the harbour was truly lovely at dusk."
    assert verdict(source, "I must say that the color of the harbor was truly lovely at dusk.") == ""
    assert verdict(source, "I must say that the harbor was truly lovely at dusk.") == "select:content"


def test_select_record_ranks_survivors_by_meaning_plus_identifiability():
    source = "It is my intention to write shortly and desire her to come to me at Madeira."
    record = {
        "id": "w1",
        "text": source,
        "prompt_ids": [1, 2, 3],
        "candidates": [
            {"n": 0, "text": source, "guard": "copy"},
            {
                "n": 1,
                "text": "It is my plan to write soon and desire her to come to me at Madeira.",
                "guard": "",
                "similarity": 0.96,
            },
            {
                "n": 2,
                "text": "It is my intention to write shortly and wish her to come to me at Madeira.",
                "guard": "",
                "similarity": 0.97,
            },
            {
                "n": 3,
                "text": "It is my intention to write and desire her to come to Madeira.",
                "guard": "",
                "similarity": 0.99,
            },
        ],
    }
    drops = {
        record["candidates"][1]["text"]: IdentifiabilityDrop(0.05, {"delta": -0.2, "char3": 0.3}),
        record["candidates"][2]["text"]: IdentifiabilityDrop(0.0, {"delta": 0.1, "char3": 0.0}),
        record["candidates"][3]["text"]: IdentifiabilityDrop(0.0, {"delta": 0.3, "function_words": 0.3}),
    }
    # judge None: no fluency check (the real engine judges in test_strict_selection_with_the_engine)
    example, outcome = select_record(record, None, STRICT, lambda text: drops[text])
    assert example is not None and example["n"] == 1  # 0.96 + 0.05 beats 0.97 + 0.0
    assert example["identifiability_drop"] == 0.05 and example["source"] == source
    assert example["z_drop"] == {"delta": -0.2, "char3": 0.3}
    assert outcome[3].guard == "select:content"  # "shortly", "me" gone despite similarity 0.99
    assert set(outcome) == {1, 2, 3}
    # Weighted towards Delta's z: 0.97 + 0.1 * w beats 0.96 + 0.05 - 0.2 * w once w > 0.04 / 0.3.
    towards_delta = SelectionConfig(w_delta=0.5)
    example, _ = select_record(record, None, towards_delta, lambda text: drops[text])
    assert example is not None and example["n"] == 2
    assert example["selection_score"] == pytest.approx(0.97 + 0.5 * 0.1)
    # no accepted candidate: no example
    assert select_record({**record, "candidates": record["candidates"][:1]}, None, STRICT, None) == (None, {})


def test_a_dropped_determiner_passes_only_with_the_surrogates_licence():
    source = "He took the coach to the town and paid the driver."
    candidate = "He took a coach to town and paid the driver."  # one determiner fewer
    both_fall = IdentifiabilityDrop(0.01, {"delta": 0.05, "function_words": 0.02, "char3": -0.01})
    delta_rises = IdentifiabilityDrop(0.01, {"delta": -0.05, "function_words": 0.2})
    licensing = SelectionConfig(licensed_determiners=True)

    def check(config: SelectionConfig, drop: IdentifiabilityDrop | None, fluency: float = 0.0) -> str:
        result = check_candidate(source, candidate, 0.97, fluency, config, marker_spans(source), drop)
        return "" if result.ok else result.guard

    assert check(STRICT, both_fall) == "select:determiner"  # off by default (rounds 1-3)
    assert check(licensing, both_fall) == ""
    assert check(licensing, delta_rises) == "select:determiner"
    assert check(licensing, None) == "select:determiner"
    assert check(licensing, both_fall, fluency=2.5) == "select:fluency"  # the other checks still apply


def _window(i: int):
    from train.data import TrainingWindow

    return TrainingWindow(f"w{i}", "sotu", "A", "head", f"text {i}")


def test_round_slices_fresh_and_extended(tmp_path):
    """A fresh run deals windows[r-1::rounds] (the first runs' slicing); an extended run keeps its
    finished rounds' windows and deals the new ones to the new rounds; a started round's slice is fixed."""
    import json

    from train.recipe import RecipeConfig, _round_slice

    windows = [_window(i) for i in range(12)]
    config = RecipeConfig(base="x.gguf", windows=12, rounds=3)
    used: set[str] = set()
    for r in (1, 2, 3):
        slice_, source = _round_slice(tmp_path / f"round_{r}", r, config, windows, used)
        assert [w.id for w in slice_] == [w.id for w in windows[r - 1 :: 3]] and source == r - 1
        used.update(w.id for w in slice_)
    # The same call again reads slice.json, even with more windows since.
    more = [*windows, *(_window(i) for i in range(12, 18))]
    again, _ = _round_slice(tmp_path / "round_2", 2, config, more, set())
    assert [w.id for w in again] == [w.id for w in windows[1::3]]

    # A round finished before slice files existed: its candidates.jsonl says which windows it had.
    old = tmp_path / "old"
    (old / "round_1").mkdir(parents=True)
    (old / "round_1" / "metrics.json").write_text("{}")
    (old / "round_1" / "candidates.jsonl").write_text(
        "".join(json.dumps({"id": f"w{i}"}) + "\n" for i in (0, 2))
    )
    extended = RecipeConfig(base="x.gguf", windows=18, rounds=2, generate_from_round=1)
    first, _ = _round_slice(old / "round_1", 1, extended, more, set())
    assert [w.id for w in first] == ["w0", "w2"]
    second, source = _round_slice(old / "round_2", 2, extended, more, {"w0", "w2"})
    assert len(second) == 16 and not {"w0", "w2"} & {w.id for w in second}
    assert source == 1


def test_a_run_may_grow_but_not_change(tmp_path):
    import json

    from train.recipe import RecipeConfig, run

    out = tmp_path / "run"
    out.mkdir()
    config = RecipeConfig(base="x.gguf", windows=12, rounds=2)
    settings = json.loads(json.dumps({**__import__("dataclasses").asdict(config), "base": "x.gguf"}))
    (out / "recipe.json").write_text(json.dumps({"config": settings, "command": "fantasma train"}))
    with pytest.raises(ValueError, match="seed"):
        run(RecipeConfig(base="x.gguf", windows=12, rounds=2, seed=1), out)
    with pytest.raises(ValueError, match="not fewer"):
        run(RecipeConfig(base="x.gguf", windows=6, rounds=2), out)


def test_a_later_round_may_draw_more_candidates_but_not_loosen_generation(tmp_path):
    import dataclasses
    import json

    from train.generate import GenerateConfig
    from train.recipe import RecipeConfig, record_settings

    def settings(config: RecipeConfig) -> dict:
        return json.loads(json.dumps({**dataclasses.asdict(config), "base": "x.gguf"}))

    recorded = tmp_path / "recipe.json"
    record_settings(recorded, settings(RecipeConfig(base="x.gguf", windows=12, rounds=2)), "fantasma train")
    more = RecipeConfig(base="x.gguf", windows=24, rounds=3, generate=GenerateConfig(candidates=8))
    record_settings(recorded, settings(more), "fantasma train --candidates 8")
    history = json.loads(recorded.read_text())
    assert history["config"]["generate"]["candidates"] == 8
    assert history["extensions"][-1]["command"] == "fantasma train --candidates 8"
    for loosened in (
        GenerateConfig(candidates=8, min_similarity=0.8),
        GenerateConfig(candidates=8, temperature=1.0),
    ):
        with pytest.raises(ValueError, match="generate"):
            record_settings(
                recorded, settings(RecipeConfig(base="x.gguf", windows=24, rounds=3, generate=loosened)), "x"
            )


@pytest.mark.slow
def test_strict_selection_with_the_engine(default_int4_dir):
    """The judge model's log-probabilities reject a misspelt rewrite; the kept one gets completion ids
    through the chat template, ending with the end-of-turn token."""
    from native_host.engine import Engine
    from train.generate import window_messages

    judge = Engine.load(default_int4_dir)
    source = "You set upon me, you impudent young monkey, and you struck me first."
    prompt_ids = judge.encode(judge.render_chat(window_messages(source), add_generation_prompt=True))
    record = {
        "id": "w1",
        "corpus": "brontes",
        "author": "A",
        "chunk_head": "",
        "text": source,
        "prompt_ids": prompt_ids,
        "candidates": [
            {
                "n": 0,
                "text": "You set upon me, you impertude young monkey, and you struck me first.",
                "guard": "",
                "similarity": 0.97,
            },
            {
                "n": 1,
                "text": "You attacked me, you impudent young monkey, and you struck me first.",
                "guard": "",
                "similarity": 0.96,
            },
        ],
    }
    from train.select import select_examples

    examples, summary = select_examples([record], judge, STRICT)
    assert summary["dropped_by_check"] == {"select:fluency": 1}
    assert [e["n"] for e in examples] == [1]
    assert examples[0]["target_ids"][-1] in judge.eos_token_ids
    assert judge.decode(examples[0]["target_ids"][:-1]).strip() == record["candidates"][1]["text"]


@pytest.mark.slow
def test_chunk_identifiability_reads_the_window_in_its_chunk():
    from train.data import training_windows
    from train.select import ChunkIdentifiability

    window = training_windows(("federalist",), 1, seed=0)[0]
    scorer = ChunkIdentifiability(("federalist",)).scorer(window.to_json())
    assert scorer is not None
    unchanged = scorer(window.text)
    assert unchanged.score == pytest.approx(0.0, abs=1e-9)
    assert set(unchanged.z) == {"char3", "delta", "function_words"}
    assert all(v == pytest.approx(0.0, abs=1e-9) for v in unchanged.z.values())
    gone = scorer("")  # the window's words count in the chunk's score and in every family's z
    assert gone.score != 0.0 and all(v != 0.0 for v in gone.z.values())
    assert gone.delta == gone.z["delta"]
    missing = {**window.to_json(), "chunk_head": "no chunk starts like this"}
    assert ChunkIdentifiability(("federalist",)).scorer(missing) is None

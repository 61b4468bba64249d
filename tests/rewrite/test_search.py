"""The identifiability search: it lowers the objective with the edits it is given, keeps to its budget,
and never returns a text that fails a guard, whatever edits it is offered."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

import pytest

from native_host.rewrite import guards, search
from native_host.style import protected_spans
from native_host.style.identify import Identifiability
from native_host.style.markers import count_markers


@dataclass(frozen=True)
class Edit:  # the fields of native_host.rewrite.edits.Edit
    start: int
    end: int
    replacement: str
    family: str = "function_word"
    rule: str = "test"
    needs_lm_check: bool = False


# Someone who writes "upon" and "whilst" all the time.
MINE = [
    "Whilst the rain fell upon the roof, we waited upon the stairs. Upon reflection, whilst it was late, "
    "the house seemed quiet upon the whole. " * 3,
    "We came upon the town whilst it slept. Upon arrival, whilst tired, we called upon a friend. " * 3,
    "Upon the table lay a letter, whilst the lamp burned upon the shelf. Upon my word, whilst reading "
    "it, I sat upon the bench. " * 3,
]
TEXT = "Whilst we waited upon the porch, Anna read a letter. Upon reading it twice, she did not smile."


@cache
def mine() -> Identifiability:
    return Identifiability.from_texts(MINE)


def every(text: str, word: str, replacement: str) -> list[Edit]:
    out = []
    start = text.find(word)
    while start >= 0:
        out.append(Edit(start, start + len(word), replacement))
        start = text.find(word, start + 1)
    return out


@pytest.fixture(scope="module")
def checks(embedder_model_dir_module):
    from native_host.engine.embedder import Embedder

    return search.SearchChecks(Embedder(embedder_model_dir_module), None, count_markers=count_markers)


@pytest.fixture(scope="module")
def embedder_model_dir_module(tmp_path_factory):
    from export.bert import export_default_embedder

    return export_default_embedder(tmp_path_factory.mktemp("embedder") / "all-minilm-l6-v2").parent


def test_search_removes_the_habits_the_profile_links(checks):
    edits = every(TEXT, "Whilst", "While") + every(TEXT, "upon", "on") + every(TEXT, "Upon", "On")
    result = search.search(TEXT, edits, mine(), checks, search.BUDGETS["strong"])
    assert (
        result.text
        == "While we waited on the porch, Anna read a letter. On reading it twice, she did not smile."
    )
    assert result.objective_after < result.objective_before
    assert {a.original for a in result.applied} == {"Whilst", "upon", "Upon"}
    assert mine().score(result.text).score < mine().score(TEXT).score


def test_budget_limits_the_number_of_edits(checks):
    edits = every(TEXT, "Whilst", "While") + every(TEXT, "upon", "on") + every(TEXT, "Upon", "On")
    result = search.search(
        TEXT, edits, mine(), checks, search.Budget(max_change=1.0, edits_per_100_words=1.0)
    )
    assert len(result.applied) == 1


def test_overlapping_and_touching_edits_are_never_combined(checks):
    # "Whilst we": each was checked alone; glued together they were not
    edits = [Edit(0, 6, "While"), Edit(0, 9, "While we"), Edit(6, 9, " they")]
    result = search.search(TEXT, edits, mine(), checks, search.BUDGETS["strong"])
    assert len(result.applied) == 1
    apart = search.search(
        TEXT, [Edit(0, 6, "While"), Edit(7, 16, "we sat")], mine(), checks, search.BUDGETS["strong"]
    )
    assert len(apart.applied) == 2  # one character apart is enough


def test_edits_needing_the_language_model_are_not_used_without_it(checks):
    edits = [Edit(e.start, e.end, e.replacement, needs_lm_check=True) for e in every(TEXT, "upon", "on")]
    result = search.search(TEXT, edits, mine(), checks, search.BUDGETS["strong"])
    assert result.text == TEXT and not result.applied


SENTENCES = [
    "Anna Weber sent 3 letters to Berlin in 2019.",
    "We did not agree with the plan, and nobody said why.",
    "Whilst the council met upon Tuesday, twenty people waited outside.",
    "Perhaps the report is right about the 12 bridges.",
    "See https://example.org/a for the figures; they are only estimates.",
    "Upon reflection, the committee approved the budget again.",
]
HARMFUL = ["", "not ", "Bob", "7", "never", "!!!", "twelve", "whilst", "LOL", "maybe", "Berlin", "the the"]


def _random_edits(rng: random.Random, text: str) -> list[Edit]:
    edits = []
    words = [(m.start(), m.end()) for m in __import__("re").finditer(r"\S+", text)]
    for _ in range(25):
        s, e = rng.choice(words)
        if rng.random() < 0.5:
            repl = rng.choice(HARMFUL)
        else:
            s2, e2 = rng.choice(words)
            repl = text[s2:e2]
        edits.append(Edit(s, e, repl, rng.choice(["lexical", "function_word", "syntax"])))
    edits += every(text, "Whilst", "While") + every(text, "upon", "on") + every(text, "Upon", "On")
    return edits


def test_search_never_returns_a_text_that_fails_a_guard(checks):
    rng = random.Random(11)
    for case in range(12):
        text = " ".join(rng.sample(SENTENCES, 4))
        result = search.search(text, _random_edits(rng, text), mine(), checks, search.BUDGETS["strong"])
        final = result.text
        required = guards.protected_tokens(text, (), protected_spans(text))
        assert guards.check_protected(
            final, {t: text.count(t) for t in required}, text, protected_spans(final)
        ).ok
        assert guards.check_facts(final, text).ok, (case, final)
        assert guards.check_no_new_markers(final, count_markers(text), count_markers).ok, (case, final)
        assert checks.embedder.document_similarity(text, final) >= guards.MIN_SIMILARITY - 1e-6
        # the budget counts the words of the text searched as the search does, not of the result
        per_100 = search.BUDGETS["strong"].edits_per_100_words
        assert len(result.applied) <= max(1, -(-per_100 * guards.word_count(text) // 100))
        # what was applied is exactly what the text shows
        expected = text
        for a in sorted(result.applied, key=lambda a: -a.start):
            expected = expected[: a.start] + a.replacement + expected[a.end :]
        assert expected == final


def test_fluency_guard_drops_broken_edits_and_keeps_plain_ones(rewrite_model_dir, embedder_model_dir_module):
    from native_host import models
    from native_host.engine.embedder import Embedder

    engine = models.get_engine(rewrite_model_dir)
    checks = search.SearchChecks(Embedder(embedder_model_dir_module), engine, count_markers=count_markers)
    text = "Whilst we waited for the bus in the cold and the rain, Anna read a long letter upon the porch."
    start = text.index("upon")
    broken = Edit(start, start + 4, "on of porch the", needs_lm_check=True)  # both drop "upon"
    plain = Edit(0, 6, "While", needs_lm_check=True)
    result = search.search(text, [broken, plain], mine(), checks, search.BUDGETS["strong"])
    assert [a.replacement for a in result.applied] == ["While"]
    assert result.rejected.get("fluency") == 1
    source, candidate = "we waited upon the porch, Anna", "we waited porch upon of the porch, Anna"
    lp = guards.token_logprobs(engine, [source, candidate])
    assert not guards.check_fluency(guards.fluency_drop(lp[0], lp[1])).ok
    assert guards.check_fluency(guards.fluency_drop(lp[0], lp[0])).ok


def test_whole_text_check_reverts_the_edit_that_fails_it_not_the_weakest(embedder_model_dir_module):
    from native_host.engine.embedder import Embedder

    # a marker only the whole text shows (no single sentence is long enough to carry it)
    def whole_only(text: str) -> dict[str, int]:
        return {"whole": int(len(text) > 60 and "On reading" in text)}

    checks = search.SearchChecks(Embedder(embedder_model_dir_module), None, count_markers=whole_only)
    edits = every(TEXT, "Whilst", "While") + every(TEXT, "upon", "on") + every(TEXT, "Upon", "On")
    result = search.search(TEXT, edits, mine(), checks, search.BUDGETS["strong"])
    assert (
        result.text
        == "While we waited on the porch, Anna read a letter. Upon reading it twice, she did not smile."
    )
    assert result.rejected.get("whole:markers") == 1


def test_passes_propose_again_on_the_edited_text_and_share_one_budget(checks):
    seen: list[str] = []

    def propose(current: str) -> list[Edit]:
        seen.append(current)
        # "Whilst we" only exists before the first pass; "While we" only after it
        return every(current, "Whilst we", "While we") + every(current, "While we waited", "While we sat")

    result = search.search_passes(TEXT, propose, mine(), checks, search.BUDGETS["strong"], passes=3)
    assert seen[0] == TEXT and seen[1].startswith("While we")
    assert result.passes >= 2 and [a.pass_index for a in result.applied][:1] == [0]
    one = search.search_passes(
        TEXT,
        lambda t: every(t, "Whilst", "While") + every(t, "upon", "on") + every(t, "Upon", "On"),
        mine(),
        checks,
        search.Budget(max_change=1.0, edits_per_100_words=1.0),
        passes=3,
    )
    assert len(one.applied) == 1  # the budget counts every pass's edits


def test_passes_never_return_a_text_that_fails_a_guard_against_the_original(checks):
    rng = random.Random(5)
    for case in range(6):
        text = " ".join(rng.sample(SENTENCES, 4))
        result = search.search_passes(
            text, lambda t: _random_edits(rng, t), mine(), checks, search.BUDGETS["strong"], passes=3
        )
        final = result.text
        required = guards.protected_tokens(text, (), protected_spans(text))
        assert guards.check_protected(
            final, {t: text.count(t) for t in required}, text, protected_spans(final)
        ).ok
        assert guards.check_facts(final, text).ok, (case, final)
        assert guards.check_no_new_markers(final, count_markers(text), count_markers).ok, (case, final)
        assert checks.embedder.document_similarity(text, final) >= guards.MIN_SIMILARITY - 1e-6
        assert guards.check_length(final, text).ok


def test_search_markers_count_the_flagged_function_words_not_their_occurrences():
    from native_host.style.markers import count_search_markers

    text = " ".join(
        ["Upon the hill the farmer stood upon a stone and looked upon the valley below him."] * 14
    )
    spans = count_markers(text).get("function_words", 0)
    words = count_search_markers(text).get("function_words", 0)
    assert spans > 10 and 1 <= words <= 3


def test_passes_never_edit_an_earlier_pass_replacement(checks):
    # Pass 1 writes "While we"; pass 2's only "upon" edit spans that replacement (a chain: it would
    # re-edit pass 1's words), so it is never applied, though it would lower the score.
    def propose(current: str) -> list[Edit]:
        return every(current, "Whilst we", "While we") + every(
            current, "While we waited upon", "While we waited on"
        )

    result = search.search_passes(TEXT, propose, mine(), checks, search.BUDGETS["strong"], passes=3)
    assert result.text.startswith("While we waited upon"), result.text
    assert [a.original for a in result.applied] == ["Whilst we"]


def test_spans_written_by_a_pass_follow_the_text_as_it_grows_and_shrinks():
    def applied(start: int, end: int, original: str, replacement: str) -> search.AppliedEdit:
        return search.AppliedEdit(start, end, original, replacement, "lexical", "test", 1.0)

    # "in order to see it upon the hill" -> "to see it on the hill"
    edits = [applied(0, 11, "in order to", "to"), applied(19, 23, "upon", "on")]
    spans = search._spans_after([(12, 15)], edits)  # "see", written by an earlier pass
    text = "to see it on the hill"
    assert [text[a:b] for a, b in spans] == ["see", "to", "on"]
    insertion = search._spans_after([], [applied(3, 3, "", "very ")])
    assert insertion == [(3, 8)]


def test_the_search_stops_once_enough_and_applies_nothing_past_it(checks):
    """`enough` (the rewrite passes the meter's lowest boundary, `meter_in_lowest_band`) stops the search at the
    first edit that makes it true: fewer edits than the whole search, the text past the line, and the
    same edits less the last one not past it."""
    from native_host.style.identify import score_of

    edits = every(TEXT, "Whilst", "While") + every(TEXT, "upon", "on") + every(TEXT, "Upon", "On")
    budget = search.BUDGETS["strong"]
    whole = search.search(TEXT, edits, mine(), checks, budget)
    before, after = mine().score(TEXT).score, mine().score(whole.text).score
    assert len(whole.applied) == 3 and after < before
    line = after + (before - after) * 0.5  # short of the whole search's reach
    stopped = search.search(TEXT, edits, mine(), checks, budget, enough=lambda zs: score_of(zs) < line)
    assert 0 < len(stopped.applied) < len(whole.applied)
    assert mine().score(stopped.text).score < line

    def with_edits(applied: list[search.AppliedEdit]) -> str:
        text = TEXT
        for a in sorted(applied, key=lambda a: -a.start):
            text = text[: a.start] + a.replacement + text[a.end :]
        return text

    assert with_edits(stopped.applied) == stopped.text
    assert mine().score(with_edits(stopped.applied[:-1])).score >= line

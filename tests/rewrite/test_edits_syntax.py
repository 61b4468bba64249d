"""Sentence splits must not cut a clause off the subordinator it depends on ("if X, and Y, I would Z"
split at ", and" leaves "Y, I would Z" without its "if"; issue-10 eval sample at 79b0907)."""

from __future__ import annotations

import pytest

from native_host.rewrite.edits import Edit, propose


def apply(text: str, edit: Edit) -> str:
    return text[: edit.start] + edit.replacement + text[edit.end :]


def splits(text: str) -> set[str]:
    """What every edit that ends a sentence or puts a semicolon at a coordinator gives."""
    return {
        apply(text, e)
        for e in propose(text)
        if e.rule.startswith("split:") or e.rule in ("and->semicolon", "comma->semicolon:and")
    }


SWEPT = (
    "I can tell you this—if the whole human race, ourselves excepted, were swept away, and we two "
    "stood alone on the earth, I would leave you in the old world."
)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (SWEPT, ". We two stood alone on the earth, I would"),
        (SWEPT, "swept away; we two stood"),
        (
            "He told me plainly that if the rain stopped in the night, and the roads dried by the "
            "morning, we would leave at once.",
            ". The roads dried",
        ),
        (
            "She would stay with us, she said, unless the letter came early in the week, and her "
            "father sent for her, in which case she would go.",
            ". Her father sent for her",
        ),
        (
            "We knew that when the bell rang at the gate below, and they heard it in the house, "
            "the dogs would bark.",
            ". They heard it",
        ),
    ],
)
def test_no_split_inside_a_subordinate_clause(text: str, fragment: str) -> None:
    assert not any(fragment in out for out in splits(text)), sorted(splits(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the subordinate clause is closed before the coordinator: the second clause stands alone
        (
            "We stayed inside because it was raining hard all day, and we went to bed early.",
            "We stayed inside because it was raining hard all day. We went to bed early.",
        ),
        # no subordinator at all
        (
            "We waited for hours at the station, and we went home in the rain, tired and cold.",
            "We waited for hours at the station. We went home in the rain, tired and cold.",
        ),
        # a subordinator in an earlier clause, closed by a semicolon
        (
            "It was late, if you ask me; we waited for hours at the station, and we went home in "
            "the rain, tired and cold.",
            "It was late, if you ask me; we waited for hours at the station. We went home in the "
            "rain, tired and cold.",
        ),
    ],
)
def test_splits_outside_a_subordinate_clause_remain(text: str, expected: str) -> None:
    assert expected in splits(text), sorted(splits(text))

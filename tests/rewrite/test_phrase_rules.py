"""The phrase-rule matcher (native_host.rewrite.edits.phrase_rules), its data file of unconditioned pairs,
and each family matching its own rules."""

from __future__ import annotations

import pytest

from native_host.rewrite.edits import frequent_word_phrases as frequent_words
from native_host.rewrite.edits import function_word_swaps as function_words
from native_host.rewrite.edits import word_classes
from native_host.rewrite.edits.lexicon_data import phrase_pairs
from native_host.rewrite.edits.phrase_conditions import condition
from native_host.rewrite.edits.phrase_rules import (
    Rule,
    index,
    match,
    read_rules,
    sentence_initial_comma,
    table_rules,
)
from native_host.rewrite.edits.text import Doc


def replaced(text: str, rules: list[Rule]) -> list[str]:
    doc = Doc(text)
    return [text[: e.start] + e.replacement + text[e.end :] for e in match(doc, index(rules), "test")]


def test_a_rule_matches_plain_spaced_words_only():
    rules = [Rule(("in", "order", "to"), "to")]
    assert replaced("We left in order to rest.", rules) == ["We left to rest."]
    assert replaced("In order to rest, we left.", rules) == ["To rest, we left."]  # the capital follows
    assert replaced("We left in order, to rest.", rules) == []  # never across punctuation
    assert replaced("We left in order\n\nto rest.", rules) == []  # nor a paragraph break


def test_a_capital_inside_a_sentence_is_a_name():
    rules = [Rule(("may",), "might")]
    assert replaced("He said May would come.", rules) == []
    assert replaced("He said he may come.", rules) == ["He said he might come."]


def test_a_connective_takes_its_comma_and_a_condition_must_hold():
    rules = [Rule(("however",), "but", when=sentence_initial_comma)]
    assert replaced("However, we left.", rules) == ["But we left."]
    assert replaced("We left, however, at noon.", rules) == []


def test_every_row_of_the_data_file_is_a_rule_without_a_condition():
    rows = phrase_pairs("phrase_pairs.tsv")
    assert len(rows) > 90 and len(set(rows)) == len(rows)
    rules = table_rules("phrase_pairs.tsv")
    assert len(rules) == sum(2 if check_ba is not None else 1 for *_, check_ba in rows)
    assert all(rule.when is None for rule in rules)
    named = index(rules)
    assert any(r.dst == "toward" and r.name == "towards->toward" for r in named["towards"])
    assert any(r.dst == "towards" for r in named["toward"])  # both ways
    assert not any(r.dst == "a great deal of" for r in named.get("much", []))  # one way only


def test_each_family_matches_its_own_rules():
    doc = Doc("They acted in accordance with the law, whilst we waited.")
    fw = {e.rule for e in function_words.propose(doc)}
    frw = {e.rule for e in frequent_words.propose(doc)}
    assert "whilst->while" in fw and "whilst->while" not in frw
    assert "in accordance with->according to" in frw and "in accordance with->according to" not in fw


def test_the_phrase_tables_read_with_their_conditions_and_word_classes():
    fw = read_rules("function_word_phrases.tsv")
    frw = read_rules("frequent_word_phrases.tsv")
    assert len(fw) > 500 and len(frw) > 50
    named = index(fw)
    # a group row: every member to every other; a connectives row takes its comma at a sentence start
    assert any(r.dst == "nobody" and r.when is not None for r in named["no"])
    assert any(r.dst == "nevertheless," and r.when is sentence_initial_comma for r in named["however"])
    # a condition naming a word class: "a while" keeps its noun
    while_rules = [r for r in named["while"] if r.dst == "whilst"]
    assert while_rules and while_rules[0].when is not None
    doc = Doc("We waited a while here.")
    i = doc.norms.index("while")
    assert not while_rules[0].when(doc, i, i)
    assert "a" in word_classes.named("WHILE_AS_NOUN_AFTER")


def test_a_table_that_names_no_known_condition_or_class_is_a_clear_error():
    with pytest.raises(ValueError, match="no condition 'nowhere_near'"):
        condition("continues & nowhere_near")
    with pytest.raises(KeyError, match="no word class 'NOT_A_CLASS'"):
        condition("next_in(NOT_A_CLASS the)")
    assert condition("") is None
    assert condition("sentence_initial_comma") is sentence_initial_comma

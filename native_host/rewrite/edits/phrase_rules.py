"""Phrase rules: a run of words replaced by another where a condition on the words around it holds.

    rules = read_rules("function_word_phrases.tsv")            # a table: a row a rule (or a group)
    named = index([*table_rules("phrase_pairs.tsv"), *rules])  # first word -> its rules, named
    match(doc, named, family) -> [Edit]

A rule matches a run of words separated by spaces only (never across punctuation or a paragraph
break), none of them protected, and never one that starts with a capital inside a sentence (a name:
"and May said"). Its condition (`when(doc, i, j)`, phrase_conditions.py, named in the table's `when`
column) sees the first and the last token of the run. The rules are data: data/*_phrases.tsv (with
conditions) and data/phrase_pairs.tsv (the alternations that hold everywhere), each family matching its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from native_host.rewrite.edits.lexicon_data import DataError, phrase_pairs, phrase_rule_rows
from native_host.rewrite.edits.phrase_conditions import Cond, condition, sentence_initial_comma
from native_host.rewrite.edits.text import Doc, Edit, match_case

__all__ = ["Cond", "Rule", "index", "match", "read_rules", "sentence_initial_comma", "table_rules"]


@dataclass(frozen=True)
class Rule:
    src: tuple[str, ...]
    dst: str
    check: bool = False
    when: Cond | None = None
    name: str = ""


# --- reading tables ----------------------------------------------------------------------------------


def group(members: list[str], check: frozenset[str] = frozenset(), when: Cond | None = None) -> list[Rule]:
    """Every member to every other member; `check` marks members whose use as a *target* is uncertain."""
    rules = []
    for a in members:
        for b in members:
            if a != b:
                rules.append(Rule(tuple(a.split()), b, a in check or b in check, when))
    return rules


def connective_group(members: list[str], check: frozenset[str] = frozenset()) -> list[Rule]:
    """Sentence-opening connectives that take a comma: "However, X" -> "Nevertheless, X" (the edit
    covers the comma, so "However, X" -> "But X" can drop it)."""
    return [Rule(r.src, r.dst + ",", r.check, r.when) for r in group(members, check, sentence_initial_comma)]


def read_rules(name: str) -> list[Rule]:
    """The rules of a phrase table (data/<name>, its header says the columns), in its order."""
    rules: list[Rule] = []
    for n, (kind, src, dst, check, when, rule_name) in enumerate(phrase_rule_rows(name), 1):
        try:
            cond = condition(when)
        except (ValueError, KeyError) as exc:
            raise DataError(f"edit table {name}, rule {n}: {exc}") from exc
        members = src.split(" | ")
        uncertain = frozenset(check.split(" | ")) if check else frozenset()
        if kind == "rule":
            rules.append(Rule(tuple(src.split()), dst, check == "1", cond, rule_name))
        elif kind == "group":
            rules += group(members, uncertain, cond)
        elif kind == "connectives":
            rules += connective_group(members, uncertain)
        else:
            raise DataError(f"edit table {name}, rule {n}: unknown kind {kind!r}")
    return rules


def table_rules(name: str) -> list[Rule]:
    """The unconditioned alternations of a data file (lexicon_data.phrase_pairs), both ways unless a
    row says one way."""
    rules = []
    for a, b, check_ab, check_ba in phrase_pairs(name):
        rules.append(Rule(tuple(a.split()), b, check_ab))
        if check_ba is not None:
            rules.append(Rule(tuple(b.split()), a, check_ba))
    return rules


# --- matching ----------------------------------------------------------------------------------------


def index(rules: Iterable[Rule]) -> dict[str, list[Rule]]:
    """First word -> its rules, in the order given, each named ("in order to->to" unless it has a name)."""
    out: dict[str, list[Rule]] = {}
    for rule in rules:
        name = rule.name or f"{' '.join(rule.src)}->{rule.dst.rstrip(',')}"
        out.setdefault(rule.src[0], []).append(Rule(rule.src, rule.dst, rule.check, rule.when, name))
    return out


def _render(doc: Doc, model: str, dst: str) -> str:
    dst = dst.replace("'", doc.apostrophe)
    if dst.startswith("i ") or dst.startswith(f"i{doc.apostrophe}") or dst == "i":
        dst = "I" + dst[1:]
    return match_case(model, dst)


def match(doc: Doc, rules: Mapping[str, list[Rule]], family: str) -> list[Edit]:
    """The edits of every rule whose words and condition match, in text order."""
    toks, norms = doc.tokens, doc.norms
    out: list[Edit] = []
    n = len(toks)
    starts = doc.sentence_first_token
    for i in range(n):
        candidates = rules.get(norms[i])
        if not candidates:
            continue
        for rule in candidates:
            k = len(rule.src)
            j = i + k - 1
            if j >= n or tuple(norms[i : j + 1]) != rule.src:
                continue
            if any(not doc.plain_gap(m) for m in range(i, j)) or not all(
                toks[m].free for m in range(i, j + 1)
            ):
                continue
            if rule.when is not None and not rule.when(doc, i, j):
                continue
            first = toks[i].text
            if (
                first[:1].isupper()
                and first != "I"
                and not first.startswith(("I'", "I’"))
                and i not in starts
            ):
                continue  # a capital inside a sentence is a name ("and May said", "Will Hope")
            start, end = toks[i].start, toks[j].end
            dst = rule.dst
            if not dst:  # a deletion at a sentence start: the next word takes the capital
                nxt = toks[j + 1]
                end = nxt.end
                word = nxt.text[:1].upper() + nxt.text[1:]
                out.append(Edit(start, end, word, family, rule.name, rule.check))
                continue
            if rule.when is sentence_initial_comma:
                end += 1  # the connective's comma: "However, X" -> "But X"
            elif dst.endswith(",") and doc.text[end : end + 1] == ",":
                dst = dst[:-1]
            out.append(Edit(start, end, _render(doc, toks[i].text, dst), family, rule.name, rule.check))
    return out

"""Phrase rules: a run of words replaced by another where a condition on the words around it holds.

    Rule(("in", "order", "to"), "to", check=False, when=None)
    rules = index([*table_rules("phrase_pairs.tsv"), *code_rules])   first word -> its rules, named
    match(doc, rules, family) -> [Edit]

A rule matches a run of words separated by spaces only (never across punctuation or a paragraph
break), none of them protected, and never one that starts with a capital inside a sentence (a name:
"and May said"). `when(doc, i, j)` sees the first and the last token of the run; the conditions here
are the ones every family's tables use (the word after, before, the clause around). `pair`, `group`
and `connective_group` write a table's alternations in both directions; the ones with no condition at
all are data files (data/phrase_pairs.tsv).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from native_host.rewrite.edits.lexicon_data import phrase_pairs, pos_shares
from native_host.rewrite.edits.text import Doc, Edit, match_case

Cond = Callable[[Doc, int, int], bool]  # (doc, first token, last token) -> rule applies


@dataclass(frozen=True)
class Rule:
    src: tuple[str, ...]
    dst: str
    check: bool = False
    when: Cond | None = None
    name: str = ""


# --- the words around a phrase ---------------------------------------------------------------------


def next_word(doc: Doc, j: int) -> str | None:
    """The word after token j when only spaces separate them, else None (punctuation or the end)."""
    return doc.norms[j + 1] if doc.plain_gap(j) else None


def prev_word(doc: Doc, i: int) -> str | None:
    return doc.norms[i - 1] if i > 0 and doc.plain_gap(i - 1) else None


def has_pos(word: str | None, pos: str, share: float = 0.5) -> bool:
    return word is not None and pos_shares(word).get(pos, 0.0) >= share


# --- conditions --------------------------------------------------------------------------------------


def not_(cond: Cond) -> Cond:
    return lambda d, i, j: not cond(d, i, j)


def all_(*conds: Cond) -> Cond:
    return lambda d, i, j: all(c(d, i, j) for c in conds)


def next_in(words: str) -> Cond:
    wanted = set(words.split())
    return lambda d, i, j: next_word(d, j) in wanted


def next_not_in(words: str) -> Cond:
    return not_(next_in(words))


def prev_in(words: str) -> Cond:
    wanted = set(words.split())
    return lambda d, i, j: prev_word(d, i) in wanted


def prev_not_in(words: str) -> Cond:
    return not_(prev_in(words))


def next_is(pos: str, share: float = 0.5) -> Cond:
    return lambda d, i, j: has_pos(next_word(d, j), pos, share)


def word_after_in(words: str) -> Cond:
    """The next word, across punctuation ("too, for"), is one of `words`."""
    wanted = set(words.split())
    return lambda d, i, j: j + 1 < len(d.norms) and d.norms[j + 1] in wanted


def word_before_in(words: str) -> Cond:
    """The word before, across punctuation ("as well, for"), is one of `words`."""
    wanted = set(words.split())
    return lambda d, i, j: i > 0 and d.norms[i - 1] in wanted


_ADVERBS_BEFORE_VERB = set(
    "never ever always already just not often long only also still once hardly scarcely".split()
)


def verb_after_in(words: str) -> Cond:
    """The first word after the phrase that is not an adverb ("never", "already") is one of `words`."""
    wanted = set(words.split())

    def cond(doc: Doc, i: int, j: int) -> bool:
        k = j
        while (nxt := next_word(doc, k)) in _ADVERBS_BEFORE_VERB:
            k += 1
        return nxt in wanted

    return cond


def continues(doc: Doc, i: int, j: int) -> bool:
    """Another word follows with no punctuation between: a contraction may not end a clause."""
    return next_word(doc, j) is not None


def question(doc: Doc, i: int, j: int) -> bool:
    s, e = doc.sentences[doc.sentence_of(doc.tokens[i].start)]
    return doc.text[s:e].rstrip("\"'”’)] ").endswith("?")


def sentence_initial_comma(doc: Doc, i: int, j: int) -> bool:
    """The phrase opens its sentence and a comma follows it ("However, ..."); the edit takes the comma."""
    return doc.at_sentence_start(i) and doc.gap(j).startswith(", ") and j + 1 < len(doc.tokens)


def sentence_initial_plain(doc: Doc, i: int, j: int) -> bool:
    return doc.at_sentence_start(i) and doc.plain_gap(j)


def set_off(doc: Doc, i: int, j: int) -> bool:
    """Punctuation or the sentence start before the phrase."""
    return prev_word(doc, i) is None


def inside_clause(doc: Doc, i: int, j: int) -> bool:
    """Plain words on both sides: not set off by punctuation."""
    return prev_word(doc, i) is not None and next_word(doc, j) is not None


def after_comma(doc: Doc, i: int, j: int) -> bool:
    """A comma (and nothing else) comes right before the phrase."""
    return i > 0 and doc.before(i) == ", "


def clause_final(doc: Doc, i: int, j: int) -> bool:
    """The phrase ends its clause (punctuation follows) and a word comes before it."""
    return i > 0 and doc.plain_gap(i - 1) and re.match(r"[.,;:!?]", doc.gap(j)) is not None


def clause_final_any(doc: Doc, i: int, j: int) -> bool:
    return re.match(r"[.,;:!?]", doc.gap(j)) is not None


def sentence_final_phrase(doc: Doc, i: int, j: int) -> bool:
    return next_word(doc, j) is None


_NUMBER_WORDS = set(
    "two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty "
    "seventy eighty ninety hundred thousand million billion dozen half".split()
)


def before_number(doc: Doc, i: int, j: int) -> bool:
    """A number (protected digits or a number word) follows."""
    after = doc.text[doc.tokens[j].end : doc.tokens[j].end + 3]
    return bool(re.match(r" [£$€]?\d", after)) or next_word(doc, j) in _NUMBER_WORDS


def never(doc: Doc, i: int, j: int) -> bool:
    return False


# --- writing tables ----------------------------------------------------------------------------------


def pair(a: str, b: str, check_ab: bool = False, check_ba: bool = False, when_ab=None, when_ba=None):
    return [Rule(tuple(a.split()), b, check_ab, when_ab), Rule(tuple(b.split()), a, check_ba, when_ba)]


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

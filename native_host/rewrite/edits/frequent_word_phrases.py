"""Alternations aimed at Cosine Delta's most frequent words (docs/anonymization-edits.md, fourth pass).

Delta's margin is spread over ~150 function words at 0.2-1.5 % each (by, with, under, all, such, so,
very, of, them, us, still, even, round, ...), so each rule here moves a different one; all are general
English with a context condition, never keyed to a corpus. Two parts:

- data/frequent_word_phrases.tsv: phrase rules (phrase_rules.py: plain-spaced words, names and protected
  spans skipped), matched by this family's `propose`: "in accordance with" -> "according to", "under the
  circumstances" <-> "in the circumstances", "by this means" -> "in this way", "in view of the fact
  that" -> "since", "together with" <-> "along with", "still more" <-> "even more", ...
- `propose(doc)`: edits that reorder or drop words: "they all went" <-> "all of them went", "such a
  large sum" <-> "so large a sum", "a very old man" -> "an old man" (LM-checked: intensity), "There
  are many men who think" -> "Many men think".
"""

from __future__ import annotations

from functools import cache

from native_host.rewrite.edits import word_classes as wc
from native_host.rewrite.edits.phrase_conditions import has_pos, prev_word
from native_host.rewrite.edits.phrase_rules import Rule, index, match, read_rules
from native_host.rewrite.edits.text import Doc, Edit, apply_moves, article_for, match_case, negations

FAMILY = "function_word"

_ALL_PRONOUNS = {"they": "them", "we": "us"}
_ALL_OBJECTS = {v: k for k, v in _ALL_PRONOUNS.items()}


def _finite_next(doc: Doc, k: int) -> bool:
    """Token k is a finite verb or auxiliary (plural agreement: "they all are/went")."""
    if k >= len(doc.tokens):
        return False
    w = doc.norms[k]
    return w in wc.PLURAL_AUXILIARIES or (
        has_pos(w, "v", 0.6) and not w.endswith("ing") and not has_pos(w, "n", 0.5)
    )


def _clause_start(doc: Doc, i: int) -> bool:
    """Token i opens its sentence or a clause: after a plain "and/but/yet/so" or a subordinator."""
    return doc.at_sentence_start(i) or prev_word(doc, i) in wc.CLAUSE_LINKS


def _all_of_them(doc: Doc, out: list[Edit]) -> None:
    """ "they all went" <-> "all of them went", "we all know" <-> "all of us know" (the subject, a
    finite verb after it; never "you all", which may be an object)."""
    toks, norms = doc.tokens, doc.norms
    n = len(toks)
    for i in range(n - 2):
        if not (toks[i].free and toks[i + 1].free and doc.plain_gap(i) and doc.plain_gap(i + 1)):
            continue
        w = norms[i]
        if (
            w in _ALL_PRONOUNS
            and norms[i + 1] == "all"
            and _finite_next(doc, i + 2)
            and _clause_start(doc, i)
        ):
            rep = match_case(toks[i].text, f"all of {_ALL_PRONOUNS[w]}")
            out.append(
                Edit(toks[i].start, toks[i + 1].end, rep, FAMILY, f"{w} all->all of {_ALL_PRONOUNS[w]}", True)
            )
        if (
            w == "all"
            and i + 3 < n
            and norms[i + 1] == "of"
            and norms[i + 2] in _ALL_OBJECTS
            and toks[i + 2].free
            and doc.plain_gap(i + 2)
            and _finite_next(doc, i + 3)
            and _clause_start(doc, i)
        ):
            subject = _ALL_OBJECTS[norms[i + 2]]
            rep = match_case(toks[i].text, f"{subject} all")
            out.append(
                Edit(
                    toks[i].start, toks[i + 2].end, rep, FAMILY, f"all of {norms[i + 2]}->{subject} all", True
                )
            )


def _adjective(word: str) -> bool:
    return word not in wc.SO_SUCH_NOT_ADJECTIVES and has_pos(word, "a", 0.7)


def _such_so(doc: Doc, out: list[Edit]) -> None:
    """ "such a large sum" <-> "so large a sum" (a singular count noun after one adjective)."""
    toks, norms = doc.tokens, doc.norms
    n = len(toks)
    for i in range(n - 3):
        span = range(i, i + 4)
        if not all(toks[k].free for k in span) or not all(doc.plain_gap(k) for k in range(i, i + 3)):
            continue
        a, b, c, d = norms[i], norms[i + 1], norms[i + 2], norms[i + 3]
        if (
            a == "such"
            and b in ("a", "an")
            and _adjective(c)
            and has_pos(d, "n", 0.6)
            and not d.endswith("s")
        ):
            rep = f"{match_case(toks[i].text, 'so')} {toks[i + 2].text} {article_for(d)} {toks[i + 3].text}"
            out.append(Edit(toks[i].start, toks[i + 3].end, rep, FAMILY, "such a->so ADJ a", True))
        if a == "so" and _adjective(b) and c in ("a", "an") and has_pos(d, "n", 0.6) and not d.endswith("s"):
            if prev_word(doc, i) in ("and", "or", "if", "do", "think", "said", "not"):
                continue  # "and so a man", "I think so a ..." : not the degree "so"
            rep = f"{match_case(toks[i].text, 'such')} {article_for(b)} {toks[i + 1].text} {toks[i + 3].text}"
            out.append(Edit(toks[i].start, toks[i + 3].end, rep, FAMILY, "so ADJ a->such a", True))


def _very_deletion(doc: Doc, out: list[Edit]) -> None:
    """ "a very old man" -> "an old man" (the intensifier only: never after a negation — "not very
    good" is not "not good" — nor the adjective "the very man"). LM-checked: it weakens the claim."""
    toks, norms = doc.tokens, doc.norms
    for i in range(len(toks) - 1):
        if norms[i] != "very" or not toks[i].text.islower() or not (toks[i].free and toks[i + 1].free):
            continue
        if not doc.plain_gap(i) or prev_word(doc, i) in wc.VERY_DELETION_STOP_BEFORE or i == 0:
            continue
        nxt = norms[i + 1]
        if nxt in wc.VERY_DELETION_STOP_AFTER or (not has_pos(nxt, "a", 0.7) and not has_pos(nxt, "r", 0.7)):
            continue
        if "n't" in doc.norms[i - 1]:
            continue
        out.append(Edit(toks[i].start, toks[i + 1].end, toks[i + 1].text, FAMILY, "very-deletion", True))


def _there_are_who(doc: Doc, out: list[Edit]) -> None:
    """ "There are many men who think so." -> "Many men think so." (sentence start, a plural noun, a
    subject relative with its verb right after)."""
    toks, norms = doc.tokens, doc.norms
    n = len(toks)
    for i in range(n - 5):
        if not doc.at_sentence_start(i) or norms[i] != "there" or norms[i + 1] not in ("are", "were"):
            continue
        if norms[i + 2] not in wc.THERE_ARE_QUANTIFIERS or norms[i + 4] not in ("who", "that"):
            continue
        if not all(toks[k].free for k in range(i, i + 6)) or not all(
            doc.plain_gap(k) for k in range(i, i + 5)
        ):
            continue
        noun = norms[i + 3]
        plural = noun.endswith("s") or noun in wc.IRREGULAR_PLURALS
        if not (has_pos(noun, "n", 0.7) and plural) or not _finite_next(doc, i + 5):
            continue
        rep = f"{match_case(toks[i].text, norms[i + 2])} {toks[i + 3].text}"
        out.append(Edit(toks[i].start, toks[i + 4].end, rep, FAMILY, "there-are-N-who->N", True))


def _enough(doc: Doc, out: list[Edit]) -> None:
    """ "strong enough to" <-> "sufficiently strong to" (an adjective, then "to")."""
    toks, norms = doc.tokens, doc.norms
    for i in range(len(toks) - 2):
        if not all(toks[k].free for k in range(i, i + 3)) or not (doc.plain_gap(i) and doc.plain_gap(i + 1)):
            continue
        a, b, c = norms[i], norms[i + 1], norms[i + 2]
        if (
            b == "enough"
            and c == "to"
            and _adjective(a)
            and a not in wc.ENOUGH_NOT_ADJECTIVES
            and toks[i].text.islower()
        ):
            if prev_word(doc, i) in ("not", "never") or (i > 0 and "n't" in norms[i - 1]):
                continue  # "not strong enough" -> "not sufficiently strong": fine, but keep it simple
            rep = f"sufficiently {toks[i].text}"
            out.append(
                Edit(toks[i].start, toks[i + 1].end, rep, FAMILY, "ADJ enough->sufficiently ADJ", True)
            )
        if a == "sufficiently" and c == "to" and _adjective(b) and b not in wc.ENOUGH_NOT_ADJECTIVES:
            rep = match_case(toks[i].text, f"{toks[i + 1].text} enough")
            out.append(
                Edit(toks[i].start, toks[i + 1].end, rep, FAMILY, "sufficiently ADJ->ADJ enough", False)
            )


def _either_insertion(doc: Doc, out: list[Edit]) -> None:
    """ "the army or the navy" -> "either the army or the navy" (two single nouns)."""
    toks, norms = doc.tokens, doc.norms
    n = len(toks)
    for i in range(1, n - 4):
        if norms[i] != "the" or norms[i + 2] != "or" or norms[i + 3] != "the" or not toks[i].text.islower():
            continue
        if not all(doc.plain_gap(k) for k in range(i, i + 4)) or not all(
            toks[k].free for k in range(i, i + 5)
        ):
            continue
        if not (has_pos(norms[i + 1], "n", 0.7) and has_pos(norms[i + 4], "n", 0.7)):
            continue
        if doc.plain_gap(i + 4) and i + 5 < n and has_pos(norms[i + 5], "n", 0.5):
            continue  # "the army or the navy yard"
        if prev_word(doc, i) in wc.NO_CORRELATIVE_BEFORE:
            continue
        s, _ = doc.sentences[doc.sentence_of(toks[i].start)]
        if negations(doc.text[s : toks[i].start]):
            continue  # under a negation "either ... or" reads as "neither": leave the scope alone
        out.append(Edit(toks[i].start, toks[i].end, "either the", FAMILY, "either-insertion", True))


@cache
def _index() -> dict[str, list[Rule]]:
    return index(read_rules("frequent_word_phrases.tsv"))


# The word orders, in the order their edits are listed (after the phrase rules').
_MOVES = (_enough, _either_insertion, _all_of_them, _such_so, _very_deletion, _there_are_who)


def propose(doc: Doc) -> list[Edit]:
    return apply_moves(doc, _MOVES, match(doc, _index(), FAMILY))

"""Alternations aimed at Cosine Delta's most frequent words (docs/anonymization-edits.md, fourth pass).

Delta's margin is spread over ~150 function words at 0.2-1.5 % each (by, with, under, all, such, so,
very, of, them, us, still, even, round, ...), so each rule here moves a different one; all are general
English with a context condition, never keyed to a corpus. Two parts:

- `rules()`: phrase rules (phrase_rules.py: plain-spaced words, names and protected spans skipped),
  matched by this family's `propose`: "in accordance with" -> "according to", "under the
  circumstances" <-> "in the circumstances", "by this means" -> "in this way", "in view of the fact
  that" -> "since", "together with" <-> "along with", "still more" <-> "even more", ...
- `propose(doc)`: edits that reorder or drop words: "they all went" <-> "all of them went", "such a
  large sum" <-> "so large a sum", "a very old man" -> "an old man" (LM-checked: intensity), "There
  are many men who think" -> "Many men think".
"""

from __future__ import annotations

from functools import cache

from native_host.rewrite.edits.phrase_rules import (
    Rule,
    all_,
    before_number,
    clause_final,
    has_pos,
    index,
    match,
    next_in,
    next_not_in,
    next_word,
    prev_in,
    prev_not_in,
    prev_word,
    sentence_initial_comma,
)
from native_host.rewrite.edits.text import Doc, Edit, article_for, match_case, negations

FAMILY = "function_word"

_DETERMINERS = "the a an this that these those his her their its our my your some any every each no"
_CIRCUMSTANCE_DETERMINERS = ("the", "these", "those", "such", "present", "existing")
_PART_VERBS = "is was are were be been form forms formed forming become becomes became constitute constitutes"
_BE_AUX = "is was are were be been will would shall should may might must can could has have had does did"
_TURN_VERBS = "turn turned turns turning look looked looks looking come came comes coming go went goes going"


def _next_is_determiner(doc: Doc, i: int, j: int) -> bool:
    return next_word(doc, j) in set(_DETERMINERS.split())


def _not_clause_start_connective(doc: Doc, i: int, j: int) -> bool:
    """ "Besides, he was ill": the connective, not the preposition."""
    return not sentence_initial_comma(doc, i, j)


# "all along with eager questions" (all the while) and "came along with us" (a particle of the verb)
# are not the preposition "along with"; nor is "all together with" or "got together with" "together with".
_PARTICLE_BEFORE = "all " + _TURN_VERBS + " get got gets getting went brought bring take took taken"


def _not_after_a_verb_or_all(doc: Doc, i: int, j: int) -> bool:
    prev = prev_word(doc, i)
    return prev not in set(_PARTICLE_BEFORE.split()) and not has_pos(prev, "v", 0.5)


def _compared(doc: Doc, i: int, j: int) -> bool:
    nxt = next_word(doc, j)
    return nxt is not None and not has_pos(nxt, "v", 0.5) and not nxt.endswith("ing")


def rules() -> list[Rule]:
    r: list[Rule] = []
    # with / to / of / along / together
    r += [
        Rule(("in", "accordance", "with"), "according to", False, _next_is_determiner),
        Rule(("compared", "with"), "compared to", False, _compared),
        Rule(("compared", "to"), "compared with", False, _compared),
        Rule(("in", "comparison", "with"), "compared with", False, _compared),
        Rule(("in", "comparison", "to"), "compared to", False, _compared),
        Rule(("together", "with"), "along with", False, _not_after_a_verb_or_all),
        Rule(("along", "with"), "together with", False, _not_after_a_verb_or_all),
        Rule(("in", "conjunction", "with"), "together with", True, None),
        Rule(("with", "the", "aid", "of"), "with the help of", False, None),
        Rule(("with", "the", "help", "of"), "with the aid of", True, None),
        Rule(("in", "the", "place", "of"), "in place of", False, None),
        Rule(("in", "place", "of"), "instead of", True, _next_is_determiner),
        Rule(("instead", "of"), "in place of", True, _next_is_determiner),
        Rule(("in", "addition", "to"), "besides", False, _next_is_determiner),
        Rule(("besides",), "in addition to", True, all_(_not_clause_start_connective, _next_is_determiner)),
    ]
    # under / in: "under the circumstances" = "in the circumstances"
    for det in _CIRCUMSTANCE_DETERMINERS:
        r += [
            Rule(("under", det, "circumstances"), f"in {det} circumstances", False, None),
            Rule(("in", det, "circumstances"), f"under {det} circumstances", True, None),
        ]
    # by: fixed phrases with a plainer equivalent (the passive "by" needs a parser: not here)
    r += [
        Rule(("by", "no", "means"), "in no way", False, None),
        Rule(("in", "no", "way"), "by no means", True, None),
        Rule(("by", "reason", "of"), "because of", False, None),
        Rule(("by", "this", "means"), "in this way", False, None),
        Rule(("by", "these", "means"), "in this way", True, None),
        Rule(("by", "that", "means"), "in that way", False, None),
        Rule(("by", "which", "means"), "whereby", True, None),
        Rule(("in", "this", "way"), "by this means", True, clause_final),
    ]
    # "the fact that" after a preposition: one conjunction says it
    for phrase, conj in [
        ("in view of the fact that", "since"),
        ("in spite of the fact that", "although"),
        ("notwithstanding the fact that", "although"),
        ("on account of the fact that", "because"),
        ("by virtue of the fact that", "because"),
        ("because of the fact that", "because"),
        ("given the fact that", "given that"),
        ("except for the fact that", "except that"),
        ("but for the fact that", "except that"),
    ]:
        r.append(Rule(tuple(phrase.split()), conj, False, None))
    # conditions
    r += [
        Rule(("provided", "that"), "if", True, next_in("the a an he she it they we i you this there")),
        Rule(("providing", "that"), "provided that", False, None),
        Rule(("on", "condition", "that"), "provided that", False, None),
        Rule(("provided", "that"), "on condition that", True, next_in("the a an he she it they we i you")),
    ]
    # time
    r += [
        Rule(("at", "the", "present", "time"), "at present", False, None),
        Rule(("at", "the", "present", "moment"), "at present", False, None),
        Rule(("at", "first", "sight"), "at first glance", False, None),
        Rule(("at", "first", "glance"), "at first sight", False, None),
        Rule(("at", "the", "outset"), "at the start", False, None),
        Rule(("at", "the", "start"), "at the outset", True, clause_final),
        Rule(("as", "yet"), "so far", True, all_(clause_final, prev_not_in("not never"))),
        Rule(
            ("at", "the", "same", "time"),
            "simultaneously",
            True,
            all_(clause_final, prev_not_in("and but")),
        ),
    ]
    # still / even before a comparative; "still less" is the negative-polarity "much less"
    r += [
        Rule(("still", "more"), "even more", False, next_not_in("than")),
        Rule(("even", "more"), "still more", True, next_not_in("than")),
        Rule(("still", "less"), "even less", True, next_not_in("than")),
        Rule(("even", "less"), "still less", True, next_not_in("than")),
        Rule(("still", "greater"), "even greater", False, None),
        Rule(("even", "greater"), "still greater", True, None),
    ]
    # quantities
    r += [
        Rule(("much", "of", "the"), "a great deal of the", True, prev_not_in("how so too as very not")),
        # one way only: "under two exceptions" is "subject to", not a quantity
        Rule(("less", "than"), "under", True, before_number),
        Rule(("the", "others"), "the rest", True, all_(prev_not_in("of all"), _not_possessive)),
    ]
    for big in ("hundred", "thousand", "million"):
        # "a hundred men" <-> "one hundred men" (not "a hundred and fifty": the same either way)
        r += [
            Rule(("a", big), f"one {big}", False, next_not_in("of")),
            Rule(("one", big), f"a {big}", False, all_(prev_not_in("and"), next_not_in("of"))),
        ]
    # "for want of" = "for lack of" (the noun "want": a determiner or "for" before it)
    r.append(Rule(("want", "of"), "lack of", False, prev_in("for the a no great entire total utter from")))
    # "less" before a plural count noun is "fewer" ("less men"; not "less pains": idioms are rare)
    r.append(Rule(("less",), "fewer", True, all_(_plural_count_noun_next, prev_not_in("no more much far"))))
    # "by establishing courts" -> "through establishing courts" (the means; the passive "by" stays)
    r.append(Rule(("by",), "through", True, _gerund_object_next))
    # "it was indeed a" <-> "it was in fact a" inside a clause, after a verb of being or an auxiliary
    r += [
        Rule(("indeed",), "in fact", False, all_(prev_in(_BE_AUX), next_not_in("so"))),
        Rule(("in", "fact"), "indeed", False, all_(prev_in(_BE_AUX), next_not_in("so"))),
        Rule(("really",), "indeed", True, all_(prev_in(_BE_AUX), next_in(_DETERMINERS))),
    ]
    # "forms a part of" = "forms part of"
    r += [
        Rule(("a", "part", "of"), "part of", False, prev_in(_PART_VERBS)),
        Rule(("part", "of"), "a part of", True, prev_in(_PART_VERBS)),
    ]
    # others / other people / the rest
    r += [
        Rule(("other", "people"), "others", False, prev_not_in(_DETERMINERS + " many some few all")),
        Rule(("others",), "other people", True, all_(_people_verb_next, prev_not_in(_DETERMINERS + " and"))),
        Rule(("the", "rest"), "the others", True, all_(next_not_in("of"), prev_not_in("of all for"))),
    ]
    # round / around after a verb of turning or going ("turned round" = "turned around")
    r += [
        Rule(("round",), "around", False, all_(prev_in(_TURN_VERBS), _clause_final_or_to)),
        Rule(("around",), "round", True, all_(prev_in(_TURN_VERBS), _clause_final_or_to)),
    ]
    return r


def _plural_count_noun_next(doc: Doc, i: int, j: int) -> bool:
    nxt = next_word(doc, j)
    return (
        nxt is not None
        and (
            nxt in _IRREGULAR_PLURALS
            or (nxt.endswith("s") and not nxt.endswith(("ss", "ous", "ics", "ness")))
        )
        and has_pos(nxt, "n", 0.8)
        and nxt not in _NOT_COUNT_PLURALS
    )


_NOT_COUNT_PLURALS = set(
    "pains means odds thanks news wages riches goods clothes arms amends manners spirits".split()
)


def _gerund_object_next(doc: Doc, i: int, j: int) -> bool:
    """ "by establishing courts": an -ing verb with an object after it (so not "by the time", "by
    evening", "stood by watching")."""
    nxt = next_word(doc, j)
    if nxt is None or not nxt.endswith("ing") or not has_pos(nxt, "v", 0.5) or nxt in ("being", "having"):
        return False
    after = next_word(doc, j + 1)
    return (
        after is not None
        and (after in set(_DETERMINERS.split()) or has_pos(after, "n", 0.6))
        and (
            prev_word(doc, i) not in ("stood", "standing", "passed", "passing", "went", "go", "sat", "stand")
        )
    )


_PEOPLE_VERBS = set(
    "think thought say said believe believed know knew feel felt hope hoped fear feared want wanted "
    "claim claimed argue argued".split()
)


def _people_verb_next(doc: Doc, i: int, j: int) -> bool:
    """ "others think": a verb of saying or thinking says the others are people."""
    return next_word(doc, j) in _PEOPLE_VERBS


def _not_possessive(doc: Doc, i: int, j: int) -> bool:
    return not doc.gap(j).startswith(("'", "’"))


def _clause_final_or_to(doc: Doc, i: int, j: int) -> bool:
    return clause_final(doc, i, j) or next_word(doc, j) in ("to", "and")


_CLAUSE_OPENERS = set("and but yet so that because when if since though although while until".split())
_ALL_PRONOUNS = {"they": "them", "we": "us"}
_ALL_OBJECTS = {v: k for k, v in _ALL_PRONOUNS.items()}
_AUX = set("are were have had will would can could may might must shall should do did".split())


def _finite_next(doc: Doc, k: int) -> bool:
    """Token k is a finite verb or auxiliary (plural agreement: "they all are/went")."""
    if k >= len(doc.tokens):
        return False
    w = doc.norms[k]
    return w in _AUX or (has_pos(w, "v", 0.6) and not w.endswith("ing") and not has_pos(w, "n", 0.5))


def _clause_start(doc: Doc, i: int) -> bool:
    """Token i opens its sentence or a clause: after a plain "and/but/yet/so" or a subordinator."""
    return doc.at_sentence_start(i) or prev_word(doc, i) in _CLAUSE_OPENERS


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


_SO_SUCH_ADJ_STOP = set(
    "much many few little more less other same own only very most last first next such".split()
)


def _adjective(word: str) -> bool:
    return word not in _SO_SUCH_ADJ_STOP and has_pos(word, "a", 0.7)


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


_VERY_STOP_BEFORE = set(
    "not never hardly scarcely nor the this that these those his her their its our my your same".split()
)
_VERY_STOP_AFTER = set("much many few little well good best first last same own next end beginning".split())


def _very_deletion(doc: Doc, out: list[Edit]) -> None:
    """ "a very old man" -> "an old man" (the intensifier only: never after a negation — "not very
    good" is not "not good" — nor the adjective "the very man"). LM-checked: it weakens the claim."""
    toks, norms = doc.tokens, doc.norms
    for i in range(len(toks) - 1):
        if norms[i] != "very" or not toks[i].text.islower() or not (toks[i].free and toks[i + 1].free):
            continue
        if not doc.plain_gap(i) or prev_word(doc, i) in _VERY_STOP_BEFORE or i == 0:
            continue
        nxt = norms[i + 1]
        if nxt in _VERY_STOP_AFTER or (not has_pos(nxt, "a", 0.7) and not has_pos(nxt, "r", 0.7)):
            continue
        if "n't" in doc.norms[i - 1]:
            continue
        out.append(Edit(toks[i].start, toks[i + 1].end, toks[i + 1].text, FAMILY, "very-deletion", True))


_MANY_WORDS = ("many", "few", "several", "some")
_IRREGULAR_PLURALS = set("men women people children".split())


def _there_are_who(doc: Doc, out: list[Edit]) -> None:
    """ "There are many men who think so." -> "Many men think so." (sentence start, a plural noun, a
    subject relative with its verb right after)."""
    toks, norms = doc.tokens, doc.norms
    n = len(toks)
    for i in range(n - 5):
        if not doc.at_sentence_start(i) or norms[i] != "there" or norms[i + 1] not in ("are", "were"):
            continue
        if norms[i + 2] not in _MANY_WORDS or norms[i + 4] not in ("who", "that"):
            continue
        if not all(toks[k].free for k in range(i, i + 6)) or not all(
            doc.plain_gap(k) for k in range(i, i + 5)
        ):
            continue
        noun = norms[i + 3]
        plural = noun.endswith("s") or noun in _IRREGULAR_PLURALS
        if not (has_pos(noun, "n", 0.7) and plural) or not _finite_next(doc, i + 5):
            continue
        rep = f"{match_case(toks[i].text, norms[i + 2])} {toks[i + 3].text}"
        out.append(Edit(toks[i].start, toks[i + 4].end, rep, FAMILY, "there-are-N-who->N", True))


_ENOUGH_STOP = set("long well far much many few little soon often good".split())


def _enough(doc: Doc, out: list[Edit]) -> None:
    """ "strong enough to" <-> "sufficiently strong to" (an adjective, then "to")."""
    toks, norms = doc.tokens, doc.norms
    for i in range(len(toks) - 2):
        if not all(toks[k].free for k in range(i, i + 3)) or not (doc.plain_gap(i) and doc.plain_gap(i + 1)):
            continue
        a, b, c = norms[i], norms[i + 1], norms[i + 2]
        if b == "enough" and c == "to" and _adjective(a) and a not in _ENOUGH_STOP and toks[i].text.islower():
            if prev_word(doc, i) in ("not", "never") or (i > 0 and "n't" in norms[i - 1]):
                continue  # "not strong enough" -> "not sufficiently strong": fine, but keep it simple
            rep = f"sufficiently {toks[i].text}"
            out.append(
                Edit(toks[i].start, toks[i + 1].end, rep, FAMILY, "ADJ enough->sufficiently ADJ", True)
            )
        if a == "sufficiently" and c == "to" and _adjective(b) and b not in _ENOUGH_STOP:
            rep = match_case(toks[i].text, f"{toks[i + 1].text} enough")
            out.append(
                Edit(toks[i].start, toks[i + 1].end, rep, FAMILY, "sufficiently ADJ->ADJ enough", False)
            )


_NO_EITHER_BEFORE = set("between both either neither whether among amongst".split())


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
        if prev_word(doc, i) in _NO_EITHER_BEFORE:
            continue
        s, _ = doc.sentences[doc.sentence_of(toks[i].start)]
        if negations(doc.text[s : toks[i].start]):
            continue  # under a negation "either ... or" reads as "neither": leave the scope alone
        out.append(Edit(toks[i].start, toks[i].end, "either the", FAMILY, "either-insertion", True))


@cache
def _index() -> dict[str, list[Rule]]:
    return index(rules())


def propose(doc: Doc) -> list[Edit]:
    out = match(doc, _index(), FAMILY)
    _enough(doc, out)
    _either_insertion(doc, out)
    _all_of_them(doc, out)
    _such_so(doc, out)
    _very_deletion(doc, out)
    _there_are_who(doc, out)
    return out

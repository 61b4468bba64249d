"""Alternations on the commonest marks and words: optional commas, semicolons before a coordinator,
", which" + verb as a new sentence, "this/these" + noun as "the" + noun.

Commas are the most frequent mark in every corpus the eval reads (18-21 per 250 words) and the word
families around them ("and", "that", "which", "the") head the attackers' most-frequent-word lists, so a
text's comma and determiner habits are part of its fingerprint. Each move here is one a copy editor
makes without changing what the sentence says; where the reading is uncertain (a determiner's
reference, a new sentence's "This") the edit asks for the language-model check.
"""

from __future__ import annotations

import re

from native_host.rewrite.edits import word_classes as wc
from native_host.rewrite.edits.lexicon_data import pos_shares
from native_host.rewrite.edits.syntax import OPENING_CLAUSE, inside_subordinate_clause
from native_host.rewrite.edits.text import WORD_RE, Doc, Edit, apply_moves

SYNTAX = "syntax"
FUNCTION_WORD = "function_word"


def _words(s: str) -> list[str]:
    return WORD_RE.findall(s)


def _is(word: str, pos: str, share: float) -> bool:
    return pos_shares(word.lower()).get(pos, 0.0) >= share


def _verbish(word: str) -> bool:
    w = word.lower()
    return w in wc.FINITE_AUXILIARIES or (_is(w, "v", 0.6) and not _is(w, "n", 0.4))


def _has_verb(s: str) -> bool:
    return any(_verbish(w) and not w.lower().endswith("ing") for w in _words(s))


def _clause_start(sent: str, pos: int) -> int:
    """Where the clause holding `pos` starts: after the last ; or : before it, else 0."""
    k = max(sent.rfind(";", 0, pos), sent.rfind(":", 0, pos))
    return k + 1


def _sentences(doc: Doc):
    for s, e in doc.sentences:
        yield s, doc.text[s:e]


def _edit(
    doc: Doc, start: int, end: int, replacement: str, family: str, rule: str, check: bool
) -> Edit | None:
    return Edit(start, end, replacement, family, rule, check) if doc.free(start, end) else None


_COMMA_THAT = re.compile(r"(?<=[^\W\d_]), that (?P<next>[^\W\d_]+)")


def _comma_before_that(doc: Doc, out: list[Edit]) -> None:
    """ "It is evident, that the" -> "It is evident that the" (an 18th-century habit; the comma
    before a that-clause is optional). Only where no other comma opens the clause, so the comma is not
    the end of an interruption ("evident, in the first place, that")."""
    for s, sent in _sentences(doc):
        for m in _COMMA_THAT.finditer(sent):
            if m.group("next").lower() not in wc.CLAUSE_SUBJECT_STARTERS:
                continue
            if "," in sent[_clause_start(sent, m.start()) : m.start()]:
                continue
            if len(_words(sent[: m.start()])) < 2:
                continue
            start = s + m.start()
            if e := _edit(doc, start, start + 2, " ", SYNTAX, "comma:before-that-drop", False):
                out.append(e)


_SEMI_COORD = re.compile(r"(?<=[^\W\d_]); (?P<conj>and|but|or|yet|for) (?=[^\W\d_])")
_COMMA_COORD = re.compile(r"(?<=[^\W\d_]), (?P<conj>and|but) (?P<next>[^\W\d_]+)")


def _semicolon_coordinators(doc: Doc, out: list[Edit]) -> None:
    """ "X; and Y" <-> "X, and Y" (two clauses: a verb on each side), and "X, and he Y" -> "X; he Y"
    in a long sentence."""
    for s, sent in _sentences(doc):
        for m in _SEMI_COORD.finditer(sent):
            left = sent[_clause_start(sent, m.start()) : m.start()]
            right = re.split(r"[;:]", sent[m.end() :], maxsplit=1)[0]
            if not (_has_verb(left) and _has_verb(right)):
                continue
            start = s + m.start()
            if e := _edit(doc, start, start + 1, ",", SYNTAX, "semicolon->comma:" + m.group("conj"), False):
                out.append(e)
        if len(_words(sent)) < 22:
            continue
        for m in _COMMA_COORD.finditer(sent):
            head = m.group("next").lower()
            if head not in wc.PRONOUN_SUBJECTS and not _determiner_clause(sent[m.start("next") :]):
                continue  # "and the use he makes of it" is a noun phrase, not a clause
            right = re.split(r"[,;:]", sent[m.end("conj") :], maxsplit=1)[0]
            left = sent[_clause_start(sent, m.start()) : m.start()]
            if not (_has_verb(left) and _has_verb(right)) or len(_words(left)) < 6:
                continue
            if "not only" in left.lower() or ";" in sent:
                continue
            if inside_subordinate_clause(sent[: m.start()], sent[m.end("conj") :]):
                continue  # "if X were swept away; we stood alone, I would": the "if" clause cut in two
            start = s + m.start()
            if e := _edit(doc, start, start + 1, ";", SYNTAX, "comma->semicolon:" + m.group("conj"), False):
                out.append(e)
            if m.group("conj") == "and" and (
                e := _edit(doc, start, s + m.end("conj"), ";", SYNTAX, "and->semicolon", False)
            ):
                out.append(e)


def _determiner_clause(s: str) -> bool:
    """ "the Senate is ..." / "the whole body was ...": a determiner, one or two words, an auxiliary."""
    m = re.match(r"([^\W\d_]+) ([^\W\d_]+) (?:([^\W\d_]+) )?", s)
    if not m or m.group(1).lower() not in wc.CLAUSE_DETERMINERS:
        return False
    second, third = m.group(2).lower(), (m.group(3) or "").lower()
    if second in wc.FINITE_AUXILIARIES:
        return False
    return (third in wc.FINITE_AUXILIARIES and _is(second, "n", 0.6)) or (
        bool(third)
        and _is(third, "n", 0.6)
        and re.match(r"(?:is|was|are|were|has|had|will|would) ", s[m.end() :]) is not None
    )


_INTERRUPTER_GROUPS = [
    ["however", "nevertheless", "nonetheless"],
    ["therefore", "consequently", "accordingly"],
    ["indeed", "in fact"],
    ["moreover", "furthermore"],
    ["of course", "naturally"],
    ["perhaps", "possibly"],
    ["in short", "in brief"],
    ["in general", "on the whole"],
    ["at any rate", "in any case"],
    ["as it were", "so to speak"],
    ["for example", "for instance"],
]
_INTERRUPTER_ALTERNATIVES = {a: [b for b in g if b != a] for g in _INTERRUPTER_GROUPS for a in g}
_INTERRUPTER_RE = re.compile(
    r"(?<=[^\W\d_]), (?P<adv>"
    + "|".join(sorted(_INTERRUPTER_ALTERNATIVES, key=len, reverse=True))
    + r"), (?=[^\W\d_])"
)


def _interrupters(doc: Doc, out: list[Edit]) -> None:
    """ "He, however, refused." -> "He, nevertheless, refused.": a connective set off by commas inside
    a sentence, for another of its group."""
    for m in _INTERRUPTER_RE.finditer(doc.text):
        start, end = m.span("adv")
        for alt in _INTERRUPTER_ALTERNATIVES[m.group("adv")]:
            rule = f"{m.group('adv')}->{alt}"
            if e := _edit(doc, start, end, alt, FUNCTION_WORD, rule, alt not in wc.SURE_INTERRUPTERS):
                out.append(e)


_COMMA_CONJ_PREDICATE = re.compile(r"(?<=[^\W\d_]), (?P<conj>and|but|or) (?P<next>[^\W\d_]+)")


def _predicate_commas(doc: Doc, out: list[Edit]) -> None:
    """ "He rose, and went out" -> "He rose and went out"; "small, but strong" -> "small but strong":
    the comma before a coordinated verb or adjective is optional. Not where the clause has another
    comma before it (a list, an interruption)."""
    for s, sent in _sentences(doc):
        for m in _COMMA_CONJ_PREDICATE.finditer(sent):
            nxt = m.group("next").lower()
            if nxt in wc.CLAUSE_SUBJECT_STARTERS or nxt in wc.PREPOSITIONS:
                continue
            if not (_verbish(nxt) or _is(nxt, "a", 0.7)):
                continue
            left = sent[_clause_start(sent, m.start()) : m.start()]
            if "," in left or len(_words(left)) < 3:
                continue
            start = s + m.start()
            if e := _edit(doc, start, start + 2, " ", SYNTAX, "comma:predicate-drop", False):
                out.append(e)


_FINAL_SUB_DROP = re.compile(
    r"(?<=[^\W\d_]), (?P<sub>because|if|when|unless|until|before|after|once|as soon as) (?=[^\W\d_])"
)
_FINAL_SUB_ADD = re.compile(r"(?<=[^\W\d_]) (?P<sub>because|although|though|whereas) (?=[^\W\d_])")


def _final_adverbial_commas(doc: Doc, out: list[Edit]) -> None:
    """A clause-final adverbial clause with or without its comma: "X, because Y." <-> "X because Y."
    (the clause runs to the sentence end with no other mark, the sentence opens with its main clause)."""
    for s, sent in _sentences(doc):
        first = WORD_RE.search(sent)
        if first is None or first.group().lower() in wc.SUBORDINATORS:
            continue
        for m in _FINAL_SUB_DROP.finditer(sent):
            rest = sent[m.end() :]
            if re.search(r"[,;:()—–\"“”]", rest.rstrip(".!?\"'”’)")) or not _has_verb(rest):
                continue
            if len(_words(sent[: m.start()])) < 4:
                continue
            start = s + m.start()
            if e := _edit(doc, start, start + 2, " ", SYNTAX, f"comma:before-{m.group('sub')}-drop", False):
                out.append(e)
        for m in _FINAL_SUB_ADD.finditer(sent):
            before = _words(sent[: m.start()])
            if len(before) < 5 or before[-1].lower() in wc.NO_COMMA_BEFORE_SUBORDINATOR:
                continue
            rest = sent[m.end() :]
            if re.search(r"[,;:()—–\"“”]", rest.rstrip(".!?\"'”’)")) or not _has_verb(rest):
                continue
            pos = s + m.start()
            word = WORD_RE.search(doc.text, pos - len(before[-1]), pos)
            if word is None or word.end() != pos:
                continue
            if e := _edit(
                doc,
                word.start(),
                pos,
                word.group() + ",",
                SYNTAX,
                f"comma:before-{m.group('sub')}-add",
                False,
            ):
                out.append(e)


_SUBJECT_WORD = re.compile(r"(?P<subject>[^\W\d_]+) ")
_OPENING_PP = re.compile(
    r"^(?P<prep>In|On|At|For|After|Before|During|With|By|From|Under|Among|Within|Through|Upon) "
    r"(?P<np>(?:[^\W\d_]+ ){0,3}[^\W\d_]+), (?P<subject>the|a|an|this|these|his|her|their|its|our|my|such|every|each|some|many|all) "
)


def _opening_commas(doc: Doc, out: list[Edit]) -> None:
    """The comma after a short opening clause or phrase: "When he came, she left." -> "When he came she
    left."; "In the morning, the men left." -> "In the morning the men left." (short ones only)."""
    for s, sent in _sentences(doc):
        m = OPENING_CLAUSE.match(sent)
        subject = _SUBJECT_WORD.match(sent, m.end()) if m else None
        if (
            m
            and subject
            and m.group("sub").lower() in wc.COMMA_OPTIONAL_SUBORDINATORS
            and "—" not in m.group("clause")  # no dash in the clause
            and len(_words(m.group("clause"))) <= 6
            and subject.group("subject").lower() in wc.PRONOUN_SUBJECTS
        ):
            pos = s + m.end("clause")
            if e := _edit(doc, pos, pos + 2, " ", SYNTAX, "comma:opening-clause-drop", False):
                out.append(e)
        m = _OPENING_PP.match(sent)
        if (
            m
            and all(not _verbish(w) for w in _words(m.group("np")))
            and _is(_words(m.group("np"))[-1], "n", 0.5)
        ):
            pos = s + m.end("np")
            if e := _edit(doc, pos, pos + 2, " ", SYNTAX, "comma:opening-phrase-drop", False):
                out.append(e)


_WHICH_VERB = re.compile(
    r"(?<=[^\W\d_]), which (?P<verb>is|was|has|had|will|would|can|could|may|might|must|should|seems|seemed|"
    r"appears|appeared|makes|made|gives|gave|means|meant|shows|showed|proves|proved|renders|rendered|"
    r"leads|led|allows|allowed|explains|explained|are|were|have)(?= [^\W\d_])"
)


def _which_splits(doc: Doc, out: list[Edit]) -> None:
    """ "The bill passed, which was a surprise." -> "The bill passed. This was a surprise." (the
    relative clause runs to the sentence end; "are/were/have" take "These")."""
    for s, sent in _sentences(doc):
        if not sent.rstrip("\"'”’)]").endswith("."):
            continue
        for m in _WHICH_VERB.finditer(sent):
            rest = sent[m.end() :]
            if re.search(r"[,;:()—–\"“”]", rest.rstrip(".!?\"'”’)")) or len(_words(rest)) < 2:
                continue
            left = sent[: m.start()]
            if len(_words(left)) < 6 or not _has_verb(left) or left.count("(") != left.count(")"):
                continue
            head = "These" if m.group("verb") in ("are", "were", "have") else "This"
            start = s + m.start()
            if e := _edit(
                doc, start, s + m.end("verb"), f". {head} {m.group('verb')}", SYNTAX, "split:which", True
            ):
                out.append(e)


_LONE_DASH_CLAUSE = re.compile(r"(?<=[^\W\d_])—(?P<head>I|he|she|we|they|it|there|you) (?P<verb>[^\W\d_]+)")


def _dash_clauses(doc: Doc, out: list[Edit]) -> None:
    """ "a mere ruin of humanity—he knew no limits" -> "humanity; he knew" / "humanity. He knew": a lone
    dash before a pronoun and its verb joins two clauses (pairs of dashes are asides: left alone)."""
    text = doc.text
    for m in _LONE_DASH_CLAUSE.finditer(text):
        s0, s1 = doc.sentences[doc.sentence_of(m.start())]
        if text[s0:s1].count("—") != 1 or not _verbish(m.group("verb")):
            continue
        if len(_words(text[s0 : m.start()])) < 4:
            continue
        head = m.group("head")
        if e := _edit(doc, m.start(), m.end("head"), "; " + head, SYNTAX, "dash->semicolon", False):
            out.append(e)
        cap = head[:1].upper() + head[1:]
        if e := _edit(doc, m.start(), m.end("head"), ". " + cap, SYNTAX, "split:dash", True):
            out.append(e)


def _determiners(doc: Doc, out: list[Edit]) -> None:
    """ "this power" -> "the power", "these provisions" -> "the provisions": a demonstrative that
    points back to something named before reads the same with "the" (LM check: not where it contrasts).
    Never "this morning" (deixis of time) or "this is" (a pronoun)."""
    toks, norms = doc.tokens, doc.norms
    for i in range(len(toks) - 1):
        w = norms[i]
        if w not in ("this", "these") or not doc.plain_gap(i) or not (toks[i].free and toks[i + 1].free):
            continue
        nxt = norms[i + 1]
        if nxt in wc.TIME_NOUNS or not _is(nxt, "n", 0.7) or _is(nxt, "v", 0.3):
            continue
        if w == "these" and not nxt.endswith("s"):
            continue
        if w == "this" and nxt.endswith("s") and not nxt.endswith("ss"):
            continue
        if i > 0 and norms[i - 1] in ("like", "of", "all") and doc.plain_gap(i - 1):
            continue  # "all these things", "like this one": the demonstrative carries the meaning
        if i > 0 and norms[i - 1] in ("in", "from", "on", "under", "at", "to") and nxt in wc.THIS_IDIOM_NOUNS:
            continue  # "in this view", "from this point", "at this point": a fixed phrase pointing back
        t = toks[i]
        rep = "The" if t.text[:1].isupper() else "the"
        out.append(Edit(t.start, t.end, rep, FUNCTION_WORD, f"{w}->the", True))


# The moves in the order their edits are listed.
_MOVES = (
    _comma_before_that, _semicolon_coordinators, _predicate_commas, _final_adverbial_commas, _opening_commas,
    _which_splits, _determiners, _interrupters, _dash_clauses,
)  # fmt: skip


def propose(doc: Doc) -> list[Edit]:
    return apply_moves(doc, _MOVES)

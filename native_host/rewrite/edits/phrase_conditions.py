"""The conditions a phrase rule may put on the words around it, registered by name for the tables.

    when = condition("prev_not_in(WHILE_AS_NOUN_AFTER) & continues")   # a table's `when` cell
    when(doc, i, j) -> bool    # i, j: the first and the last token of the matched words

A cell is terms joined by " & ", each a condition's name (`continues`), "not " + a term, or a maker with
its words (`next_in(the a)`, `next_is(a 0.6)`); CAPITALS among the words name a class of word_classes.py.
A name is a function below marked @registered; a maker is one of MAKERS.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from native_host.rewrite.edits import word_classes as wc
from native_host.rewrite.edits.lexicon_data import pos_shares
from native_host.rewrite.edits.text import Doc

Cond = Callable[[Doc, int, int], bool]  # (doc, first token, last token) -> rule applies


# The conditions a table may name, by their names (each function below marked @registered).
CONDITIONS: dict[str, Cond] = {}


def registered(cond: Callable[[Doc, int, int], bool]) -> Callable[[Doc, int, int], bool]:
    CONDITIONS[cond.__name__] = cond
    return cond


# --- the words around a phrase ---------------------------------------------------------------------


def next_word(doc: Doc, j: int) -> str | None:
    """The word after token j when only spaces separate them, else None (punctuation or the end)."""
    return doc.norms[j + 1] if doc.plain_gap(j) else None


def prev_word(doc: Doc, i: int) -> str | None:
    return doc.norms[i - 1] if i > 0 and doc.plain_gap(i - 1) else None


def has_pos(word: str | None, pos: str, share: float = 0.5) -> bool:
    return word is not None and pos_shares(word).get(pos, 0.0) >= share


# --- makers: a condition from words ------------------------------------------------------------------


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


def verb_after_in(words: str) -> Cond:
    """The first word after the phrase that is not an adverb ("never", "already") is one of `words`."""
    wanted = set(words.split())

    def cond(doc: Doc, i: int, j: int) -> bool:
        k = j
        while (nxt := next_word(doc, k)) in wc.ADVERBS_BEFORE_VERB:
            k += 1
        return nxt in wanted

    return cond


def partner_follows(word: str) -> Cond:
    """ "both the army and the navy", "either the army or": the partner word comes within four plain
    words."""

    def cond(doc: Doc, i: int, j: int) -> bool:
        for k in range(j + 1, min(j + 5, len(doc.tokens))):
            if not doc.plain_gap(k - 1):
                return False
            if doc.norms[k] == word:
                return True
        return False

    return cond


# --- where the phrase stands ---------------------------------------------------------------------------


@registered
def continues(doc: Doc, i: int, j: int) -> bool:
    """Another word follows with no punctuation between: a contraction may not end a clause."""
    return next_word(doc, j) is not None


@registered
def question(doc: Doc, i: int, j: int) -> bool:
    s, e = doc.sentences[doc.sentence_of(doc.tokens[i].start)]
    return doc.text[s:e].rstrip("\"'”’)] ").endswith("?")


@registered
def sentence_initial_comma(doc: Doc, i: int, j: int) -> bool:
    """The phrase opens its sentence and a comma follows it ("However, ..."); the edit takes the comma."""
    return doc.at_sentence_start(i) and doc.gap(j).startswith(", ") and j + 1 < len(doc.tokens)


@registered
def sentence_initial_plain(doc: Doc, i: int, j: int) -> bool:
    return doc.at_sentence_start(i) and doc.plain_gap(j)


@registered
def set_off(doc: Doc, i: int, j: int) -> bool:
    """Punctuation or the sentence start before the phrase."""
    return prev_word(doc, i) is None


@registered
def inside_clause(doc: Doc, i: int, j: int) -> bool:
    """Plain words on both sides: not set off by punctuation."""
    return prev_word(doc, i) is not None and next_word(doc, j) is not None


@registered
def after_comma(doc: Doc, i: int, j: int) -> bool:
    """A comma (and nothing else) comes right before the phrase."""
    return i > 0 and doc.before(i) == ", "


@registered
def clause_final(doc: Doc, i: int, j: int) -> bool:
    """The phrase ends its clause (punctuation follows) and a word comes before it."""
    return i > 0 and doc.plain_gap(i - 1) and re.match(r"[.,;:!?]", doc.gap(j)) is not None


@registered
def clause_final_any(doc: Doc, i: int, j: int) -> bool:
    return re.match(r"[.,;:!?]", doc.gap(j)) is not None


@registered
def sentence_final_phrase(doc: Doc, i: int, j: int) -> bool:
    return next_word(doc, j) is None


@registered
def before_number(doc: Doc, i: int, j: int) -> bool:
    """A number (protected digits or a number word) follows."""
    after = doc.text[doc.tokens[j].end : doc.tokens[j].end + 3]
    return bool(re.match(r" [£$€]?\d", after)) or next_word(doc, j) in wc.NUMBER_WORDS


@registered
def never(doc: Doc, i: int, j: int) -> bool:
    return False


# --- the words of the function-word table (function_word_phrases.tsv) ---------------------------------


@registered
def next_not_ing(doc: Doc, i: int, j: int) -> bool:
    """ "So saying, she ran off": "so" before an -ing verb is "thus", no conclusion."""
    nxt = next_word(doc, j)
    return nxt is None or not nxt.endswith("ing")


@registered
def next_not_degree_word(doc: Doc, i: int, j: int) -> bool:
    """ "and so beautiful and shiny": "so" of degree before an adjective or adverb, not "therefore"."""
    nxt = next_word(doc, j)
    return not (has_pos(nxt, "a", 0.3) or has_pos(nxt, "r", 0.3))


@registered
def next_not_verbish(doc: Doc, i: int, j: int) -> bool:
    nxt = next_word(doc, j)
    return nxt is not None and not has_pos(nxt, "v", 0.35)


@registered
def aux_have(doc: Doc, i: int, j: int) -> bool:
    """'have' is the perfect auxiliary: a participle (or never/already/...) follows."""
    nxt = next_word(doc, j)
    return nxt is not None and (
        nxt in wc.PARTICIPLES_AFTER_HAVE or (nxt.endswith("ed") and has_pos(nxt, "v", 0.3))
    )


@registered
def subject_before_or_imperative(doc: Doc, i: int, j: int) -> bool:
    if doc.at_sentence_start(i):
        return doc.norms[i] == "do"
    return prev_word(doc, i) is not None


@registered
def opens_or_after_be(doc: Doc, i: int, j: int) -> bool:
    return doc.at_sentence_start(i) or prev_word(doc, i) in ("is", "was", "are", "were", "be")


@registered
def main_clause_subject(doc: Doc, i: int, j: int) -> bool:
    return doc.at_sentence_start(i) or prev_word(doc, i) in ("and", "but", "so") or after_comma(doc, i, j)


@registered
def prev_noun(doc: Doc, i: int, j: int) -> bool:
    return has_pos(prev_word(doc, i), "n", 0.7) and next_word(doc, j) is not None


@registered
def additive_as_well_as(doc: Doc, i: int, j: int) -> bool:
    """'the X as well as the Y' (additive: a noun before, a noun phrase after), not the comparison
    'did as well as he could'."""
    nxt = next_word(doc, j)
    return (
        has_pos(prev_word(doc, i), "n", 0.7)
        and nxt is not None
        and nxt not in wc.NOT_ADDITIVE_AFTER
        and not has_pos(nxt, "v", 0.5)
        and not _singular_verb_soon(doc, j)
    )


def _singular_verb_soon(doc: Doc, j: int) -> bool:
    """A singular verb within the next few words: "the army as well as the navy was" would need "were"
    with "and"."""
    for k in range(j + 1, min(j + 8, len(doc.tokens))):
        if doc.norms[k] in ("is", "was", "has", "does"):
            return True
        if not doc.plain_gap(k):
            break
    return False


@registered
def so_adjective_final(doc: Doc, i: int, j: int) -> bool:
    """ "she was so kind." : degree "so" before an adjective that ends the clause (no "so X that")."""
    nxt = next_word(doc, j)
    return (
        nxt is not None
        and nxt not in wc.SO_ADJECTIVE_STOP
        and has_pos(nxt, "a", 0.7)
        and prev_word(doc, i)
        in ("is", "was", "are", "were", "be", "been", "seemed", "seems", "looked", "felt")
        and re.match(r"[.,;:!?]", doc.gap(j + 1)) is not None
    )


@registered
def only_adverb(doc: Doc, i: int, j: int) -> bool:
    """ "he only asked" / "only a few": the adverb "only", not "the only man" or "only if" or a
    sentence-opening "Only then did"."""
    return (
        not doc.at_sentence_start(i)
        and prev_word(doc, i) is not None
        and prev_word(doc, i) not in wc.ONLY_ADVERB_AFTER_STOP
        and next_word(doc, j) is not None
        and next_word(doc, j) not in wc.ONLY_ADVERB_BEFORE_STOP
    )


_DEFINITE_DETERMINERS_OR_ARTICLE = wc.DEFINITE_DETERMINERS | {"a", "an"}


@registered
def determiner_next(doc: Doc, i: int, j: int) -> bool:
    return next_word(doc, j) in _DEFINITE_DETERMINERS_OR_ARTICLE


@registered
def about_topic(doc: Doc, i: int, j: int) -> bool:
    return prev_word(doc, i) in wc.ABOUT_TOPIC_HEADS and determiner_next(doc, i, j)


@registered
def many_attributive(doc: Doc, i: int, j: int) -> bool:
    nxt = next_word(doc, j)
    return (
        nxt is not None
        and nxt.endswith("s")
        and has_pos(nxt, "n", 0.7)
        and nxt not in wc.TIME_UNITS
        and prev_word(doc, i) not in wc.MANY_ATTRIBUTIVE_STOP
    )


@registered
def adjective_next(doc: Doc, i: int, j: int) -> bool:
    nxt = next_word(doc, j)
    return nxt is not None and nxt not in wc.TO_BE_ADJECTIVE_STOP and has_pos(nxt, "a", 0.7)


@registered
def prev_noun_plain(doc: Doc, i: int, j: int) -> bool:
    prev = prev_word(doc, i)
    return (
        prev is not None
        and has_pos(prev, "n", 0.7)
        and not has_pos(prev, "v", 0.3)
        and doc.tokens[i - 1].text.islower()
    )


@registered
def prev_subject_not_i(doc: Doc, i: int, j: int) -> bool:
    """A main clause's subject right before: the subject opens the sentence or follows "and/but" ("I
    should think" is a politeness, "if it should turn out" a condition, "that they should regard" a
    mandative: none of them is "ought to")."""
    prev = prev_word(doc, i)
    if not (
        prev in ("he", "she", "they", "it", "we", "you", "one")
        or (prev is not None and has_pos(prev, "n", 0.7) and not has_pos(prev, "v", 0.3))
    ):
        return False
    k = i - 1
    if prev not in ("he", "she", "they", "it", "we", "you", "one") and k > 0 and doc.norms[k - 1] == "the":
        k -= 1
    if doc.at_sentence_start(k):
        return True
    return (
        k > 0
        and doc.plain_gap(k - 1)
        and doc.norms[k - 1] in ("and", "but")
        and doc.before(k - 1).startswith(",")
    )


@registered
def prev_is_place(doc: Doc, i: int, j: int) -> bool:
    return prev_word(doc, i) in wc.PLACE_NOUNS and next_word(doc, j) is not None


_CONCESSION = re.compile(r"\b(?:though|although|even if|notwithstanding)\b", re.I)


@registered
def concession_before(doc: Doc, i: int, j: int) -> bool:
    """The sentence opened a concession before: "even if X, yet Y" is a correlative "yet", not "but"."""
    s, _ = doc.sentences[doc.sentence_of(doc.tokens[i].start)]
    return _CONCESSION.search(doc.text[s : doc.tokens[i].start]) is not None


@registered
def next_comparative(doc: Doc, i: int, j: int) -> bool:
    return next_word(doc, j) in wc.COMPARATIVES


@registered
def clause_follows(doc: Doc, i: int, j: int) -> bool:
    """A subject pronoun and a finite verb follow: ", for he was" (not ", for the sake of")."""
    k = j + 1
    if k + 1 >= len(doc.tokens) or not (doc.plain_gap(j) and doc.plain_gap(k)):
        return False
    subject, verb = doc.norms[k], doc.norms[k + 1]
    return subject in ("i", "he", "she", "we", "they", "it", "there") and (
        verb in wc.RELATIVE_AUXILIARIES or has_pos(verb, "v", 0.6)
    )


@registered
def not_only_before(doc: Doc, i: int, j: int) -> bool:
    s, _ = doc.sentences[doc.sentence_of(doc.tokens[i].start)]
    return "not only" in doc.text[s : doc.tokens[i].start].lower() and next_word(doc, j) is not None


@registered
def sentence_opening_and(doc: Doc, i: int, j: int) -> bool:
    """A sentence that opens with "And" reads the same without it ("And the war came." -> "The war came.")."""
    return (
        doc.at_sentence_start(i)
        and doc.plain_gap(j)
        and next_word(doc, j) not in ("so", "yet", "then", "now", "also")
    )


@registered
def finite_have(doc: Doc, i: int, j: int) -> bool:
    """'have to' is the finite verb of its clause: a subject comes right before it (so not "will have
    to", "do not have to" - the last would turn "need not" into "must not")."""
    prev = prev_word(doc, i)
    return prev in ("i", "you", "we", "they", "he", "she", "it", "one") or (
        prev is not None and has_pos(prev, "n", 0.7)
    )


@registered
def state_after_subject(doc: Doc, i: int, j: int) -> bool:
    k = j + 2
    return k < len(doc.tokens) and doc.plain_gap(j + 1) and doc.norms[k] in wc.STATE_VERBS


@registered
def or_follows(doc: Doc, i: int, j: int) -> bool:
    _, e = doc.sentences[doc.sentence_of(doc.tokens[i].start)]
    return re.search(r"\bor\b", doc.text[doc.tokens[j].end : e]) is not None


@registered
def or_not_follows(doc: Doc, i: int, j: int) -> bool:
    _, e = doc.sentences[doc.sentence_of(doc.tokens[i].start)]
    return re.search(r"\bor not\b", doc.text[doc.tokens[j].end : e]) is not None


@registered
def like_example(doc: Doc, i: int, j: int) -> bool:
    """'things like X': a plural noun before 'like' (so 'like' is no verb) and a noun after."""
    prev = prev_word(doc, i)
    nxt = next_word(doc, j)
    return (
        prev is not None
        and prev.endswith("s")
        and has_pos(prev, "n", 0.7)
        and nxt is not None
        and not has_pos(nxt, "v", 0.3)
        and nxt not in wc.PERSONAL_SUBJECTS
    )


# --- the words of the frequent-word table (frequent_word_phrases.tsv) ----------------------------------


@registered
def determiner_or_quantifier_next(doc: Doc, i: int, j: int) -> bool:
    return next_word(doc, j) in wc.DETERMINERS


@registered
def not_clause_start_connective(doc: Doc, i: int, j: int) -> bool:
    """ "Besides, he was ill": the connective, not the preposition."""
    return not sentence_initial_comma(doc, i, j)


@registered
def not_after_a_verb_or_all(doc: Doc, i: int, j: int) -> bool:
    prev = prev_word(doc, i)
    return prev not in wc.PARTICLE_BEFORE_ALONG and not has_pos(prev, "v", 0.5)


@registered
def compared(doc: Doc, i: int, j: int) -> bool:
    nxt = next_word(doc, j)
    return nxt is not None and not has_pos(nxt, "v", 0.5) and not nxt.endswith("ing")


@registered
def plural_count_noun_next(doc: Doc, i: int, j: int) -> bool:
    nxt = next_word(doc, j)
    return (
        nxt is not None
        and (
            nxt in wc.IRREGULAR_PLURALS
            or (nxt.endswith("s") and not nxt.endswith(("ss", "ous", "ics", "ness")))
        )
        and has_pos(nxt, "n", 0.8)
        and nxt not in wc.NOT_COUNT_PLURALS
    )


@registered
def gerund_object_next(doc: Doc, i: int, j: int) -> bool:
    """ "by establishing courts": an -ing verb with an object after it (so not "by the time", "by
    evening", "stood by watching")."""
    nxt = next_word(doc, j)
    if nxt is None or not nxt.endswith("ing") or not has_pos(nxt, "v", 0.5) or nxt in ("being", "having"):
        return False
    after = next_word(doc, j + 1)
    return (
        after is not None
        and (after in wc.DETERMINERS or has_pos(after, "n", 0.6))
        and (
            prev_word(doc, i) not in ("stood", "standing", "passed", "passing", "went", "go", "sat", "stand")
        )
    )


@registered
def people_verb_next(doc: Doc, i: int, j: int) -> bool:
    """ "others think": a verb of saying or thinking says the others are people."""
    return next_word(doc, j) in wc.PEOPLE_VERBS


@registered
def not_possessive(doc: Doc, i: int, j: int) -> bool:
    return not doc.gap(j).startswith(("'", "’"))


@registered
def clause_final_or_to(doc: Doc, i: int, j: int) -> bool:
    return clause_final(doc, i, j) or next_word(doc, j) in ("to", "and")


# --- the registry: a table's `when` cell -> a condition ------------------------------------------------

# Makers take the words after them: `next_in(the a)`; `next_is(a 0.6)` takes a part of speech and a share.
MAKERS: dict[str, Callable[[str], Cond]] = {
    f.__name__: f
    for f in (
        next_in,
        next_not_in,
        prev_in,
        prev_not_in,
        word_after_in,
        word_before_in,
        verb_after_in,
        partner_follows,
    )
}
_TERM = re.compile(r"(?P<negated>not )?(?P<name>[a-z_]+)(?:\((?P<args>[^()]*)\))?")


def _words(args: str) -> str:
    """A maker's words with each class name (CAPITALS) spelled out."""
    return " ".join(" ".join(sorted(wc.named(w))) if w.isupper() else w for w in args.split())


def _term(text: str) -> Cond:
    m = _TERM.fullmatch(text)
    if m is None:
        raise ValueError(f"unreadable condition {text!r}")
    name, args = m.group("name"), m.group("args")
    cond: Cond
    if args is None and name in CONDITIONS:
        cond = CONDITIONS[name]
    elif args is not None and name == "next_is":
        pos, *share = args.split()
        cond = next_is(pos, float(share[0]) if share else 0.5)
    elif args is not None and name in MAKERS:
        cond = MAKERS[name](_words(args))
    else:
        raise ValueError(f"no condition {name!r} in phrase_conditions.py")
    return not_(cond) if m.group("negated") else cond


@cache
def condition(cell: str) -> Cond | None:
    """The condition a table's `when` cell names (None for an empty cell); ValueError for an unknown name."""
    if not cell:
        return None
    terms = [_term(t.strip()) for t in cell.split(" & ")]
    return terms[0] if len(terms) == 1 else all_(*terms)

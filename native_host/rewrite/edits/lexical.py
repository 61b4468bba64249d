"""Lexical substitutions: a content word for a curated synonym in the same inflection.

The table (data/lexicon.tsv, scripts/build_lexicon.py) keeps only WordNet pairs that share each
other's first sense, are both common and of similar frequency, minus a hand-written denylist. Here the
word's part of speech in context is checked against the pair's: out of context from WordNet's tagged
counts, in context from the word before it ("the close" is a noun, "they close" a verb). A pair whose
sense or part of speech is not certain is proposed with needs_lm_check=True for the LM to judge.
"""

from __future__ import annotations

from native_host.rewrite.edits import word_classes as wc
from native_host.rewrite.edits.lexicon_data import idioms, phrases, pos_shares, spelling_variants, substitutes
from native_host.rewrite.edits.text import Doc, Edit, match_case

FAMILY = "lexical"


def _context_pos(doc: Doc, i: int) -> set[str] | None:
    """Parts of speech the word before token i allows, or None when it tells nothing."""
    if i == 0 or not doc.plain_gap(i - 1):
        return None
    prev = doc.norms[i - 1]
    if prev in wc.NOUN_CUES:
        return {"n", "a"}
    if prev in wc.ADJECTIVE_CUES:
        return {"a", "r"}
    if prev == "to":  # "to help" is a verb unless the word is hardly ever one ("to school")
        return {"v"} if pos_shares(doc.norms[i]).get("v", 0.0) >= 0.3 else {"n"}
    if prev in wc.VERB_CUES:
        return {"v", "r"}
    if pos_shares(prev).get("a", 0.0) >= 0.8:  # "a short stay": after an adjective, a noun
        return {"n"}
    return None


def _condition_holds(doc: Doc, i: int, condition: str) -> bool:
    """The curated pairs' context conditions (data/lexicon_curated.tsv explains them)."""
    if not condition:
        return True
    nxt = doc.norms[i + 1] if doc.plain_gap(i) else None
    prev = doc.norms[i - 1] if i > 0 and doc.plain_gap(i - 1) else None
    if condition == "not_to":
        return nxt != "to"
    if condition == "to":
        return nxt == "to"
    if condition == "of":
        return nxt == "of"
    if condition == "attr":
        return nxt is not None and pos_shares(nxt).get("n", 0.0) >= 0.5
    if condition == "pred":
        return prev in wc.PREDICATIVE_CUES
    if condition == "obj":
        return nxt in wc.OBJECT_CUES
    if condition == "quantity":
        return nxt in wc.QUANTITY_NOUNS
    if condition == "final":
        return i > 0 and doc.plain_gap(i - 1) and doc.gap(i)[:1] in (".", ",", ";", ":", "!", "?")
    return False


def _in_idioms(doc: Doc) -> set[int]:
    """Indices of tokens inside a known multi-word expression (words joined by spaces only)."""
    table = idioms()
    norms = doc.norms
    plain = [doc.plain_gap(i) for i in range(len(norms))]
    covered: set[int] = set()
    for i in range(len(norms) - 1):
        phrase = norms[i]
        for j in range(i + 1, min(i + 4, len(norms))):
            if not plain[j - 1]:
                break
            phrase += " " + norms[j]
            if phrase in table:
                covered.update(range(i, j + 1))
    return covered


NEARBY_WORDS = 3  # tokens on each side a substitute may not repeat


def _next_word(doc: Doc, i: int) -> str | None:
    """The word right after token i (normalized), None when punctuation or the text's end comes first."""
    return doc.norms[i + 1] if doc.plain_gap(i) and i + 1 < len(doc.norms) else None


def _modifies_next_noun(next_word: str | None) -> bool:
    """Token i stands right before a word used mostly as a noun: it modifies that noun, as an adjective
    ("any material change") or as the first half of a compound ("the stone wall"), where a noun
    synonym reads wrong ("any stuff change", "the rock wall")."""
    return next_word is not None and pos_shares(next_word).get("n", 0.0) >= 0.7


def propose(doc: Doc) -> list[Edit]:
    out: list[Edit] = []
    in_idiom = _in_idioms(doc)
    names = doc.capitalized_midsentence
    variants = spelling_variants()
    for i, tok in enumerate(doc.tokens):
        if not tok.free or not tok.text.isalpha():
            continue
        other = variants.get(tok.norm)
        if other and (tok.text.islower() or doc.at_sentence_start(i)):
            # British <-> American spelling: a character-3-gram move with no change of word at all.
            out.append(
                Edit(
                    tok.start,
                    tok.end,
                    match_case(tok.text, other),
                    FAMILY,
                    f"spell:{tok.norm}->{other}",
                    False,
                )
            )
        for words, psubs in phrases().get(tok.norm, ()):
            j = i + len(words) - 1
            if j >= len(doc.tokens) or tuple(doc.norms[i : j + 1]) != words:
                continue
            if not all(doc.plain_gap(k) and doc.tokens[k + 1].free for k in range(i, j)):
                continue
            for sub in psubs:
                if _condition_holds(doc, j, sub.condition):
                    surface = " ".join(words)
                    out.append(
                        Edit(
                            tok.start,
                            doc.tokens[j].end,
                            match_case(tok.text, sub.word),
                            FAMILY,
                            f"lex:{surface}->{sub.word}",
                            sub.needs_lm_check,
                        )
                    )
        subs = substitutes(tok.norm)
        if not subs or i in in_idiom:
            continue
        # A capital inside a sentence, or a word the text also capitalizes mid-sentence, is a name.
        if not tok.text.islower() and (
            not doc.at_sentence_start(i) or tok.norm in names or (tok.text.isupper() and len(tok.text) > 1)
        ):
            continue
        shares = pos_shares(tok.norm)
        allowed = _context_pos(doc, i)
        next_word = _next_word(doc, i)
        modifier = _modifies_next_noun(next_word)
        complement_preposition = next_word in wc.COMPLEMENT_PREPOSITIONS
        verb_before_object = next_word in wc.OBJECT_STARTERS
        # a synonym that is already one of the nearby words would stammer ("coarse, vulgar forms" ->
        # "coarse, coarse forms", read in the 2026-12-02 eval sample)
        nearby = set(doc.norms[max(0, i - NEARBY_WORDS) : i + NEARBY_WORDS + 1])
        for sub in subs:
            if not _condition_holds(doc, i, sub.condition):
                continue
            if sub.word.lower() in nearby:
                continue
            if sub.pos == "a" and complement_preposition:
                continue  # "fond of his lord" is no "affectionate of", "liable to" no "apt to"
            if sub.pos == "n" and (modifier or (verb_before_object and shares.get("v", 0.0) >= 0.05)):
                # "any material change" (an adjective), "the stone wall" (a fixed compound), "from these
                # principles results the propriety" (a verb before its object)
                continue
            share = shares.get(sub.pos, 0.0)
            if share < 0.15:  # "steady" as a noun ("my steady"): too rare to bet on, even with a cue
                continue
            if allowed is not None:
                if sub.pos not in allowed:
                    continue
                # The cue settles noun-vs-verb but not noun-vs-adjective: a minority use stays uncertain.
                check = sub.needs_lm_check or share < 0.6
            elif share >= 0.9:
                check = sub.needs_lm_check
            elif share >= 0.6:
                check = True
            else:
                continue
            out.append(
                Edit(
                    tok.start,
                    tok.end,
                    match_case(tok.text, sub.word),
                    FAMILY,
                    f"{'lex-wide' if '~' in sub.pair else 'lex'}:{tok.norm}->{sub.word}",
                    check,
                )
            )
    return out

"""Meaning-preserving edit proposals: span replacements the anonymization search picks from.

    from native_host.rewrite.edits import Edit, propose
    edits = propose(text, protected=[(s, e), ...])   # may overlap each other, never a protected span

Families (one module each, run in this order): `function_word_swaps` (whilst/while, contractions,
connectives, which/that, that-deletion, each/every, ...), `lexical` (curated WordNet synonyms in the right
inflection), `syntax` (split/merge sentences, move adverbial clauses, punctuation alternations),
`clause_punctuation` (optional commas, semicolons before a coordinator, ", which" as a new sentence,
"this/these" -> "the"), `frequent_word_phrases` (phrases and word orders on Cosine Delta's most frequent
words: "they all" <-> "all of them", "such a" <-> "so ADJ a", "under/in the circumstances", ...). Every
edit applied alone leaves well-formed text: capitals at sentence starts, a/an agreement, spacing; no edit
adds or removes a negation.
The phrase alternations of `function_word_swaps` and `frequent_word_phrases` are phrase rules in data
files (`phrase_rules`: the matcher and the table reader; `phrase_conditions`: the conditions on the words
around, named in the tables): data/function_word_phrases.tsv, data/frequent_word_phrases.tsv and, the ones
with no condition, data/phrase_pairs.tsv. Every family reads one vocabulary, `word_classes`
(data/word_classes.tsv). Tables: data/ (the lexicon built by scripts/build_lexicon.py).
Figures: docs/anonymization-edits.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from native_host.rewrite.edits import (
    clause_punctuation,
    frequent_word_phrases,
    function_word_swaps,
    lexical,
    syntax,
)
from native_host.rewrite.edits.text import Doc, Edit, article_for, negations

__all__ = ["Edit", "propose"]

_FAMILIES = (
    function_word_swaps.propose,
    lexical.propose,
    syntax.propose,
    clause_punctuation.propose,
    frequent_word_phrases.propose,
)


def propose(text: str, protected: Sequence[tuple[int, int]] = (), *, wide: bool = False) -> list[Edit]:
    """All edits for `text`, sorted by start. `protected` spans (e.g. native_host.style.protect's,
    names the user keeps) are never touched; numbers, URLs, code and quotations are protected here too.

    `wide=True` adds the "lex-wide:" synonyms (a shared but not first sense): about twice the lexical
    pool's risk (docs/anonymization-edits.md), all with needs_lm_check=True.
    """
    doc = Doc(text, protected)
    seen: set[tuple[int, int, str]] = set()
    out: list[Edit] = []
    for family in _FAMILIES:
        for edit in family(doc):
            if not wide and edit.rule.startswith("lex-wide:"):
                continue
            edit = _agree_article(doc, edit)
            key = (edit.start, edit.end, edit.replacement)
            if key in seen or text[edit.start : edit.end] == edit.replacement:
                continue
            if not doc.free(edit.start, edit.end):
                continue
            if negations(text[edit.start : edit.end]) != negations(edit.replacement):
                continue
            seen.add(key)
            out.append(edit)
    out.sort(key=lambda e: (e.start, e.end, e.replacement))
    return out


def _agree_article(doc: Doc, edit: Edit) -> Edit:
    """When the replacement's first word changes a/an ("a large" -> "an enormous"), widen the edit over
    the article before it and fix it."""
    text = doc.text
    head = edit.replacement.split(" ", 1)[0]
    if not head or not head[0].isalpha():
        return edit
    k = edit.start - 1
    while k >= 0 and text[k] == " ":
        k -= 1
    if k < 0 or k == edit.start - 1:
        return edit
    for article in ("a", "an", "A", "An"):
        a_start = k - len(article) + 1
        if (
            a_start >= 0
            and text[a_start : k + 1] == article
            and (a_start == 0 or not text[a_start - 1].isalnum())
        ):
            wanted = article_for(head)
            if wanted == article.lower():
                return edit
            fixed = wanted.capitalize() if article[0].isupper() else wanted
            return Edit(
                a_start,
                edit.end,
                fixed + text[k + 1 : edit.start] + edit.replacement,
                edit.family,
                edit.rule,
                edit.needs_lm_check,
            )
    return edit

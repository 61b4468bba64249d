"""Other wordings for one sentence, each scored by how identifiable the whole text is after it (issue 37).

    sentence_alternatives(text, start, end, ident=..., embedder=..., engine=None, ...) -> [Alternative]

Two sources, every candidate through the same guards as a rewrite (search.SearchChecks: protected
tokens, facts, markers, the kept marks, length, meaning; fluency when an engine is given), per sentence
and on the whole text:

* `rules`: the search (rewrite/search.py) over the rule edits (rewrite/edits/) that lie inside the sentence, at the
  strong and the medium budget, and the single best edits alone;
* `model`: the active model's candidates for a window on that sentence (llm_windows.rewrite_window),
  each offered to the search as one span edit.

An edit outside [start, end) is never proposed, so the text before and after the sentence stays byte
for byte (checked again before an alternative is returned), and neither the rule edits nor the model
candidates may touch a protected span (edits/ leaves them out; the protected-tokens guard checks).
Ranked by the text's score after them, lowest first; at most `limit`; only those that lower it (the
strong and medium searches and the single edits differ in how much they change).
"""

from __future__ import annotations

import difflib
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from native_host.rewrite import guards, search
from native_host.rewrite.options import RewriteOptions
from native_host.style.identify import Identifiability, score_of

if TYPE_CHECKING:
    from native_host.rewrite.seams import LanguageModel, MeaningEmbedder

MAX_ALTERNATIVES = 3
SINGLE_EDITS = 6  # the best single rule edits tried as alternatives of their own
_TOKEN = re.compile(r"\w+|[^\w\s]")

Progress = Callable[[str, float, str], None]


class AlternativesError(ValueError):
    """The span is not one sentence of the text; the message says why."""


@dataclass(frozen=True)
class Alternative:
    text: str  # the whole text with the sentence replaced
    sentence: str  # the new sentence
    start: int  # where the new sentence lies in `text` (code points)
    end: int
    score: float  # the identifiability score of `text`
    source: str  # "rules" | "model"
    changes: list[dict[str, str]] = field(default_factory=list)  # [{"from", "to"}], word level

    def to_json(self, mode: str, unlikely: bool) -> dict[str, Any]:
        """`unlikely`: whether the meter may say "unlikely" (linkability.says_unlikely)."""
        from native_host.style import linkability

        return {
            "text": self.text,
            "sentence": self.sentence,
            "start": self.start,
            "end": self.end,
            "score": round(self.score, 4),
            "level": linkability.level(self.score, unlikely),
            "level_words": linkability.words(self.score, mode, unlikely),
            "source": self.source,
            "changes": list(self.changes),
        }


def check_span(text: str, start: int, end: int) -> None:
    """AlternativesError unless text[start:end] is exactly one sentence of the text (the guide's)."""
    from native_host.guide.analysis import sentence_at

    if not (0 <= start < end <= len(text)):
        raise AlternativesError(f"start and end must satisfy 0 <= start < end <= {len(text)}")
    if sentence_at(text, start, end) is None:
        raise AlternativesError(
            f"characters {start}..{end} are not one sentence of the text (ask `guide` for the sentences)"
        )


def sentence_alternatives(
    text: str,
    start: int,
    end: int,
    *,
    ident: Identifiability,
    embedder: MeaningEmbedder,
    engine: LanguageModel | None = None,
    protected_terms: Sequence[str] = (),
    limit: int = MAX_ALTERNATIVES,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    options: RewriteOptions | None = None,
) -> list[Alternative]:
    """Up to `limit` alternatives for text[start:end] (one sentence: check_span), best first."""
    check_span(text, start, end)
    say = progress or (lambda stage, fraction, message: None)
    terms = tuple(protected_terms)
    checks = search.SearchChecks(embedder, engine, terms)
    before = ident.score(text, sentences=False).score
    found: dict[str, Alternative] = {}

    def offer(new_text: str, source: str) -> None:
        alt = _alternative(text, start, end, new_text, ident, source)
        if alt is not None and alt.score < before and new_text not in found:
            found[new_text] = alt

    say("alternatives", 0.05, "looking for rule edits in the sentence")
    edits = _rule_edits(text, start, end, terms)
    for budget in ("strong", "medium"):
        _stop(cancel)
        if edits:
            offer(_search(text, edits, ident, checks, budget, cancel), "rules")
    say("alternatives", 0.3, "trying the best single edits")
    for edit in _best_single(text, edits, ident)[:SINGLE_EDITS]:
        _stop(cancel)
        offer(_search(text, [edit], ident, checks, "strong", cancel), "rules")
    if engine is not None:
        _stop(cancel)
        say("alternatives", 0.5, "asking the model for other wordings")
        for candidate in _model_candidates(text, start, end, engine, embedder, terms, cancel, options):
            _stop(cancel)
            edit = search.WindowEdit(start, end, candidate, needs_lm_check=False)
            offer(_search(text, [edit], ident, checks, "strong", cancel), "model")
    _stop(cancel)
    say("alternatives", 1.0, f"{min(limit, len(found))} alternatives")
    return sorted(found.values(), key=lambda a: a.score)[:limit]


class Cancelled(Exception):
    """The request was cancelled between steps."""


def _stop(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled


def _search(
    text: str,
    edits: Sequence[search.SpanEdit],
    ident: Identifiability,
    checks: search.SearchChecks,
    budget: str,
    cancel: threading.Event | None,
) -> str:
    """The rewrite's search over these edits, lowering the score itself (not the rewrite's objective,
    which stops gaining once every family is safely unlinked: a writer may still want lower)."""
    return search.search(text, edits, ident, checks, search.BUDGETS[budget], cancel=cancel, aim=score_of).text


def _rule_edits(text: str, start: int, end: int, terms: tuple[str, ...]) -> list[search.SpanEdit]:
    """The rule edits of the whole text (so context and protection are the text's) inside the sentence."""
    from native_host.rewrite.edits import propose
    from native_host.style import protected_spans
    from native_host.style.protect import term_spans

    protected = [(s, e) for s, e, _ in protected_spans(text)]
    if terms:
        protected += [(s, e) for s, e, _ in term_spans(text, terms)]
    edits = [e for e in propose(text, protected) if start <= e.start and e.end <= end]
    # an edit that changes how often a kept mark occurs could never pass guards.check_kept_marks
    return [e for e in edits if not guards.changed_marks(e.replacement, text[e.start : e.end])]


def _best_single(
    text: str, edits: Sequence[search.SpanEdit], ident: Identifiability
) -> list[search.SpanEdit]:
    """The edits that lower the search's objective most on their own, best first."""
    state = ident.state(text)
    base = score_of(state.zs())
    gains = [
        (base - score_of(state.zs_with(state.delta(e.start, e.end, e.replacement))), i)
        for i, e in enumerate(edits)
    ]
    return [edits[i] for gain, i in sorted(gains, key=lambda g: -g[0]) if gain > search.MIN_GAIN]


def _model_candidates(
    text: str,
    start: int,
    end: int,
    engine: LanguageModel,
    embedder: MeaningEmbedder,
    terms: tuple[str, ...],
    cancel: threading.Event | None,
    options: RewriteOptions | None,
) -> list[str]:
    """The active model's candidates for a window on the sentence that passed the window's guards."""
    from native_host.rewrite import llm_windows
    from native_host.rewrite.windows import Window

    opts = options or RewriteOptions(strength="strong", protected_terms=terms, candidates=3)
    timings: dict[str, float] = {"generate_s": 0.0, "guards_s": 0.0}
    try:
        outcome = llm_windows.rewrite_window(
            0, Window(0, 0, text[start:end]), engine, embedder, opts, cancel, timings
        )
    except llm_windows.Cancelled as exc:
        raise Cancelled from exc
    return list(outcome.passing)


def _alternative(
    text: str, start: int, end: int, new_text: str, ident: Identifiability, source: str
) -> Alternative | None:
    """The alternative `new_text` is, or None when it is the text itself or changed anything outside
    the sentence."""
    tail = len(text) - end
    new_end = len(new_text) - tail
    if new_text == text or new_end <= start:
        return None
    if new_text[:start] != text[:start] or new_text[new_end:] != text[end:]:
        return None  # never offered: only the sentence may change
    sentence = new_text[start:new_end]
    score = ident.score(new_text, sentences=False).score
    return Alternative(new_text, sentence, start, new_end, score, source, changes(text[start:end], sentence))


def changes(before: str, after: str) -> list[dict[str, str]]:
    """Word-level changes from `before` to `after`: [{"from", "to"}] in reading order, each side as it
    reads in its sentence (the words and the spaces between them)."""
    a, b = list(_TOKEN.finditer(before)), list(_TOKEN.finditer(after))
    matcher = difflib.SequenceMatcher(None, [m.group(0) for m in a], [m.group(0) for m in b], autojunk=False)
    return [
        {"from": _slice(before, a[i1:i2]), "to": _slice(after, b[j1:j2])}
        for op, i1, i2, j1, j2 in matcher.get_opcodes()
        if op != "equal"
    ]


def _slice(text: str, tokens: Sequence[re.Match[str]]) -> str:
    return text[tokens[0].start() : tokens[-1].end()] if tokens else ""

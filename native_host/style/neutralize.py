"""neutralize(text, target) -> (text, edits): rewrite surface markers to one neutral style.

Every family proposes spans with a replacement; overlapping proposals are settled by family priority;
protected spans are never touched. One pass can expose another marker ("word ..." -> "word ." ->
"word."), so passes repeat until nothing changes (a fixed point, hence idempotent), and the edits of
all passes are composed back into the original text's coordinates.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from native_host.style.analyze import observe
from native_host.style.document import Document
from native_host.style.families import PRIORITY
from native_host.style.model import Edit, Target
from native_host.style.protect import term_spans
from native_host.style.sentences import never_ends

MAX_PASSES = 12  # full and windowed passes together; real text settles in 2-4
_PARAGRAPH_BREAK = re.compile(r"(?=\n\n)")  # every start of "\n\n", overlapping ones included


@dataclass(slots=True)
class _Piece:
    """A stretch of the original text [ostart, oend) and what it reads now."""

    ostart: int
    oend: int
    text: str
    changed: bool
    family: str = ""
    marker: str = ""


def neutralize(
    text: str,
    target: Target | None = None,
    protected_terms: Sequence[str] = (),
    check_cancelled: Callable[[], None] | None = None,
) -> tuple[str, list[Edit]]:
    """Rewrite surface markers towards `target`; `protected_terms` are kept like URLs and code.

    `check_cancelled` is called between passes and between the windows of a pass; whatever it raises
    (the host's Cancelled) propagates, so a long text stops within one step."""
    target = target or Target()
    check = check_cancelled or _never
    pieces = [_Piece(0, len(text), text, False)]
    current = text
    original_protected = Document(text, extra_protected=term_spans(text, protected_terms)).protected
    full = True  # the first pass and every confirming pass look at the whole text
    dirty: list[tuple[int, int]] = []
    for _ in range(MAX_PASSES):
        check()
        carried = _carry_protected(original_protected, pieces)
        if full:
            edits = proposed_edits(Document(current, extra_protected=carried), target, check)
        else:
            edits = _windowed_edits(current, dirty, carried, target, check)
        if not edits:
            if full:
                break
            full = True  # windows are quiet: confirm on the whole text (global families included)
            continue
        check()  # applying a whole-text pass takes about as long as two families on 1 MiB
        pieces = _apply(pieces, edits, check)
        check()
        current = "".join(p.text for p in pieces)
        dirty = _new_ranges(edits)
        full = False
    check()
    pieces = _sentence_cased(text, pieces)
    current = "".join(p.text for p in pieces)
    final_edits = [
        Edit(p.ostart, p.oend, text[p.ostart : p.oend], p.text, p.family, p.marker)
        for p in pieces
        if p.changed and text[p.ostart : p.oend] != p.text
    ]
    return current, final_edits


def _never() -> None:
    return None


def _new_ranges(edits: list[Edit]) -> list[tuple[int, int]]:
    """Where the replacements of one pass sit in the text that pass produced."""
    ranges, shift = [], 0
    for e in edits:
        start = e.start + shift
        ranges.append((start, start + len(e.replacement)))
        shift += len(e.replacement) - (e.end - e.start)
    return ranges


def _windowed_edits(
    text: str,
    dirty: list[tuple[int, int]],
    protected: list[tuple[int, int, str]],
    target: Target,
    check: Callable[[], None] = _never,
) -> list[Edit]:
    """Edits proposed inside the paragraphs around the last pass's changes only: one pass can only
    expose a new marker next to what it changed, so a long text is not re-read whole for a few edits.
    Paragraph-global families still run, and the confirming full pass catches anything else.

    The paragraph breaks are found once per pass and bisected per change: scanning the text for the
    nearest break around every change was quadratic when there is none (chat-like text, one newline
    between lines: 200 KiB took 6.8 s, 1 MiB minutes)."""
    breaks = [m.start() for m in _PARAGRAPH_BREAK.finditer(text)]
    windows: list[list[int]] = []
    for start, end in dirty:
        # the last break that ends before start-1 (as text.rfind("\n\n", 0, start-1) found it)
        i = bisect.bisect_right(breaks, max(start - 1, 0) - 2) - 1
        a = breaks[i] + 2 if i >= 0 else 0
        # the first break at or after end+1 (text.find("\n\n", end + 1))
        j = bisect.bisect_left(breaks, end + 1)
        b = breaks[j] if j < len(breaks) else len(text)
        if windows and a <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], b)
        else:
            windows.append([a, b])
    edits: list[Edit] = []
    # protected spans are sorted and disjoint, so their ends are sorted too
    starts = [s for s, _, _ in protected]
    ends = [e for _, e, _ in protected]
    for a, b in windows:
        check()
        nearby = protected[bisect.bisect_right(ends, a) : bisect.bisect_left(starts, b)]
        local = [(s - a, e - a, k) for s, e, k in nearby]
        local = [(max(s, 0), min(e, b - a), k) for s, e, k in local]
        for e in proposed_edits(Document(text[a:b], extra_protected=local), target, check):
            edits.append(Edit(e.start + a, e.end + a, e.original, e.replacement, e.family, e.marker))
    return edits


def proposed_edits(
    doc: Document, target: Target, check_cancelled: Callable[[], None] | None = None
) -> list[Edit]:
    """Non-overlapping edits for one pass over `doc.text`, highest-priority family first.

    Candidates are settled one priority at a time: each is checked against the edits chosen at higher
    priorities (bisected, the list does not change within a priority) and against the last one taken
    at its own priority (they come in text order); the chosen edits of a priority are then merged in.
    Inserting each chosen edit into a sorted list instead was quadratic (270,000 inserts, ~4 s on
    1 MiB of chat-like text, with no cancel check in between)."""
    check = check_cancelled or _never
    candidates = []
    for obs in observe(doc, target, editing_only=True, check_cancelled=check):
        if not target.wants(obs.family):
            continue
        for span in obs.spans:
            if span.replacement is None or span.replacement == span.text or span.end <= span.start:
                continue
            if doc.is_protected(span.start, span.end):
                continue
            candidates.append((PRIORITY[obs.family], span.start, span.end, span.replacement, obs))
    candidates.sort(key=lambda c: (c[0], c[1]))
    chosen: list[Edit] = []  # sorted by start, disjoint
    starts: list[int] = []
    taken: list[Edit] = []  # chosen at the current priority, in text order
    priority = None
    for prio, start, end, replacement, obs in candidates:
        if prio != priority:
            check()
            chosen, taken = _merged(chosen, taken), []
            starts = [e.start for e in chosen]
            priority = prio
        if taken and taken[-1].end > start:
            continue
        i = bisect.bisect_right(starts, start)
        if i > 0 and chosen[i - 1].end > start:
            continue
        if i < len(chosen) and chosen[i].start < end:
            continue
        taken.append(Edit(start, end, doc.text[start:end], replacement, obs.family, obs.marker))
    return _merged(chosen, taken)


_OPENING_MARKS = " \t\"'“‘(["  # what may stand between a sentence end and the next sentence's first word
_CLOSING_MARKS = "\"'”’)]"
_LOOK_BACK = 64


def _sentence_cased(original: str, pieces: list[_Piece]) -> list[_Piece]:
    """A replacement put in at a sentence start begins with a capital ("… gorgeous! tbh I'd" -> "…
    gorgeous! To be honest I'd"), whatever the case of the word it replaced: the rest of the sentence
    is written for a capital there. Read in the final text, as what stood between it and the sentence
    end may have gone in another edit (":)" removed)."""
    out: list[_Piece] = []
    before = ""  # the last _LOOK_BACK characters of the text so far
    at = 0
    for p in pieces:
        word = p.changed and p.text[:1].islower() and original[p.ostart : p.oend][:1].isalpha()
        if word and opens_sentence(before, at):
            p = replace(p, text=p.text[0].upper() + p.text[1:])
        out.append(p)
        at += len(p.text)
        before = (before + p.text)[-_LOOK_BACK:]
    return out


def opens_sentence(before: str, at: int) -> bool:
    """Whether a word right after `before` (the end of the text up to it, which starts at offset `at` -
    len(before)) begins a sentence: the text's start, a line's, or after ". ", "! ", "? " (closing
    quotes allowed, opening ones after), not after an abbreviation ("e.g. "). After "…" the ellipsis
    rule decides whether the sentence goes on."""
    head = before.rstrip(_OPENING_MARKS)
    if not head:
        return at <= len(before)  # only spaces and quotes before it: the text's start
    if head.endswith("\n"):
        return True
    ended = head.rstrip(_CLOSING_MARKS)
    spaced = any(c in " \t" for c in before[len(head) :])
    last = ended.rsplit(None, 1)[-1] if ended.strip() else ""
    return spaced and ended.endswith((".", "!", "?")) and not never_ends(last)


def _merged(a: list[Edit], b: list[Edit]) -> list[Edit]:
    """Two disjoint lists of edits, each sorted by start, as one (a linear merge: timsort on two runs)."""
    return sorted(a + b, key=lambda e: e.start) if b else a


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply sorted, non-overlapping edits given in `text`'s coordinates."""
    out = []
    pos = 0
    for e in sorted(edits, key=lambda e: e.start):
        out.append(text[pos : e.start])
        out.append(e.replacement)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


def _apply(pieces: list[_Piece], edits: list[Edit], check: Callable[[], None] = _never) -> list[_Piece]:
    """Apply one pass of edits (current-text coordinates) to the piece list, merging touched pieces."""
    # Split unchanged pieces at every edit boundary so each edit covers whole pieces (or changed ones).
    cuts = sorted({e.start for e in edits} | {e.end for e in edits})
    split: list[_Piece] = []
    pos = 0
    for p in pieces:
        length = len(p.text)
        if p.changed or length == 0:
            split.append(p)
            pos += length
            continue
        lo = bisect.bisect_right(cuts, pos)
        hi = bisect.bisect_left(cuts, pos + length)
        offset = 0
        for cut in cuts[lo:hi]:
            k = cut - pos
            split.append(_Piece(p.ostart + offset, p.ostart + k, p.text[offset:k], False))
            offset = k
        split.append(_Piece(p.ostart + offset, p.oend, p.text[offset:], False))
        pos += length
    check()
    out: list[_Piece] = []
    i = 0
    pos = 0  # current-text offset of split[i]
    for e in edits:  # sorted, disjoint, never empty (start < end)
        while i < len(split) and pos + len(split[i].text) <= e.start:
            out.append(split[i])
            pos += len(split[i].text)
            i += 1
        first_pos = pos
        group: list[_Piece] = []
        while i < len(split) and pos < e.end:
            group.append(split[i])
            pos += len(split[i].text)
            i += 1
        joined = "".join(g.text for g in group)
        new_text = joined[: e.start - first_pos] + e.replacement + joined[e.end - first_pos :]
        earlier = next((g for g in group if g.changed), None)
        out.append(
            _Piece(
                group[0].ostart,
                group[-1].oend,
                new_text,
                True,
                earlier.family if earlier else e.family,
                earlier.marker if earlier else e.marker,
            )
        )
    out.extend(split[i:])
    return out


def _carry_protected(
    protected: list[tuple[int, int, str]], pieces: list[_Piece]
) -> list[tuple[int, int, str]]:
    """Map the original text's protected spans into the current text (they sit in unchanged pieces)."""
    if len(pieces) == 1:
        return list(protected)  # nothing changed yet: the original spans map onto themselves
    carried = []
    ostarts = [p.ostart for p in pieces]
    offsets = []
    pos = 0
    for p in pieces:
        offsets.append(pos)
        pos += len(p.text)
    for start, end, kind in protected:
        j = bisect.bisect_right(ostarts, start) - 1
        while j > 0 and pieces[j].ostart == pieces[j - 1].ostart:
            j -= 1  # skip empty pieces at the same place
        p = pieces[j]
        if p.changed:
            continue  # cannot happen (edits never touch protected spans), but never map into a change
        new_start = offsets[j] + (start - p.ostart)
        carried.append((new_start, new_start + (end - start), kind))
    return carried

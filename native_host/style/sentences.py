"""The one sentence splitter: where a reader would say a sentence ends.

    sentence_spans(text) -> [(start, end)]   code-point spans, trimmed of whitespace, in reading order

Used by the identifiability report and the guide (identify.py, native_host/guide/analysis.py), the rewrite's windows
(rewrite/windows.py) and through them the eval's changed-sentence pairs. A sentence ends at a line
break (unless it follows "Mr." and the like), or at `.`, `!`, `?` or `…` (a run of them, then any closing quotes or brackets) followed by
whitespace or the end of the text, except:

* inside a word or number: a `.` not followed by whitespace is never an end (decimals "0.5", URLs,
  e-mail addresses, "e.g", "U.S" inside);
* after an abbreviation that does not end sentences ("Mr.", "Dr.", "e.g.", "vs."; the table is
  data/abbreviations.txt), one before a number ("No. 5", "p. 12") or a single initial ("J. Smith");
* after an abbreviation that may end one ("U.S.", "etc.", "a.m.", "Inc."), unless the next word starts
  a sentence (a capital word that is a common sentence opener: "The", "It", "But" …);
* after a unit that follows a figure ("24 lb.", "6 in.") when the next word is lowercase;
* after an ellipsis, or marks closed by a quote, when the next word is lowercase ("Why?" she asked;
  "It is late." he said; "and then… nothing");
* inside an open double quotation (“…” or "…") that opened in this sentence, up to MAX_QUOTE characters
  (a quote left open by mistake does not swallow the paragraph);
* a list number at the start of a line ("1. First").

A footnote mark right after the end marks ("fortunes.[4] One day", "Misrule.* He") stays with the
sentence it closes.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

MAX_QUOTE = 400  # characters a quotation may hold sentence ends without ending the enclosing sentence
# an end: the marks, closing quotes or brackets, then a footnote mark ("fortunes.[4] One", "Misrule.* He")
_END = re.compile(r"[.!?…]+[\"'”’)\]»]*(?:\[\d{1,3}\]|\*{1,3}|[¹²³⁴⁵⁶⁷⁸⁹⁰]{1,3})?(?=\s|$)|\n")
_FOOTNOTE = re.compile(r"(?:\[\d{1,3}\]|\*{1,3}|[¹²³⁴⁵⁶⁷⁸⁹⁰]{1,3})$")
_LAST_TOKEN = re.compile(r"(\S+)$")
_NEXT_WORD = re.compile(r"\s*(?:[\"'“‘(\[«]\s*)*([^\s\"'“‘(\[«]*)")
_INITIAL = re.compile(r"^[A-Z]\.$")
# a word the pronoun "I" ends a sentence after ("than I.", "as did I."), where an initial never stands
_PRONOUN_I = re.compile(
    r"\b(?:than|as|and|but|nor|or|so|did|do|am|was|have|had|not|me|too|could|would|should|will|can|shall|must)\s+$"
)
_LIST_NUMBER = re.compile(r"^(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)]$")
_CLOSERS = "\"'”’)]»"
_NUMBER_BEFORE = re.compile(r"\d\s*$")  # a figure right before a unit ("24 lb.")


@cache
def _abbreviations() -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """(never end a sentence, none before a number, may end one, words that open one, units after a
    number), lowercase."""
    text = resources.files("native_host.style").joinpath("data/abbreviations.txt").read_text(encoding="utf-8")
    groups: dict[str, set[str]] = {
        "never": set(),
        "number": set(),
        "may": set(),
        "openers": set(),
        "unit": set(),
    }
    current = "never"
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            continue
        groups[current].update(w.lower() for w in line.split())
    return tuple(frozenset(groups[k]) for k in ("never", "number", "may", "openers", "unit"))  # type: ignore[return-value]


def never_ends(token: str) -> bool:
    """Whether `token` (with its final ".") is an abbreviation after which no sentence ends."""
    never = _abbreviations()[0]
    return token.lower().lstrip("\"'“‘([«") in never


def sentence_spans(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = 0
    for m in _END.finditer(text):
        if m.group(0) == "\n":
            token = _last_token(text, start, m.start())
            if token is not None and never_ends(token):
                continue  # "Mr.\nBloomfield": a line wrapped after a title
        elif not _ends_here(text, start, m.start(), m.end()):
            continue
        _add(out, text, start, m.end())
        start = m.end()
    _add(out, text, start, len(text))
    return out


def _add(out: list[tuple[int, int]], text: str, s: int, e: int) -> None:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    if e > s:
        out.append((s, e))


def _ends_here(text: str, start: int, mark: int, after: int) -> bool:
    """Whether the end marks text[mark:after] end the sentence that began at `start`."""
    ended = _FOOTNOTE.sub("", text[mark:after])
    marks = ended.rstrip(_CLOSERS)
    closed = len(marks) < len(ended)
    nxt = _NEXT_WORD.match(text, after)
    word = nxt.group(1) if nxt else ""
    if not word:  # the end of the text (or only space and quotes after)
        return True
    lower_next = word[0].islower()
    if marks.endswith("…") or marks.endswith(".."):
        return not lower_next  # "and then… nothing" goes on; "…. The" does not
    if closed and lower_next and text[after - 1] in "\"”’»'":
        return False  # "Why?" she asked. / "It is late." he said.
    if marks == "." and not closed:
        token = _last_token(text, start, mark + 1)
        if token is not None and not _period_ends(token, start, text, mark, word):
            return False
    return not _inside_quote(text, start, after)


def _last_token(text: str, start: int, end: int) -> str | None:
    m = _LAST_TOKEN.search(text, start, end)
    return m.group(1) if m else None


def _period_ends(token: str, start: int, text: str, mark: int, word: str) -> bool:
    """Whether the "." closing `token` (its last character) ends the sentence before `word`."""
    never, number, may, openers, unit = _abbreviations()
    bare = token.lstrip("\"'“‘([«")
    if bare == "I." and _PRONOUN_I.search(text, start, mark + 1 - len(token)):
        return True  # "taller than I. The rest": the pronoun after a small lower-case word, no initial
    if bare.lower() in never or _INITIAL.match(bare):
        return False
    if bare.lower() in number and word[0].isdigit():
        return False
    if (
        bare.lower() in unit
        and word[0].islower()
        and _NUMBER_BEFORE.search(text, start, mark + 1 - len(token))
    ):
        return False  # "sixteen 24 lb. carronades"
    if _LIST_NUMBER.match(bare) and not text[start : mark + 1 - len(token)].strip():
        return False  # "1. First item" / "a) ..." at the start of a line
    if bare.lower() in may or (bare.count(".") >= 2 and len(bare) <= 8):  # "U.S.", "a.m.", "e.V."
        return word[0].isupper() and word.lower().strip(",;:") in openers
    return True


def _inside_quote(text: str, start: int, end: int) -> bool:
    """Whether a double quotation opened in this sentence, within MAX_QUOTE characters, is still open
    at `end` (after the marks and their closing quotes)."""
    segment = text[start:end]
    curly_open = segment.rfind("“")
    if curly_open >= 0 and segment.find("”", curly_open) < 0:
        return len(segment) - curly_open <= MAX_QUOTE
    straight = [i for i, ch in enumerate(segment) if ch == '"']
    if len(straight) % 2 == 1:
        return len(segment) - straight[-1] <= MAX_QUOTE
    return False

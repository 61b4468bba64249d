"""The shipped tables (built offline by scripts/build_lexicon.py from WordNet + wordfreq), read once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class Substitute:
    word: str
    pos: str  # n | v | a | r
    needs_lm_check: bool
    pair: str  # "lemma>lemma", for the rule name
    condition: str  # "" or one lexical._condition_holds reads: where in a sentence the pair holds


class DataError(RuntimeError):
    """A shipped table is missing or unreadable (a broken install)."""


def _lines(name: str) -> list[str]:
    try:
        text = resources.files("native_host.rewrite.edits").joinpath("data", name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise DataError(f"edit table {name} is missing from the install ({exc}); reinstall fantasma") from exc
    return [line for line in text.splitlines() if line and not line.startswith("#")]


@cache
def _pos_table() -> dict[str, tuple[float, dict[str, float]]]:
    table: dict[str, tuple[float, dict[str, float]]] = {}
    for line in _lines("pos.tsv"):
        word, z, cells = line.split("\t")
        shares = {}
        for cell in cells.split(","):
            p, v = cell.split("=")
            shares[p] = float(v)
        table[word] = (float(z), shares)
    return table


@cache
def _substitutes() -> dict[str, tuple[Substitute, ...]]:
    table: dict[str, list[Substitute]] = {}
    for line in _lines("lexicon.tsv"):
        surface, sub, pos, check, pair, condition = line.split("\t")
        table.setdefault(surface, []).append(Substitute(sub, pos, check == "1", pair, condition))
    return {k: tuple(v) for k, v in table.items()}


@cache
def idioms() -> frozenset[str]:
    """Multi-word expressions whose words are not swapped one by one ("found fault", "at large")."""
    return frozenset(_lines("idioms.txt"))


@cache
def phrase_pairs(name: str) -> tuple[tuple[str, str, bool, bool | None], ...]:
    """Rows of a phrase-pair table (data/phrase_pairs.tsv): (a, b, needs_lm_check a -> b, needs_lm_check
    b -> a, None when the pair goes one way only)."""
    rows = []
    for line in _lines(name):
        a, b, check_ab, check_ba = line.split("\t")
        rows.append((a, b, check_ab == "1", None if check_ba == "-" else check_ba == "1"))
    return tuple(rows)


def table_rows(name: str, columns: int) -> list[tuple[str, ...]]:
    """The rows of a tab-separated table in data/, each with exactly `columns` cells (DataError if not)."""
    rows = []
    for line in _lines(name):
        cells = tuple(line.split("\t"))
        if len(cells) != columns:
            raise DataError(f"edit table {name}: {len(cells)} columns, not {columns}, in {line!r}")
        rows.append(cells)
    return rows


@cache
def phrase_rule_rows(name: str) -> tuple[tuple[str, ...], ...]:
    """Rows of a phrase-rule table (data/*_phrases.tsv): kind, from, to, needs_lm_check, when, name."""
    return tuple(table_rows(name, 6))


def pos_shares(word: str) -> dict[str, float]:
    """{'n': 0.7, 'v': 0.3} for a lower-case word; {'f': 1.0} for closed-class words; {} if unknown."""
    entry = _pos_table().get(word)
    return entry[1] if entry else {}


def zipf(word: str) -> float:
    """wordfreq's Zipf frequency as shipped (0.0 for words rarer than the table's floor)."""
    entry = _pos_table().get(word)
    return entry[0] if entry else 0.0


def is_common_lower(word: str) -> bool:
    return zipf(word) >= 3.0


def substitutes(word: str) -> tuple[Substitute, ...]:
    return _substitutes().get(word, ())


@cache
def phrases() -> dict[str, tuple[tuple[tuple[str, ...], tuple[Substitute, ...]], ...]]:
    """Multi-word sources ("came back" -> "returned"), by their first word."""
    out: dict[str, list[tuple[tuple[str, ...], tuple[Substitute, ...]]]] = {}
    for surface, subs in _substitutes().items():
        if " " in surface:
            words = tuple(surface.split(" "))
            out.setdefault(words[0], []).append((words, subs))
    return {k: tuple(v) for k, v in out.items()}


@cache
def spelling_variants() -> dict[str, str]:
    """British -> American for every pair the style data lists; American -> British where it marks the
    pair reversible (shared with the neutralizer: native_host/style/data/spelling_variants.tsv)."""
    try:
        text = (
            resources.files("native_host.style").joinpath("data", "spelling_variants.tsv").read_text("utf-8")
        )
    except (FileNotFoundError, OSError) as exc:
        raise DataError(
            f"spelling_variants.tsv is missing from the install ({exc}); reinstall fantasma"
        ) from exc
    table: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        british, american, _category, reversible = line.split("\t")[:4]
        table.setdefault(british, american)
        if reversible.strip() == "1":
            table.setdefault(american, british)
    return table

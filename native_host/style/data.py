"""Data tables (word lists, variant tables, baseline rates), each read once per process on first use.

Analysis itself never does I/O: families call these accessors, which hit the disk only the first time.
"""

from __future__ import annotations

import json
import math
from functools import cache
from importlib import resources
from typing import Any


def _read(name: str) -> str:
    return resources.files("native_host.style").joinpath("data", name).read_text(encoding="utf-8")


@cache
def lines(name: str) -> tuple[str, ...]:
    """Non-comment, non-empty lines of a data file."""
    return tuple(ln for ln in _read(name).splitlines() if ln.strip() and not ln.startswith("#"))


@cache
def words(name: str) -> frozenset[str]:
    """Whitespace-separated words of a data file."""
    return frozenset(w for ln in lines(name) for w in ln.split())


@cache
def tsv(name: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(ln.split("\t")) for ln in lines(name))


@cache
def json_table(name: str) -> dict[str, Any]:
    return json.loads(_read(name))


@cache
def _frequencies() -> dict[str, float]:
    import wordfreq  # imported lazily: loading the table takes ~0.1 s

    return wordfreq.get_frequency_dict("en")


_zipf_cache: dict[str, float] = {}


def zipf(word: str) -> float:
    """Zipf frequency (log10 per billion words) of a lower-case English word; 0.0 when unknown."""
    z = _zipf_cache.get(word)
    if z is None:
        freq = _frequencies().get(word)
        z = math.log10(freq) + 9.0 if freq else 0.0
        if len(_zipf_cache) < 200_000:  # bounded: a stream of random junk must not grow it forever
            _zipf_cache[word] = z
    return z


def frequency(word: str) -> float:
    """Population frequency of a lower-case English word (fraction of all words), 0.0 when unknown."""
    return _frequencies().get(word, 0.0)

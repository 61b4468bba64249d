"""Labelled edits for the fluency guard's calibration (docs/anonymization.md, "Fluency guard"), read from
native_host/rewrite/data/fluency_cases.tsv (where they are and what each origin means: its header).

Each case: (label, origin, sentence, old, new): the edit replaces the one occurrence of `old` in
`sentence` by `new`.
"""

from __future__ import annotations

from pathlib import Path

import native_host

NATURAL, UNNATURAL = "natural", "unnatural"
# Origins of cases read in the search's applied edits, i.e. after the fluency guard passed them: their
# unnatural ones are a sample the guard already failed on, not a fair test of it.
SURVIVORS = "eval chunks "
TABLE = Path(native_host.__file__).parent / "rewrite" / "data" / "fluency_cases.tsv"


def read_cases(path: Path = TABLE) -> list[tuple[str, str, str, str, str]]:
    rows = [
        line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")
    ]
    assert all(len(row) == 5 for row in rows), [row for row in rows if len(row) != 5]
    return [(label, origin, sentence, old, new) for label, origin, sentence, old, new in rows]


CASES = read_cases()

"""`make test` (what .ci/run runs) type-checks before it tests: the typed seams (rewrite/seams.py's
Protocols and the classes that fit them) are checked by mypy alone."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def recipe(target: str) -> list[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", text, re.M)
    assert match, f"Makefile: no `{target}` target"
    return [line.strip() for line in match.group(1).splitlines()]


def test_make_test_runs_mypy_then_pytest():
    steps = recipe("test")
    mypy = [i for i, step in enumerate(steps) if step.startswith("$(VENV)/bin/mypy")]
    pytest = [i for i, step in enumerate(steps) if "-m pytest" in step]
    assert mypy and pytest and mypy[0] < pytest[0], steps
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")

"""No test holds a wall-clock or CPU-time limit under 10 s: a loaded machine fails it for reasons that are
not the code's. A speed goal lives in a bench/ script that prints a measured ratio against a peer run in
the same run; a test asserts behaviour (work counted, a ratio against a peer in the same test) and may
wait with a timeout, which only guards against a hang.

An assertion is a limit when one side compares a timing (a call to time.monotonic / perf_counter /
process_time / time, or a name or key that reads as seconds: `…_s`, `…cpu…`, `…seconds…`, `elapsed`,
`wall`) with a number under LIMIT_S."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.repo_files import project_files

ROOT = Path(__file__).resolve().parents[1]
LIMIT_S = 10.0
LEFT_ALONE = {"tests/e2e/test_extension_update.py"}  # issue 45: the lead rewrites it
CLOCKS = {"monotonic", "perf_counter", "process_time", "time", "cpu_seconds"}


def _timing(node: ast.AST) -> bool:
    for part in ast.walk(node):
        if isinstance(part, ast.Call):
            func = part.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if name in CLOCKS:
                return True
        words = []
        if isinstance(part, ast.Name):
            words.append(part.id)
        elif isinstance(part, ast.Attribute):
            words.append(part.attr)
        elif isinstance(part, ast.Constant) and isinstance(part.value, str):
            words.append(part.value)
        for word in (w.lower() for w in words):
            if word.endswith("_s") or any(k in word for k in ("cpu", "seconds", "elapsed", "wall")):
                return True
    return False


def _small_number(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
        and 0 < node.value < LIMIT_S
    )


def speed_limits(source: str) -> list[int]:
    """The lines of `source` whose assertions hold a timing under LIMIT_S."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Assert):
            continue
        for compare in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
            sides = [compare.left, *compare.comparators]
            ops = compare.ops
            for i, op in enumerate(ops):
                left, right = sides[i], sides[i + 1]
                if (isinstance(op, ast.Lt | ast.LtE) and _timing(left) and _small_number(right)) or (
                    isinstance(op, ast.Gt | ast.GtE) and _small_number(left) and _timing(right)
                ):
                    found.append(node.lineno)
    return sorted(set(found))


def test_the_finder_tells_a_limit_from_a_ratio_and_a_hang_guard():
    source = """
assert result["timings"]["load_s"] < 0.5
assert cancel_cpu < 1.0, cancel_cpu
assert time.process_time() - start < 5.0
assert time.monotonic() - started < 30
assert cancel_cpu < whole_cpu / 2
assert large < 10 * max(small, 0.005)
assert len(parts) < 3
assert time.monotonic() < deadline
"""
    assert speed_limits(source) == [2, 3, 4]


def test_no_test_holds_a_speed_limit_under_ten_seconds():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in project_files("tests", "*.py")
        if str(path.relative_to(ROOT)) not in LEFT_ALONE
        for line in speed_limits(path.read_text(encoding="utf-8"))
    ]
    assert not found, (
        f"speed limits under {LIMIT_S:g} s (assert behaviour; goals go to bench/):\n" + "\n".join(found)
    )

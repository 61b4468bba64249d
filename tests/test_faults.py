"""The fault helpers (tests/faults.py) cannot hide: where the system refuses what they need (no mount, no
`chattr`, no `setpriv`, as in a container without the capabilities), the test that uses them FAILS and
says why; it is never skipped. Shown with stand-ins for the three tools that refuse as they do there."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

import pytest

from tests.faults import check_unprivileged_is_refused, immutable, tmpfs

REFUSING = '#!/bin/sh\necho "$0: must be superuser" >&2\nexit 32\n'


def outcome(attempt: Callable[[], object]) -> BaseException | None:
    """What `attempt` raised, pytest's own outcomes included (pytest.raises would let a skip through)."""
    try:
        attempt()
    except BaseException as exc:  # skips and failures are BaseExceptions
        return exc
    return None


def entered(context: contextlib.AbstractContextManager[object]) -> None:
    with context:
        pass


@pytest.mark.parametrize("tool", ["mount", "chattr", "setpriv"])
def test_a_helper_the_system_refuses_fails_the_test_saying_why(tmp_path, monkeypatch, tool):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / tool).write_text(REFUSING)
    (bin_dir / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    attempts = {
        "mount": lambda: entered(tmpfs(tmp_path / "fs", "1m")),
        "chattr": lambda: entered(immutable(tmp_path)),
        "setpriv": lambda: check_unprivileged_is_refused(tmp_path),
    }
    raised = outcome(attempts[tool])
    assert isinstance(raised, pytest.fail.Exception), repr(raised)
    assert "must be superuser" in str(raised) and "fail rather than skip" in str(raised), str(raised)

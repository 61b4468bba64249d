"""A fresh host answering `profile.show` on the reader thread while its first job (worker thread) imports
native_host.style must not fail: the style package and the profile module are imported before serving,
and do not import each other (issue 14: 2 of 8 to 15 of 20 tries failed with internal_error)."""

from __future__ import annotations

import subprocess
import sys

from native_host.host.client import HostProcess, frame

TRIES = 12
TEXT = "Honestly, I realise the colour was off!!! Anyway... see you tomorrow :) — Jo. " * 20


def test_profile_show_racing_the_first_job(isolated_home):
    failures = []
    for attempt in range(TRIES):
        with HostProcess() as host:
            # Both frames in one write: the job reaches the worker while the reader answers profile.show.
            if attempt % 2:
                batch = [{"id": "job", "type": "analyze", "params": {"text": TEXT}}]
                batch.append({"id": "show", "type": "profile.show"})
            else:
                batch = [{"id": "show", "type": "profile.show"}]
                batch.append({"id": "job", "type": "analyze", "params": {"text": TEXT}})
            host.send_raw(b"".join(frame(m) for m in batch))
            replies = {rid: host.final(rid, 60)[0] for rid in ("show", "job")}
            for rid, reply in replies.items():
                if reply["type"] != "result":
                    failures.append((attempt, rid, reply.get("error")))
            assert host.close() == 0
    assert not failures, failures


THREADED_IMPORTS = """
import threading
barrier = threading.Barrier(2)
errors = []

def profile_first():
    barrier.wait()
    try:
        from native_host.style.profile import ProfileError, load_profile  # noqa: F401
    except Exception as exc:
        errors.append(repr(exc))

def style_first():
    barrier.wait()
    try:
        from native_host import style
        style.analyze  # noqa: B018
    except Exception as exc:
        errors.append(repr(exc))

threads = [threading.Thread(target=profile_first), threading.Thread(target=style_first)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(errors)
"""


def test_style_and_profile_imported_from_two_threads_at_once():
    """Without the host's preload: the two modules imported concurrently in fresh interpreters."""
    outcomes = []
    for _ in range(TRIES):
        proc = subprocess.run(
            [sys.executable, "-c", THREADED_IMPORTS], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        outcomes.append(proc.stdout.strip())
    assert all(out == "[]" for out in outcomes), outcomes


def test_style_package_does_not_import_the_profile_module():
    code = (
        "import sys, native_host.style as s\n"
        "assert 'native_host.style.profile' not in sys.modules\n"
        "import native_host.style.profile as p\n"
        "assert s.Profile is p.Profile and s.load_profile is p.load_profile\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr

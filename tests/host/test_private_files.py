"""The user's files are private: settings.json, profile.msgpack (phrases from their own writing) and
host.log are 0600 in 0700 dirs, also when an older version left them 0644/0755; writes go through
uniquely named temp files, fsynced before they replace the old file."""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from pathlib import Path

import pytest

from native_host import paths, settings
from native_host.host.client import HostProcess
from native_host.style.profile import Profile, load_profile
from native_host.style.samples import default_rivals_path

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX mode bits (Windows ignores them)")

SAMPLE = "Honestly, I realise the colour was off!!! Anyway... see you tomorrow :) — Jo. " * 10


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)  # the usual default, under which plain writes come out 0644/0755
    yield
    os.umask(old)


def test_host_writes_private_files_and_tightens_old_ones(isolated_home, umask_022):
    # What an older version left behind: world-readable files in world-readable dirs.
    for directory in (paths.config_dir(), paths.data_dir(), paths.log_dir()):
        directory.mkdir(parents=True, mode=0o755)
        directory.chmod(0o755)
    (paths.log_dir() / "host.log").write_text("old line\n")
    (paths.log_dir() / "host.log").chmod(0o644)
    with HostProcess() as host:
        host.result("settings.set", {"settings": {"candidates": 2}})
        host.result("profile.add", {"text": SAMPLE}, timeout=120)
        host.result("profile.add", {"text": SAMPLE, "rival": "Ann"}, timeout=120)  # other people's counts
        assert host.close() == 0
    files = [paths.settings_path(), paths.profile_path(), default_rivals_path(), paths.log_dir() / "host.log"]
    assert {str(f): oct(mode(f)) for f in files} == {str(f): oct(0o600) for f in files}
    dirs = [paths.config_dir(), paths.data_dir(), paths.log_dir()]
    assert {str(d): oct(mode(d)) for d in dirs} == {str(d): oct(0o700) for d in dirs}
    assert "old line" in (paths.log_dir() / "host.log").read_text()  # tightened, not replaced
    leftovers = [p.name for d in dirs for p in d.iterdir() if p.name.endswith(".tmp")]
    assert not leftovers


def test_rotated_logs_stay_private(tmp_path, umask_022):
    from native_host.host.stdio import PrivateRotatingFileHandler

    handler = PrivateRotatingFileHandler(tmp_path / "host.log", maxBytes=200, backupCount=2, encoding="utf-8")

    record = logging.LogRecord("t", logging.INFO, __file__, 1, "x" * 150, None, None)
    for _ in range(5):
        handler.emit(record)
    handler.close()
    logs = sorted(tmp_path.glob("host.log*"))
    assert len(logs) == 3 and all(mode(p) == 0o600 for p in logs), [(p.name, oct(mode(p))) for p in logs]


def test_concurrent_settings_writers_never_collide(isolated_home):
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def writer(n: int) -> None:
        barrier.wait()
        for i in range(25):
            try:
                settings.update_settings({"candidates": 1 + (n + i) % 8})
            except BaseException as exc:
                errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    assert json.loads(paths.settings_path().read_text())["candidates"] in range(1, 9)
    assert [p.name for p in paths.config_dir().iterdir()] == ["settings.json"]


def test_concurrent_profile_saves_never_collide(isolated_home):
    profile = Profile()
    profile.learn(SAMPLE)
    errors: list[BaseException] = []

    def saver() -> None:
        for _ in range(20):
            try:
                profile.save()
            except BaseException as exc:
                errors.append(exc)

    threads = [threading.Thread(target=saver) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    assert load_profile() is not None and mode(paths.profile_path()) == 0o600


def test_bytes_are_synced_before_the_rename(tmp_path, monkeypatch):
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append("replace"), real_replace(a, b))[1])
    paths.write_private(tmp_path / "d" / "f.json", b"{}")
    assert events[:2] == ["fsync", "replace"], events  # the file's bytes, then the rename
    assert events[2:] == ["fsync"], events  # then the directory entry


def test_a_failed_replace_keeps_the_old_file_and_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "settings.json"
    paths.write_private(target, b'{"old": true}')

    def broken(a: str, b: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        paths.write_private(target, b'{"new": true}')
    assert target.read_bytes() == b'{"old": true}'
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]

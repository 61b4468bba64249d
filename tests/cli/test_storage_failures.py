"""Every command that writes, on storage that refuses the write: full (a small tmpfs filled to the last
byte: ENOSPC), read-only (a tmpfs remounted ro: EROFS), immutable (`chattr +i` dirs on a tmpfs, which root
cannot write into either: EPERM) and without permission (a home root owns, the command run as `nobody`:
EACCES). Real subprocesses in a FANTASMA_HOME there: each ends with exit status 2 and one line on stderr
that says what failed and why, no traceback, and every file and directory as it was (no stray temp file or
staging dir either). The host on the full disk over real pipes: `storage_error`, and it keeps serving.
`profile add` and `profile clear` change all of their files or none, with a real fault at each file.

The faults need root (tests/faults.py): `make test` runs the suite as root; without it these fail and say
why, never skip."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from native_host import paths
from native_host.host.client import HostProcess, host_env
from tests.checkpoints import REPO
from tests.faults import (
    UNPRIVILEGED,
    check_unprivileged_is_refused,
    fill,
    immutable,
    remount_readonly,
    tmpfs,
    tree,
)
from tests.models.checkpoints import save_tiny_chat_llama

SAMPLE = REPO / "examples" / "forum_post.txt"
INSTALLED = "tiny"  # the installed model, active in every home below
PROFILE_FILES = ("profile.msgpack", "identify_samples.msgpack", "identify_rivals.msgpack")  # `profile clear`
# Why each kind of storage refuses, as the one line says it (native_host/paths.py STORAGE_REASONS).
REASONS = {
    "full": paths.STORAGE_REASONS[errno.ENOSPC],
    "readonly": paths.STORAGE_REASONS[errno.EROFS],
    "immutable": paths.STORAGE_REASONS[errno.EPERM],
    "no_permission": paths.STORAGE_REASONS[errno.EACCES],
}
LOG = ("home/log",)  # the host's and the CLI's own log, left out of the comparisons


def fantasma(
    home: Path, *args: str, user: tuple[str, ...] = (), timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """The CLI as a subprocess in `home`; `user`: an argv prefix that runs it as another user."""
    return subprocess.run(
        [*user, sys.executable, "-m", "native_host.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "FANTASMA_HOME": str(home)},
        timeout=timeout,
    )


def run_ok(home: Path, *args: str) -> None:
    done = fantasma(home, *args)
    assert done.returncode == 0, (args, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def populated(tmp_path_factory) -> tuple[Path, Path]:
    """(a FANTASMA_HOME as a user has it: a profile, two rivals, the installed model `tiny` active; the tiny
    checkpoint `setup --model` installs from), made once with the real commands, copied into each tmpfs."""
    work = tmp_path_factory.mktemp("storage")
    checkpoint = save_tiny_chat_llama(work / "tiny_llama")
    installer = work / "installer_home"
    run_ok(installer, "setup", "--model", str(checkpoint), "--name", INSTALLED)
    home = work / "home"
    shutil.copytree(installer / "data" / "models" / INSTALLED, home / "data" / "models" / INSTALLED)
    run_ok(home, "models", "use", INSTALLED)
    run_ok(home, "profile", "add", str(SAMPLE))
    run_ok(home, "profile", "add", "--rival", "Bob", str(SAMPLE))
    run_ok(home, "profile", "add", "--rival", "Ann", str(REPO / "README.md"))
    return home, checkpoint


@dataclass(frozen=True)
class Refusing:
    kind: str  # a key of REASONS
    home: Path  # the FANTASMA_HOME on that storage
    root: Path  # the tmpfs (or, for no_permission, the directory root owns)
    user: tuple[str, ...] = ()  # the argv prefix the commands run with


@pytest.fixture(scope="module")
def refusing(request, populated, tmp_path_factory) -> Iterator[Refusing]:
    kind = request.param
    home, _ = populated
    # no file system of its own: root's files, whose mode bits refuse nobody's writes (EACCES; `profile
    # add` and `setup --model` meet an EPERM first: a hard link to, and a chmod of, what nobody does not own)
    if kind == "no_permission":
        root = tmp_path_factory.mktemp("root_owned")
        shutil.copytree(home, root / "home")
        for directory in (root, root / "home", root / "home" / "data"):
            check_unprivileged_is_refused(directory)
        yield Refusing(kind, root / "home", root, tuple(UNPRIVILEGED))
        return
    # the others are large (a tmpfs takes memory only for what is written), so `setup --model`'s
    # free-space check passes there and the write itself is tried
    size = "4m" if kind == "full" else "2g"
    with tmpfs(tmp_path_factory.mktemp(f"tmpfs_{kind}"), size) as root:
        shutil.copytree(home, root / "home")
        if kind == "full":
            fill(root)
        elif kind == "readonly":
            remount_readonly(root)
        if kind != "immutable":
            yield Refusing(kind, root / "home", root)
            return
        (root / "home" / "run").mkdir()
        dirs = ("data", "config", "data/models", f"data/models/{INSTALLED}", "run")
        with immutable(*(root / "home" / d for d in dirs)):
            yield Refusing(kind, root / "home", root)


def _commands(checkpoint: Path) -> dict[str, Callable[[Path], list[str]]]:
    """Every command that writes, by name: its argv in a home."""
    return {
        "profile add": lambda home: ["profile", "add", str(SAMPLE)],
        "profile add --rival": lambda home: ["profile", "add", "--rival", "Bob", str(SAMPLE)],
        "profile clear --rival": lambda home: ["profile", "clear", "--rival", "Bob"],
        "profile clear": lambda home: ["profile", "clear"],
        "models use": lambda home: ["models", "use", paths.default_model_dir().name],
        "models remove": lambda home: ["models", "remove", INSTALLED],
        "setup": lambda home: ["setup", "--no-register"],
        "setup --model": lambda home: ["setup", "--model", str(checkpoint), "--name", "tiny2"],
        "train": lambda home: ["train", "--out", str(home / "run"), "--windows", "4", "--rounds", "1"],
    }


COMMANDS = list(_commands(Path()))
# Deleting needs no space: `profile clear` on a full disk deletes, as it should (tested below). `setup` and `train`
# spend ~20 s each here (the export's merge, torch's import) before their first write, so they run on the
# full disk only; their other failures take the same path (native_host/commands/_io.py storage_error).
FULL_ONLY = {"setup", "train"}
CASES = [
    (kind, command)
    for kind in sorted(REASONS)
    for command in COMMANDS
    if (kind == "full" and command != "profile clear") or (kind != "full" and command not in FULL_ONLY)
]


@pytest.mark.parametrize(("refusing", "command"), CASES, indirect=["refusing"])
def test_a_refused_write_is_one_line_and_changes_nothing(refusing, populated, command):
    argv = _commands(populated[1])[command](refusing.home)
    before = tree(refusing.root, LOG)
    done = fantasma(refusing.home, *argv, user=refusing.user)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"fantasma {command.split()[0]}"), lines
    if command == "setup --model" and refusing.kind == "full":
        assert "not enough disk space" in lines[0]  # refused before any write, from the free space
    else:
        assert lines[0].endswith(REASONS[refusing.kind]), lines
        assert "cannot " in lines[0], lines  # and what could not be done
    assert tree(refusing.root, LOG) == before


@pytest.mark.parametrize("refusing", ["full"], indirect=True)
def test_the_host_on_a_full_disk_answers_storage_error_and_keeps_serving(refusing):
    before = tree(refusing.root, LOG)
    env = host_env(FANTASMA_HOME=str(refusing.home))
    with HostProcess(env=env) as host:
        text = SAMPLE.read_text(encoding="utf-8")
        requests = [
            ("profile.add", {"text": text}),
            ("profile.add", {"text": text, "rival": "Bob"}),
            ("settings.set", {"settings": {"candidates": 2}}),
            ("models", {"use": None}),
        ]
        for kind, params in requests:
            reply = host.request(kind, params)
            assert reply["type"] == "error", (kind, reply)
            assert reply["error"]["name"] == "storage_error", (kind, reply)
            assert REASONS["full"] in reply["error"]["message"], (kind, reply)
        shown = host.result("profile.show")  # still serving, the profile as it was
        assert shown["profile"]["documents"] == 1 and len(shown["rivals"]) == 2
        assert host.close() == 0
        assert host.violations == []
    assert tree(refusing.root, (*LOG, "home/cache")) == before  # its engine-checks cache aside


@pytest.mark.parametrize("refused", ["profile.msgpack", "identify_samples.msgpack"])
def test_profile_add_saves_the_profile_and_the_samples_or_neither(populated, tmp_path_factory, refused):
    """Room for one of the two files only (here: one made immutable, the other beside it writable):
    `profile add`, from the CLI and over the host's pipes, saves both or neither (the samples are written
    first and put back when the profile cannot be)."""
    home, _ = populated
    with tmpfs(tmp_path_factory.mktemp("tmpfs_pair"), "64m") as root:
        shutil.copytree(home, root / "home")
        profile = next((root / "home").rglob(refused))
        assert profile.with_name("identify_samples.msgpack").exists()
        with immutable(profile):
            before = tree(root, LOG)
            done = fantasma(root / "home", "profile", "add", str(SAMPLE))
            assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
            assert tree(root, LOG) == before  # the samples were written, then put back
            with HostProcess(env=host_env(FANTASMA_HOME=str(root / "home"))) as host:
                reply = host.request("profile.add", {"text": SAMPLE.read_text(encoding="utf-8")})
                assert reply["type"] == "error" and reply["error"]["name"] == "storage_error", reply
                assert host.close() == 0
            # the host starting may add its engine-checks cache; nothing else
            assert tree(root, (*LOG, "home/cache")) == before


@pytest.mark.parametrize("stuck", PROFILE_FILES)
def test_profile_clear_deletes_the_three_files_or_none(populated, tmp_path_factory, stuck):
    """One of the three files `profile clear` deletes cannot be deleted (immutable), whichever it is:
    `profile clear`, from the CLI and over the host's pipes, leaves all three as they were (each is renamed
    aside, and put back when another cannot be)."""
    home, _ = populated
    with tmpfs(tmp_path_factory.mktemp("tmpfs_clear"), "64m") as root:
        shutil.copytree(home, root / "home")
        data = root / "home" / "data"
        assert all((data / name).is_file() for name in PROFILE_FILES)
        with immutable(data / stuck):
            before = tree(root, LOG)
            done = fantasma(root / "home", "profile", "clear")
            assert done.returncode == 2, (done.stdout, done.stderr)
            assert done.stderr.strip().splitlines() == [
                f"fantasma profile: cannot delete the profile in {data}: {REASONS['immutable']}"
            ]
            assert tree(root, LOG) == before
            with HostProcess(env=host_env(FANTASMA_HOME=str(root / "home"))) as host:
                reply = host.request("profile.clear", {})
                assert reply["type"] == "error" and reply["error"]["name"] == "storage_error", reply
                assert host.close() == 0
            assert tree(root, (*LOG, "home/cache")) == before


def test_profile_clear_on_a_full_disk_deletes_the_three_files(populated, tmp_path_factory):
    """Deleting needs no space: on a disk full to the last byte `profile clear` deletes all three files
    and leaves nothing of them behind (no file renamed aside)."""
    home, _ = populated
    with tmpfs(tmp_path_factory.mktemp("tmpfs_clear_full"), "4m") as root:
        shutil.copytree(home, root / "home")
        fill(root)
        before = tree(root, LOG)
        done = fantasma(root / "home", "profile", "clear")
        assert done.returncode == 0, (done.stdout, done.stderr)
        assert done.stdout.splitlines() == ["profile deleted", "rivals' samples deleted"]
        assert tree(root, LOG) == {k: v for k, v in before.items() if Path(k).name not in PROFILE_FILES}

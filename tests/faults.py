"""Real storage faults for the tests that need them, and the snapshot that shows nothing changed.

- `tmpfs`: a small file system of its own, to fill to the last byte (`fill`, `leave_free`: ENOSPC) or
  remount read-only (EROFS);
- `immutable`: `chattr +i` on files or directories, which no one may change, rename or delete (EPERM);
- `UNPRIVILEGED`: the argv prefix that runs a command as `nobody` (uid/gid 65534, no groups) holding
  only CAP_DAC_READ_SEARCH: it reads everything, and writes are judged by the mode bits alone, so a
  home that another account owns refuses each write with EACCES, as it does for a user whose data dir
  `sudo` made.

Mounting, `chattr` and `setpriv` need root (CAP_SYS_ADMIN, CAP_LINUX_IMMUTABLE, CAP_SETUID): `make test`
runs the suite as root. Where they are refused these helpers FAIL the test, saying why, and never skip it:
a CI without those capabilities is red, not green with none of the fault tests run."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

FILLER = "filler"  # the file that fills a tmpfs (not the user's; left out of `tree`)
NOBODY = 65534
UNPRIVILEGED = [
    "setpriv",
    f"--reuid={NOBODY}",
    f"--regid={NOBODY}",
    "--clear-groups",
    "--inh-caps=+dac_read_search",
    "--ambient-caps=+dac_read_search",
]
WHY = "these fault tests need root (make test runs the suite as root) and fail rather than skip without it"


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` mounted at `where` for the block; unmounted after."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.fail(f"cannot mount a {size} tmpfs at {where}: {mounted.stderr.strip()}; {WHY}", pytrace=False)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def remount_readonly(root: Path) -> None:
    done = subprocess.run(["mount", "-o", "remount,ro", str(root)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"cannot remount {root} read-only: {done.stderr.strip()}; {WHY}", pytrace=False)


@contextlib.contextmanager
def immutable(*targets: Path) -> Iterator[None]:
    """`chattr +i` on each of `targets` for the block (on a tmpfs: not every file system has the flag)."""
    names = [str(t) for t in targets]
    done = subprocess.run(["chattr", "+i", *names], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"cannot make {names} immutable: {done.stderr.strip()}; {WHY}", pytrace=False)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *names], check=False)


def fill(root: Path) -> None:
    """Write until the file system at `root` says it is full, to the last byte."""
    with open(root / FILLER, "ab", buffering=0) as filler:
        for chunk in (b"\0" * 65536, b"\0"):
            with contextlib.suppress(OSError):
                while True:
                    filler.write(chunk)
    probe = root / "probe"
    with pytest.raises(OSError) as refused:
        probe.write_bytes(b"x")
    probe.unlink(missing_ok=True)
    assert refused.value.errno == errno.ENOSPC


def leave_free(root: Path, free: int) -> None:
    """Fill the file system at `root` until only about `free` bytes are left."""
    vfs = os.statvfs(root)
    with open(root / FILLER, "ab") as filler:
        filler.write(b"\0" * max(0, vfs.f_bavail * vfs.f_frsize - free))
    vfs = os.statvfs(root)
    assert abs(vfs.f_bavail * vfs.f_frsize - free) <= 2 * vfs.f_frsize, (vfs.f_bavail, free)


def check_unprivileged_is_refused(directory: Path) -> None:
    """Fail unless `UNPRIVILEGED` runs here and writing into `directory` gives it EACCES."""
    probe = (
        "import errno, sys\ntry: open(sys.argv[1], 'x')\nexcept OSError as e: print(errno.errorcode[e.errno])"
    )
    done = subprocess.run(
        [*UNPRIVILEGED, sys.executable, "-c", probe, str(directory / "probe")], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.fail(
            f"cannot run a command as uid {NOBODY} with setpriv: {done.stderr.strip()}; {WHY}", pytrace=False
        )
    assert done.stdout.strip() == "EACCES", (done.stdout, done.stderr)


def tree(root: Path, leave_out: tuple[str, ...] = ()) -> dict[str, str]:
    """Every entry under `root` by its path: a file as its mode and sha256, a directory as its mode, a
    link as its target. `leave_out`: top paths (relative, e.g. "home/log") left out with all under them;
    the tmpfs filler is always left out."""

    def kept(rel: str) -> bool:
        return rel != FILLER and not any(rel == top or rel.startswith(top + "/") for top in leave_out)

    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not kept(rel):
            continue
        info = path.lstat()
        mode = f"{stat.S_IMODE(info.st_mode):04o}"
        if stat.S_ISLNK(info.st_mode):
            out[rel] = f"link -> {os.readlink(path)}"
        elif stat.S_ISDIR(info.st_mode):
            out[rel] = f"dir {mode}"
        else:
            out[rel] = f"file {mode} {hashlib.sha256(path.read_bytes()).hexdigest()}"
    return out

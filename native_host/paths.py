"""Per-user locations. Nothing is written next to the code.

`FANTASMA_HOME` (tests, portable installs) replaces the platformdirs roots with one directory.

The embedded models may also come prepared by a system package (the Debian package, docs/install.md):
`<sys.prefix>/share/fantasma/models`, read-only, used for a model the user has no copy of their own.

The user's files (settings.json, profile.msgpack with phrases from their own writing, host.log) are
private: `private_dir()` makes their directory 0700 and `write_private()` writes 0600 through a
uniquely named temp file, fsynced before it replaces the old one. POSIX modes; on Windows the per-user
profile directories are already private to the user and the mode bits are ignored.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import platformdirs

APP = "fantasma"


def _root(kind: str) -> Path:
    home = os.environ.get("FANTASMA_HOME")
    if home:
        return Path(home) / kind
    if kind == "data":
        return Path(platformdirs.user_data_dir(APP, appauthor=False))
    if kind == "config":
        return Path(platformdirs.user_config_dir(APP, appauthor=False))
    if kind == "log":
        return Path(platformdirs.user_log_dir(APP, appauthor=False))
    if kind == "cache":
        return Path(platformdirs.user_cache_dir(APP, appauthor=False))
    raise ValueError(kind)


def data_dir() -> Path:
    return _root("data")


def models_dir() -> Path:
    return data_dir() / "models"


def system_models_dir() -> Path:
    """Where a system package puts the embedded models it prepared (the Debian package: its venv's
    prefix is /usr/lib/fantasma, this dir a link to /usr/share/fantasma/models). Never written."""
    return Path(sys.prefix) / "share" / "fantasma" / "models"


def _embedded(name: str) -> Path:
    """The user's own copy when there is one (it is what `fantasma setup` writes), else the system
    package's, else the user's path (not set up yet)."""
    own = models_dir() / name
    shipped = system_models_dir() / name
    return shipped if not own.exists() and shipped.is_dir() else own


def default_model_dir() -> Path:
    return _embedded("smollm2-135m-instruct-int4")


def embedder_dir() -> Path:
    return _embedded("all-minilm-l6-v2")


def profile_path() -> Path:
    return data_dir() / "profile.msgpack"


def config_dir() -> Path:
    return _root("config")


def settings_path() -> Path:
    return config_dir() / "settings.json"


def log_dir() -> Path:
    return _root("log")


def cache_dir() -> Path:
    return _root("cache")


PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def private_dir(directory: Path) -> Path:
    """`directory` created if missing and made 0700 (also when an older version left it 0755). Only
    the directory itself: its parents (e.g. ~/.local/share) are not ours to change."""
    directory.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
    if os.name == "posix" and directory.stat().st_mode & 0o777 != PRIVATE_DIR_MODE:
        directory.chmod(PRIVATE_DIR_MODE)
    return directory


def write_private(path: Path, data: bytes) -> Path:
    """Atomically replace `path` with `data`, mode 0600, in a 0700 dir. The temp file has a unique name
    (two writers never share one), and its bytes are on disk before the rename, so a crash leaves the
    old file or the new one, never an empty or half one."""
    private_dir(path.parent)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # 0600
    try:
        with os.fdopen(fd, "wb") as tmp:
            tmp.write(data)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)
    return path


def delete_together(files: Sequence[Path]) -> list[Path]:
    """Delete every one of `files` that exists, or none of them; returns those deleted. Each is first
    renamed aside in its own directory (`.NAME.deleted`: a rename needs no free space), every one put back
    when one cannot be, and only then unlinked, so a failure on the way leaves the files as they were."""
    aside: list[tuple[Path, Path]] = []
    try:
        for path in files:
            if path.exists():
                trash = path.with_name(f".{path.name}.deleted")
                path.rename(trash)
                aside.append((path, trash))
    except BaseException:
        for path, trash in reversed(aside):
            trash.rename(path)
        raise
    for _, trash in aside:
        trash.unlink()
    for directory in dict.fromkeys(path.parent for path, _ in aside):
        _fsync_dir(directory)
    return [path for path, _ in aside]


# A write that failed for one of these reasons is the user's storage, not a bug: the CLI says it in one
# line (commands/_io.py `storage`), the host as `storage_error` (host/handlers/).
STORAGE_REASONS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
}


def storage_failure(exc: BaseException | None) -> str | None:
    """Why a write failed, in words, when `exc` (or an error it was raised from) is a full disk, a
    read-only file system or a missing permission; None for any other error."""
    seen = 0
    while exc is not None and seen < 8:  # the chain of causes, bounded
        if isinstance(exc, OSError) and exc.errno in STORAGE_REASONS:
            return STORAGE_REASONS[exc.errno]
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def storage_reason(exc: OSError) -> str:
    """Why a write failed, in words: `storage_failure`'s words, else the system's."""
    return storage_failure(exc) or exc.strerror or str(exc)


def _fsync_dir(directory: Path) -> None:
    """The rename itself durable (POSIX; directories cannot be opened for fsync on Windows)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

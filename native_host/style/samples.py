"""Your writing samples and your rivals', stored next to the profile as per-chunk counts, never the texts.

    add_samples(texts) / load_samples() / clear_samples()                  yours (`fantasma profile add`)
    add_rival_samples(name, texts) / load_rivals() / clear_rivals(name)     people a reader might suspect
    rivals_summary()                                                        [{"name", "chunks", "words"}]

Both files are msgpack, 0600, written atomically (paths.write_private). fitting.py trains the surrogates
on them.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import msgpack

from native_host import paths
from native_host.style.counting import DocCounts

SAMPLES_VERSION = 1
SAMPLE_CHUNK_WORDS = 250  # your texts are learned in chunks of about the attackers' size
RIVALS_VERSION = 1
RIVAL_NAME_MAX = 64

Rivals = dict[str, list[DocCounts]]  # a rival's name -> its per-chunk counts


class IdentifyError(Exception):
    """A file the identifiability model needs is missing or unreadable: your samples, your rivals' (here)
    or the population (population.py); the message says which and why."""


def default_samples_path() -> Path:
    return paths.profile_path().with_name("identify_samples.msgpack")


def chunk_for_samples(text: str, words_per_chunk: int = SAMPLE_CHUNK_WORDS) -> list[str]:
    """~250-word pieces cut at sentence ends (the attackers read texts of about that size)."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]
    chunks: list[str] = []
    current: list[str] = []
    count = 0
    for s in sentences:
        current.append(s)
        count += len(s.split())
        if count >= words_per_chunk:
            chunks.append(" ".join(current))
            current, count = [], 0
    if current and (count >= words_per_chunk // 4 or not chunks):
        chunks.append(" ".join(current))
    elif current:
        chunks[-1] += " " + " ".join(current)
    return chunks


def samples_from_texts(texts: Iterable[str]) -> list[DocCounts]:
    return [DocCounts.from_text(c) for t in texts for c in chunk_for_samples(t) if c.strip()]


def load_samples(path: Path | None = None) -> list[DocCounts] | None:
    """Your stored samples, or None when there are none; IdentifyError when the file is unreadable."""
    path = path or default_samples_path()
    if not path.exists():
        return None
    try:
        raw = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
        if not isinstance(raw, dict) or raw.get("version") != SAMPLES_VERSION:
            raise IdentifyError(f"{path}: samples were written by a different version of fantasma")
        return [DocCounts.from_dict(d) for d in raw["docs"]]
    except IdentifyError:
        raise
    except Exception as exc:
        raise IdentifyError(
            f"{path}: your writing samples are corrupt ({exc}); run `fantasma profile clear`"
        ) from exc


def save_samples(docs: Sequence[DocCounts], path: Path | None = None) -> Path:
    path = path or default_samples_path()
    payload = {"version": SAMPLES_VERSION, "docs": [d.to_dict() for d in docs]}
    return paths.write_private(path, msgpack.packb(payload, use_bin_type=True))  # 0600, atomic


def add_samples(texts: Iterable[str], path: Path | None = None) -> int:
    """Learn per-chunk counts of your texts; returns how many chunks the samples now hold."""
    try:
        docs = load_samples(path) or []
    except IdentifyError:
        docs = []  # a corrupt file is replaced by what we learn now
    docs.extend(samples_from_texts(texts))
    save_samples(docs, path)
    return len(docs)


@contextmanager
def samples_restored_on_failure(path: Path | None = None) -> Iterator[None]:
    """The samples file as it was when the block fails: `profile add` saves the samples and then the
    profile, and a disk with room for one of the two must not leave them out of step. The old file is kept
    as a hard link, so putting it back is a rename and needs no free space."""
    path = path or default_samples_path()
    backup = path.with_name(path.name + ".before")
    had = path.exists()
    inode = path.stat().st_ino if had else None  # a file replaced atomically is a new inode
    if had:
        backup.unlink(missing_ok=True)
        try:
            os.link(path, backup)
        except OSError as exc:  # no hard links here (or none allowed): a copy, which may itself fail first
            if exc.errno not in (errno.EXDEV, errno.ENOTSUP, errno.EPERM, errno.EMLINK):
                raise
            shutil.copy2(path, backup)
    try:
        yield
    except BaseException:
        if not had:
            path.unlink(missing_ok=True)
        elif path.stat().st_ino != inode:
            os.replace(backup, path)
        else:  # the samples were never replaced
            backup.unlink(missing_ok=True)
        raise
    if had:
        backup.unlink(missing_ok=True)


def clear_samples(path: Path | None = None) -> bool:
    path = path or default_samples_path()
    if path.exists():
        path.unlink()
        return True
    return False


# -- rivals: other people's samples (the writers a reader might suspect instead of you) --------------


def default_rivals_path() -> Path:
    return default_samples_path().with_name("identify_rivals.msgpack")


def rival_name(name: str) -> str:
    """The stored form of a rival's name: stripped, 1..RIVAL_NAME_MAX characters, no control
    characters (names travel through JSON and show up in the options page); ValueError otherwise."""
    if not isinstance(name, str):
        raise ValueError("a rival's name must be text")
    clean = name.strip()
    if not clean:
        raise ValueError("a rival's name must not be empty")
    if len(clean) > RIVAL_NAME_MAX:
        raise ValueError(f"a rival's name may have at most {RIVAL_NAME_MAX} characters (it has {len(clean)})")
    if any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in clean):
        raise ValueError("a rival's name must not contain control characters or line breaks")
    return clean


def load_rivals(path: Path | None = None) -> Rivals:
    """Every stored rival's per-chunk counts, {} when none; IdentifyError when the file is unreadable."""
    path = path or default_rivals_path()
    if not path.exists():
        return {}
    try:
        raw = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
        if not isinstance(raw, dict) or raw.get("version") != RIVALS_VERSION:
            raise IdentifyError(f"{path}: rivals' samples were written by a different version of fantasma")
        rivals = raw["rivals"]
        if not isinstance(rivals, dict):
            raise TypeError("'rivals' is not a map")
        return {
            rival_name(str(name)): [DocCounts.from_dict(d) for d in docs] for name, docs in rivals.items()
        }
    except IdentifyError:
        raise
    except Exception as exc:
        raise IdentifyError(
            # not `profile clear --rival NAME`: removing one rival has to read the file
            f"{path}: the rivals' samples are corrupt ({exc}); delete that file to start the rivals "
            "over, or run `fantasma profile clear` (it clears your samples too)"
        ) from exc


def save_rivals(rivals: Rivals, path: Path | None = None) -> Path:
    path = path or default_rivals_path()
    payload = {
        "version": RIVALS_VERSION,
        "rivals": {name: [d.to_dict() for d in docs] for name, docs in sorted(rivals.items()) if docs},
    }
    return paths.write_private(path, msgpack.packb(payload, use_bin_type=True))  # 0600, atomic


def add_rival_samples(name: str, texts: Iterable[str], path: Path | None = None) -> int:
    """Learn per-chunk counts of a rival's texts (never the texts); returns the chunks added (0 when
    the texts hold no words: nothing is stored then). An unreadable rivals file raises IdentifyError
    and is left as it is: unlike your own samples it holds other people's, which you may not have
    at hand again."""
    name = rival_name(name)
    rivals = load_rivals(path)
    docs = samples_from_texts(texts)
    if not docs:
        return 0
    rivals.setdefault(name, []).extend(docs)
    save_rivals(rivals, path)
    return len(docs)


def clear_rivals(name: str | None = None, path: Path | None = None) -> bool:
    """Forget one rival (`name`) or every rival (None); False when there was nothing to clear. A
    corrupt file is removed whole when `name` is None; with a name it raises IdentifyError."""
    path = path or default_rivals_path()
    if name is None:
        if path.exists():
            path.unlink()
            return True
        return False
    name = rival_name(name)
    rivals = load_rivals(path)
    if name not in rivals:
        return False
    del rivals[name]
    if rivals:
        save_rivals(rivals, path)
    else:
        path.unlink()
    return True


def rivals_summary(path: Path | None = None) -> list[dict]:
    """[{"name", "chunks", "words"}] per stored rival, sorted by name; IdentifyError when corrupt."""
    return [
        {"name": name, "chunks": len(docs), "words": sum(d.n_words for d in docs)}
        for name, docs in sorted(load_rivals(path).items())
    ]

"""Hugging Face hub ids as export sources: `owner/name` (a checkpoint repo) or `owner/name/file.gguf`.

Downloads go through huggingface_hub: its cache (HF_HOME / HF_HUB_CACHE), its auth (`hf auth login`),
its resumable transfers and its progress bars (bytes, rate, time left). Only the files an export reads
are fetched (`CHECKPOINT_FILES`). `download()` is what `fantasma setup --model` uses:

    config first ──► the caller checks the architecture (nothing big is fetched for a model we cannot
    export) ──► dry run: the bytes still to fetch ──► the caller checks the disk ──► the download ──►
    every file checked against the hub's own listing (size, and sha256 for LFS files / git blob id)

Without a network the download library retries for a long time before saying so; we probe the endpoint
first (a TCP connect with a short timeout) and fall back to the local cache, so an offline install fails
in seconds with a clear message, and one whose files are cached works offline (`HF_HUB_OFFLINE=1` too).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from urllib.parse import urlparse

HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+(/[\w./-]+\.gguf)?$")
PROBE_TIMEOUT_S = 3.0
# Files a checkpoint export reads; everything else in the repo (other formats, images) is skipped.
CHECKPOINT_FILES = ["config.json", "generation_config.json", "*.safetensors", "*.safetensors.index.json",
                    "tokenizer.json", "tokenizer_config.json", "chat_template.jinja"]  # fmt: skip


class HubError(RuntimeError):
    """A hub id could not be fetched; the message says why and what to do instead."""


@dataclass(frozen=True)
class Snapshot:
    """What `download()` fetched: local paths at one commit, and the hub's record of each file."""

    hub_id: str
    repo_id: str
    revision: str  # the commit hash the files are from
    path: Path  # the snapshot dir, or the GGUF file for `owner/name/file.gguf`
    files: dict[str, Path] = field(default_factory=dict)  # path in the repo -> local file
    # path in the repo -> (size, sha256 for LFS files / git blob sha1 for others), from the hub's listing;
    # empty when no listing is cached (a cache written by an older huggingface_hub)
    listed: dict[str, tuple[int, str, str]] = field(default_factory=dict)  # (size, "sha256"|"sha1", hex)


def looks_like_hub_id(source: str) -> bool:
    """True for `owner/name[/file.gguf]` that is not an existing local path."""
    return bool(HUB_ID.match(source)) and not Path(source).exists()


def split_id(hub_id: str) -> tuple[str, str | None]:
    """(`owner/name`, the GGUF file inside it or None)."""
    parts = hub_id.split("/")
    return "/".join(parts[:2]), "/".join(parts[2:]) or None


def _endpoint() -> str:
    from huggingface_hub import constants

    return constants.ENDPOINT


def _reachable(endpoint: str, timeout: float = PROBE_TIMEOUT_S) -> str | None:
    """None when a TCP connection to the endpoint opens, else the reason it did not."""
    url = urlparse(endpoint)
    host = url.hostname or endpoint
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return f"cannot reach {host}:{port} ({exc.strerror or exc.__class__.__name__})"


def offline_reason() -> str | None:
    """Why the hub is not to be asked (HF_HUB_OFFLINE, or the endpoint does not answer); None online."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        return "HF_HUB_OFFLINE is set"
    return _reachable(_endpoint())


def cache_dir() -> Path:
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


@contextlib.contextmanager
def _hub_errors(hub_id: str, offline: str | None) -> Iterator[None]:
    """huggingface_hub's exceptions as one HubError line each."""
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        IncompleteSnapshotError,
        LocalEntryNotFoundError,
        RemoteEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    repo_id, _ = split_id(hub_id)
    try:
        yield
    except IncompleteSnapshotError:
        raise HubError(
            f"the cached copy of {hub_id!r} is incomplete, and the hub cannot be asked for the rest "
            f"({offline or 'no network connection'}); run again with a connection to finish the download"
        ) from None
    except LocalEntryNotFoundError:
        raise HubError(
            f"cannot download {hub_id!r}: {offline or 'no network connection'}, and it is not in the "
            "local Hugging Face cache. Download it on a connected machine and pass the local dir or .gguf file."
        ) from None
    except GatedRepoError:
        raise HubError(
            f"{repo_id!r} is gated: accept its terms at https://huggingface.co/{repo_id} with your account, "
            "log in here (`hf auth login`), then run again"
        ) from None
    except RepositoryNotFoundError:
        raise HubError(
            f"{hub_id!r}: no such repository on the hub (or it is private: run `hf auth login`)"
        ) from None
    except RevisionNotFoundError:
        raise HubError(f"{hub_id!r}: no such revision on the hub") from None
    except RemoteEntryNotFoundError:
        raise HubError(f"{hub_id!r}: no such file in the repository") from None
    except HfHubHTTPError as exc:
        raise HubError(f"cannot download {hub_id!r}: {exc}") from None
    except OSError as exc:
        if exc.errno == 28:  # ENOSPC mid-download: what is there stays and resumes next time
            raise HubError(
                f"the disk filled up while downloading {hub_id!r} into {cache_dir()}; free some space "
                "and run again (the download resumes)"
            ) from None
        raise


def _silent_bar():
    from tqdm.auto import tqdm

    class SilentBar(tqdm):  # the dry run's per-file bar: a count of metadata requests, not a download
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "disable": True})

    return SilentBar


def fetch_config(hub_id: str) -> Path | None:
    """The snapshot dir holding just the repo's config.json (a checkpoint repo), so the architecture is
    known before the weights are fetched; None for a GGUF file id."""
    from huggingface_hub import hf_hub_download

    repo_id, gguf_file = split_id(hub_id)
    if gguf_file:
        return None
    offline = offline_reason()
    with _hub_errors(hub_id, offline):
        return Path(hf_hub_download(repo_id, "config.json", local_files_only=offline is not None)).parent


def download(
    hub_id: str,
    check_space: Callable[[int, int, Path], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> Snapshot:
    """Fetch the files an export reads (cached ones are reused, an interrupted download resumes), with
    the library's progress bars; `check_space(bytes still to fetch, bytes in all, cache dir)` may refuse
    before anything is fetched."""
    from huggingface_hub import hf_hub_download, snapshot_download

    repo_id, gguf_file = split_id(hub_id)
    offline = offline_reason()
    local_only = offline is not None
    with _hub_errors(hub_id, offline):
        if not local_only:
            if gguf_file:
                plan = [hf_hub_download(repo_id, gguf_file, dry_run=True)]
            else:
                plan = list(
                    snapshot_download(
                        repo_id, allow_patterns=CHECKPOINT_FILES, dry_run=True, tqdm_class=_silent_bar()
                    )
                )
            todo = [f for f in plan if f.will_download]
            need = sum(f.file_size or 0 for f in todo)
            if check_space is not None:
                check_space(need, sum(f.file_size or 0 for f in plan), cache_dir())
            if say is not None and todo:
                size = f"{need / 1e9:.2f} GB" if need >= 1e9 else f"{need / 1e6:.1f} MB"
                say(
                    f"downloading {hub_id} at {plan[0].commit_hash[:12]}: {len(todo)} file(s), {size}, "
                    f"into {cache_dir()} (an interrupted download resumes)"
                )
        if gguf_file:
            path = Path(hf_hub_download(repo_id, gguf_file, local_files_only=local_only))
            snapshot_dir = path.parents[len(Path(gguf_file).parts) - 1]
        else:
            path = snapshot_dir = Path(
                snapshot_download(repo_id, allow_patterns=CHECKPOINT_FILES, local_files_only=local_only)
            )
    revision = snapshot_dir.name
    files = {
        p.relative_to(snapshot_dir).as_posix(): p
        for p in sorted(snapshot_dir.rglob("*"))
        if p.is_file() and (gguf_file is None or p == path)
    }
    snapshot = Snapshot(hub_id, repo_id, revision, path, files, _listing(repo_id, revision, gguf_file))
    check_snapshot(snapshot)
    return snapshot


def _listing(repo_id: str, revision: str, gguf_file: str | None) -> dict[str, tuple[int, str, str]]:
    """The hub's record of the files, as huggingface_hub cached it with the download (its tree cache,
    `trees/<commit>.json`). Read with the library's own reader: its public `get_cached_repo_tree` leaves
    out the LFS sha256. Empty when no listing is cached (a cache from an older huggingface_hub)."""
    try:
        from huggingface_hub._tree_cache import read_tree_cache
        from huggingface_hub.file_download import repo_folder_name
    except ImportError:  # a huggingface_hub without tree caches: sizes and hashes go unchecked
        return {}
    storage = cache_dir() / repo_folder_name(repo_id=repo_id, repo_type="model")
    entries = read_tree_cache(str(storage), revision) or {}
    wanted = (
        (lambda p: p == gguf_file) if gguf_file else (lambda p: any(fnmatch(p, g) for g in CHECKPOINT_FILES))
    )
    out: dict[str, tuple[int, str, str]] = {}
    for path, entry in entries.items():
        if not wanted(path):
            continue
        if entry.lfs_sha256 is not None:
            out[path] = (int(entry.lfs_size or entry.size), "sha256", str(entry.lfs_sha256))
        else:
            out[path] = (int(entry.size), "sha1", str(entry.blob_id))
    return out


def check_snapshot(snapshot: Snapshot) -> None:
    """Every listed file present at its listed size: a download cut short says so here, before an export
    would trip over it. (The hashes are checked while `file_digests` reads them for the provenance.)"""
    for name, (size, _, _) in sorted(snapshot.listed.items()):
        local = snapshot.files.get(name)
        if local is None:
            raise HubError(
                f"{snapshot.hub_id}: {name} is missing from the downloaded copy; run again with a "
                "connection to finish the download"
            )
        have = local.stat().st_size
        if have != size:
            raise HubError(
                f"{snapshot.hub_id}: {name} is truncated ({have:,} of {size:,} bytes): the download was "
                f"cut short. Remove it (`hf cache rm model/{snapshot.repo_id}`) and run again"
            )


def git_blob_sha1(path: Path) -> str:
    """The id git (and the hub) give a file that is not in LFS."""
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_digests(snapshot: Snapshot) -> dict[str, str]:
    """sha256 of every fetched file; a file whose hash differs from the hub's listing is refused."""
    from export.modeldir import file_sha256

    out: dict[str, str] = {}
    for name, local in snapshot.files.items():
        out[name] = file_sha256(local)
        listed = snapshot.listed.get(name)
        if listed is None:
            continue
        _, kind, expected = listed
        have = out[name] if kind == "sha256" else git_blob_sha1(local)
        if have != expected:
            raise HubError(
                f"{snapshot.hub_id}: {name} is corrupt ({kind} {have[:12]}… where the hub lists "
                f"{expected[:12]}…). Remove it (`hf cache rm model/{snapshot.repo_id}`) and run again"
            )
    return out


def fetch(hub_id: str) -> Path:
    """A local path for `hub_id`: a snapshot dir, or the GGUF file for `owner/name/file.gguf`
    (`fantasma-export` with a hub id)."""
    return download(hub_id).path

"""Hugging Face hub ids as export sources: `owner/name` (a checkpoint repo) or `owner/name/file.gguf`.

Downloads go through huggingface_hub (its cache, its auth). Without a network the download library
retries for a long time before saying so; we probe the endpoint first (a TCP connect with a short
timeout) and fall back to the local cache, so an offline export fails in seconds with a clear message.
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path
from urllib.parse import urlparse

HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+(/[\w./-]+\.gguf)?$")
PROBE_TIMEOUT_S = 3.0
# Files a checkpoint export reads; everything else in the repo (other formats, images) is skipped.
CHECKPOINT_FILES = ["config.json", "generation_config.json", "*.safetensors", "*.safetensors.index.json",
                    "tokenizer.json", "tokenizer_config.json", "chat_template.jinja"]  # fmt: skip


class HubError(RuntimeError):
    """A hub id could not be fetched; the message says why and what to do instead."""


def looks_like_hub_id(source: str) -> bool:
    """True for `owner/name[/file.gguf]` that is not an existing local path."""
    return bool(HUB_ID.match(source)) and not Path(source).exists()


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


def fetch(hub_id: str) -> Path:
    """A local path for `hub_id`: a snapshot dir, or the GGUF file for `owner/name/file.gguf`."""
    from huggingface_hub import hf_hub_download, snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, RepositoryNotFoundError

    parts = hub_id.split("/")
    repo_id = "/".join(parts[:2])
    gguf_file = "/".join(parts[2:]) or None

    def download(local_only: bool) -> Path:
        if gguf_file:
            return Path(hf_hub_download(repo_id, gguf_file, local_files_only=local_only))
        return Path(snapshot_download(repo_id, allow_patterns=CHECKPOINT_FILES, local_files_only=local_only))

    offline_reason = "HF_HUB_OFFLINE is set" if os.environ.get("HF_HUB_OFFLINE") else _reachable(_endpoint())
    try:
        return download(local_only=offline_reason is not None)
    except LocalEntryNotFoundError:
        raise HubError(
            f"cannot download {hub_id!r}: {offline_reason or 'no network connection'}, and it is not in the "
            "local Hugging Face cache. Download it on a connected machine and pass the local dir or .gguf file."
        ) from None
    except RepositoryNotFoundError:
        raise HubError(
            f"{hub_id!r}: no such repository on the hub (or it is private: run `hf auth login`)"
        ) from None
    except HfHubHTTPError as exc:
        raise HubError(f"cannot download {hub_id!r}: {exc}") from None

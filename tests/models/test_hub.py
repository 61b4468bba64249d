"""`fantasma setup --model owner/name` through huggingface_hub, without a network.

Offline: the cache is written in huggingface_hub's own layout (`models--owner--name/blobs`,
`snapshots/<commit>` links, `refs/main`, and the tree listing through the library's own
`write_tree_cache`), the way a download leaves it; then the real command runs with `HF_HUB_OFFLINE=1`
and the library reads it. Online: a local HTTP endpoint (`LocalHub`, on 127.0.0.1) answers the hub API
calls the library makes, with the hub's headers and error codes, so the library's own download, dry
run and error mapping run unchanged."""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from export.hub import git_blob_sha1
from tests.models.checkpoints import QWEN_SHARD, fantasma
from tests.models.test_install import by_name, models_json, one_line_failure

pytestmark = pytest.mark.slow

REPO_ID = "tiny-org/Tiny-Qwen3.5"  # the offline cache's repo
LLAMA_REPO = "tiny-org/Tiny-Llama"  # what the local endpoint serves
COMMIT = "0123456789abcdef0123456789abcdef01234567"
LFS_FROM = 1_000_000  # files this size or larger are LFS files on the hub (weights, tokenizer.json)


def write_hf_cache(checkpoint: Path, cache: Path, repo_id: str = REPO_ID, commit: str = COMMIT) -> Path:
    """The cache a download of `repo_id` at `commit` leaves; returns the repo's storage folder."""
    from huggingface_hub._tree_cache import TreeCacheEntry, write_tree_cache
    from huggingface_hub.file_download import repo_folder_name

    storage = cache / repo_folder_name(repo_id=repo_id, repo_type="model")
    snapshot = storage / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (storage / "blobs").mkdir()
    entries = {}
    for path in sorted(checkpoint.iterdir()):
        size, blob_id = path.stat().st_size, git_blob_sha1(path)
        if size >= LFS_FROM:
            sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
            entries[path.name] = TreeCacheEntry(size=size, blob_id=blob_id, lfs_sha256=sha256, lfs_size=size)
            blob = sha256  # LFS blobs are named by their sha256, the others by their git blob id
        else:
            entries[path.name] = TreeCacheEntry(size=size, blob_id=blob_id)
            blob = blob_id
        shutil.copyfile(path, storage / "blobs" / blob)
        (snapshot / path.name).symlink_to(Path("..", "..", "blobs", blob))
    (storage / "refs").mkdir()
    (storage / "refs" / "main").write_text(commit)
    write_tree_cache(str(storage), commit, entries)
    return storage


@pytest.fixture(scope="session")
def hub_cache(tmp_path_factory, qwen_checkpoint) -> Path:
    cache = tmp_path_factory.mktemp("hf") / "hub"
    write_hf_cache(qwen_checkpoint, cache)
    return cache


def offline(cache: Path, tmp_path: Path) -> dict[str, str]:
    return {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache), "HF_HOME": str(tmp_path / "hf_home")}


def blob_of(storage: Path, name: str) -> Path:
    return (storage / "snapshots" / COMMIT / name).resolve()


def test_a_hub_id_installs_from_the_cache_offline(models_home, hub_cache, qwen_checkpoint, tmp_path):
    done = fantasma(models_home, "setup", "--model", REPO_ID, "--use", env=offline(hub_cache, tmp_path))
    assert done.returncode == 0, done.stderr
    name = "tiny-qwen3.5-int4"  # the default name, from the repo's
    assert f"{name}: {REPO_ID} at {COMMIT[:12]}" in done.stdout
    model = by_name(models_json(models_home))[name]
    assert model["active"] and model["layers"] == "hybrid: 6 Gated DeltaNet + 2 attention"
    assert model["source"] == f"{REPO_ID}@{COMMIT[:12]}"
    record = json.loads((models_home / "data" / "models" / name / "fantasma_install.json").read_text())
    assert record["source"]["kind"] == "hub" and record["source"]["repo_id"] == REPO_ID
    assert record["source"]["revision"] == COMMIT
    for file, entry in record["files"].items():  # the hashes of the bytes the export read
        assert entry["sha256"] == hashlib.sha256((qwen_checkpoint / file).read_bytes()).hexdigest()
    assert set(record["files"]) == {p.name for p in qwen_checkpoint.iterdir()}


def test_offline_with_nothing_cached_is_one_line(models_home, tmp_path):
    done = fantasma(models_home, "setup", "--model", REPO_ID, env=offline(tmp_path / "empty", tmp_path))
    one_line_failure(
        done, f"cannot download '{REPO_ID}'", "HF_HUB_OFFLINE is set", "not in the local Hugging Face cache"
    )


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "missing"])
def test_a_damaged_download_is_refused(models_home, hub_cache, tmp_path, damage):
    cache = tmp_path / "hub"
    shutil.copytree(hub_cache, cache, symlinks=True)
    storage = cache / f"models--{REPO_ID.replace('/', '--')}"
    weights = blob_of(storage, QWEN_SHARD)  # the hub layout's one indexed shard
    data = weights.read_bytes()
    if damage == "truncated":  # a download cut short
        weights.write_bytes(data[: len(data) // 3])
        needles = [f"{QWEN_SHARD} is truncated", f"of {len(data):,} bytes"]
    elif damage == "corrupt":  # the right size, one byte wrong
        weights.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
        needles = [f"{QWEN_SHARD} is corrupt", "sha256"]
    else:  # a file the listing names is not in the snapshot
        (storage / "snapshots" / COMMIT / "tokenizer.json").unlink()
        needles = ["is incomplete", "HF_HUB_OFFLINE is set"]
    done = fantasma(models_home, "setup", "--model", REPO_ID, "--use", env=offline(cache, tmp_path))
    one_line_failure(done, *needles)
    assert not (models_home / "data" / "models" / "tiny-qwen3.5-int4").exists()
    assert [m["name"] for m in models_json(models_home)["models"] if m["active"]] == [
        "smollm2-135m-instruct-int4"
    ]


class LocalHub:
    """An HTTP endpoint on 127.0.0.1 that answers the hub API calls huggingface_hub makes for one repo
    (repo info, the tree listing, HEAD and GET of each file, with the hub's headers), serving a
    checkpoint dir plus `extra` files; `claimed` overrides the sizes it announces; `refuse` = (status,
    X-Error-Code) answers every request the way the hub refuses a repo. The library talks to it as to
    the hub; `requests` records what it asked for."""

    def __init__(self, checkpoint: Path, extra=None, claimed=None, refuse=None) -> None:
        self.files = {p.name: p for p in sorted(checkpoint.iterdir())} | (extra or {})
        self.claimed, self.refuse, self.requests = claimed or {}, refuse, []
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_HEAD(self) -> None:
                hub.answer(self)

            do_GET = do_HEAD

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def entry(self, name: str) -> dict:
        path = self.files[name]
        size = self.claimed.get(name, path.stat().st_size)
        entry = {"type": "file", "path": name, "size": size, "oid": git_blob_sha1(path)}
        if name.endswith(".safetensors") or size >= LFS_FROM:
            sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
            entry["lfs"] = {"oid": sha256, "size": size, "pointerSize": 134}
        return entry

    def answer(self, req: http.server.BaseHTTPRequestHandler) -> None:
        path = req.path.split("?")[0]
        self.requests.append(f"{req.command} {path}")
        headers: dict[str, str] = {}
        name = path.rsplit("/", 1)[1]
        if self.refuse:
            status, body = self.refuse[0], json.dumps({"error": "refused"}).encode()
            headers["X-Error-Code"] = self.refuse[1]
        elif path.startswith(f"/api/models/{LLAMA_REPO}/revision/"):
            status, body = 200, json.dumps({"id": LLAMA_REPO, "sha": COMMIT}).encode()
        elif path.startswith(f"/api/models/{LLAMA_REPO}/tree/"):
            status, body = 200, json.dumps([self.entry(n) for n in self.files]).encode()
        elif path.startswith(f"/{LLAMA_REPO}/resolve/") and name in self.files:
            entry, body, status = self.entry(name), self.files[name].read_bytes(), 200
            etag = entry["lfs"]["oid"] if "lfs" in entry else entry["oid"]
            headers.update({"X-Repo-Commit": COMMIT, "ETag": f'"{etag}"'})
            if "lfs" in entry:
                headers.update({"X-Linked-Etag": f'"{etag}"', "X-Linked-Size": str(entry["size"])})
        else:
            status, body = 404, b"{}"
            headers["X-Error-Code"] = "EntryNotFound"
        req.send_response(status)
        for key, value in {**headers, "Content-Length": str(len(body))}.items():
            req.send_header(key, value)
        req.end_headers()
        if req.command == "GET":
            req.wfile.write(body)

    def close(self) -> None:
        self.server.shutdown()


def online(hub: LocalHub, tmp_path: Path) -> dict[str, str]:
    return {
        "HF_ENDPOINT": hub.url,
        "HF_HUB_CACHE": str(tmp_path / "hub"),
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_OFFLINE": "0",
    }


@pytest.fixture
def local_hub(request, llama_checkpoint, tmp_path) -> Iterator[LocalHub]:
    """The tiny Llama as a hub repo, with files no export reads beside it (a PyTorch copy, a README)."""
    extra = {}
    for name in ("pytorch_model.bin", "README.md"):
        extra[name] = tmp_path / name
        extra[name].write_bytes(b"not for the export")
    hub = LocalHub(llama_checkpoint, extra, **getattr(request, "param", {}))
    yield hub
    hub.close()


def test_a_hub_id_downloads_only_what_the_export_reads(models_home, local_hub, llama_checkpoint, tmp_path):
    done = fantasma(models_home, "setup", "--model", LLAMA_REPO, "--use", env=online(local_hub, tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"downloading {LLAMA_REPO} at {COMMIT[:12]}" in done.stdout
    assert "an interrupted download resumes" in done.stdout
    # config.json first (the architecture is checked before the weights), then the rest, never the others
    gets = [r.split("/")[-1] for r in local_hub.requests if r.startswith(f"GET /{LLAMA_REPO}/resolve/")]
    assert gets[0] == "config.json" and set(gets) == {p.name for p in llama_checkpoint.iterdir()}
    model_dir = models_home / "data" / "models" / "tiny-llama-int4"
    record = json.loads((model_dir / "fantasma_install.json").read_text())
    assert record["source"]["revision"] == COMMIT and record["source"]["repo_id"] == LLAMA_REPO
    assert set(record["files"]) == {p.name for p in llama_checkpoint.iterdir()}
    assert by_name(models_json(models_home))["tiny-llama-int4"]["active"]


@pytest.mark.parametrize("local_hub", [{"claimed": {"model.safetensors": 10**13}}], indirect=True)
def test_too_little_disk_is_refused_before_the_weights_are_fetched(models_home, local_hub, tmp_path):
    done = fantasma(models_home, "setup", "--model", LLAMA_REPO, "--use", env=online(local_hub, tmp_path))
    one_line_failure(done, "not enough disk space", "10000.00 GB in", "is free there")
    assert not [r for r in local_hub.requests if r.startswith("GET") and r.endswith("model.safetensors")]
    assert [m["name"] for m in models_json(models_home)["models"] if m["active"]] == [
        "smollm2-135m-instruct-int4"
    ]


@pytest.mark.parametrize(
    ("local_hub", "needles"),
    [
        ({"refuse": (401, "GatedRepo")}, ["is gated", "hf auth login"]),
        ({"refuse": (404, "RepoNotFound")}, ["no such repository on the hub"]),
    ],
    indirect=["local_hub"],
    ids=["gated", "missing"],
)
def test_a_gated_or_missing_repo_is_one_line(models_home, local_hub, needles, tmp_path):
    done = fantasma(models_home, "setup", "--model", LLAMA_REPO, env=online(local_hub, tmp_path), timeout=120)
    one_line_failure(done, LLAMA_REPO, *needles)

"""Installing another model: what `fantasma setup --model SPEC [--name NAME] [--use] [--adapter FILE]
[--force]` does (the command, native_host/commands/setup.py, only prints and sets the exit status).

SPEC is a hub id (`Qwen/Qwen3.5-0.8B`, or `owner/name/file.gguf`), a local Hugging Face checkpoint dir,
or a GGUF file. The model is exported int4 into the per-user models dir and proved before anything
else changes:

    SPEC ─► source: a hub id's config.json first, so an architecture we cannot export costs no download;
            the disk checked; then only the files an export reads (export/hub.py)
         ─► [--adapter: merged into the weights, its sha256 checked against its manifest]
         ─► int4 export into models/.NAME.installing-PID
         ─► loaded with the engine and asked for CHECK_TOKENS tokens: the decode speed on this machine
         ─► fantasma_install.json: source, revision, file hashes, adapter, export options, date, speed
         ─► renamed to models/NAME ─► [--use: the `model` setting names it]

Every expected failure (offline with nothing cached, a gated or missing repo, an unsupported
architecture, a truncated or corrupt download, a corrupt adapter, too little disk, a model that does not
run) is an InstallError of one line (the command prints it, exit status 2). Nothing is renamed into
place before the check passed and the setting changes only after, so the model that was active stays
active, whole.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from native_host import __version__, paths
from native_host.models import registry

CHECK_TOKENS = 24  # generated at install (eos held off) to prove the model runs and time its decoding
CHECK_PROMPT = "Rewrite in plain words: the meeting has been moved to Friday afternoon."
DISK_MARGIN = 256 * 2**20  # left free after the install
# int4 output per source byte: bf16 weights (2 bytes a parameter) -> 4.5 bits, plus an untied head
# copy of the embedding; GGUF files are already 4-8 bits a weight
OUTPUT_PER_SAFETENSORS_BYTE = 0.35
OUTPUT_PER_GGUF_BYTE = 1.3


class InstallError(ValueError):
    """One line for the user (the command exits with status 2)."""


@dataclass(frozen=True)
class Source:
    spec: str  # what the user typed
    kind: str  # "hub" | "dir" | "gguf"
    path: Path  # the checkpoint dir or GGUF file the exporter reads
    stem: str  # what the default name is made from
    files: dict[str, Path] = field(default_factory=dict)  # what the export reads, by relative name
    repo_id: str | None = None
    revision: str | None = None
    snapshot: Any = None  # export.hub.Snapshot for hub sources


@dataclass(frozen=True)
class Adapter:
    lora: Any  # export.lora.LoraAdapter
    file: Path
    checked: bool  # its sha256 matched a manifest (False: no manifest to check against)


# --- the install ---------------------------------------------------------------------------------


def install(spec: str, name: str | None, adapter: Adapter | None, force: bool = False, say=print):
    """Install SPEC as NAME (default: made from SPEC), telling each stage to `say`; returns its
    registry.InstalledModel."""
    from export import hub

    models_root = paths.models_dir()
    local = Path(spec).expanduser()
    if local.exists():
        source = local_source(spec, local)
        architecture = _architecture(source.path)
        target = _target(name or _default_name(source, adapter))
        if _already(target, source, adapter, force, say):
            return registry.describe(target)
        check_disk([(models_root, _output_bytes(source.files, adapter))])
    elif hub.looks_like_hub_id(spec):
        source, architecture, target = _hub_source(spec, name, adapter, force, say)
        if source is None:  # already installed
            return registry.describe(target)
    else:
        raise InstallError(f"{spec}: no such file or directory, and not a hub id (owner/name)")
    say(f"{target.name}: {_describe_source(source)} ({architecture})")
    files = _digests(source)  # a corrupt download is refused here, before the export
    return _export_and_place(source, architecture, target, adapter, files, say)


# --- sources -----------------------------------------------------------------------------------------


def local_source(spec: str, path: Path) -> Source:
    from export.hub import CHECKPOINT_FILES

    path = path.resolve()
    if path.is_dir():
        files = {
            p.name: p
            for p in sorted(path.iterdir())
            if p.is_file() and any(fnmatch(p.name, g) for g in CHECKPOINT_FILES)
        }
        return Source(spec, "dir", path, path.name, files)
    if path.suffix.lower() == ".gguf":
        return Source(spec, "gguf", path, path.stem, {path.name: path})
    raise InstallError(
        f"{spec}: expected a Hugging Face checkpoint dir, a .gguf file or a hub id (owner/name)"
    )


def _hub_source(spec: str, name: str | None, adapter: Adapter | None, force: bool, say):
    """(source, architecture, target); source None when the same model is installed already."""
    from export import hub

    repo_id, gguf_file = hub.split_id(spec)
    stem = Path(gguf_file).stem if gguf_file else repo_id.split("/")[1]
    target = _target(name or registry.default_name(stem, adapter.lora.sha256 if adapter else None))
    try:
        config_dir = hub.fetch_config(spec)
        architecture = _architecture(config_dir) if config_dir is not None else ""
        if _already(target, Source(spec, "hub", Path(), stem, repo_id=repo_id), adapter, force, say):
            return None, architecture, target

        def check_space(to_fetch: int, total: int, cache: Path) -> None:
            out = int(total * (OUTPUT_PER_GGUF_BYTE if gguf_file else OUTPUT_PER_SAFETENSORS_BYTE))
            merged = total if adapter is not None and not gguf_file else 0
            check_disk([(cache, to_fetch), (paths.models_dir(), out + merged)])

        snapshot = hub.download(spec, check_space=check_space, say=say)
    except hub.HubError as exc:
        raise InstallError(str(exc)) from None
    source = Source(
        spec, "hub", snapshot.path, stem, dict(snapshot.files), repo_id, snapshot.revision, snapshot
    )
    if gguf_file:
        architecture = _architecture(source.path)
    else:
        check_disk([(paths.models_dir(), _output_bytes(source.files, adapter))])
    return source, architecture, target


def _architecture(path: Path) -> str:
    from export.registry import GGUF_ARCHITECTURES, HF_MODEL_TYPES, UnsupportedCheckpoint, detect_architecture

    try:
        return detect_architecture(path)
    except UnsupportedCheckpoint as exc:
        raise InstallError(
            f"{exc}. Supported: Hugging Face checkpoints of model type {', '.join(sorted(HF_MODEL_TYPES))} "
            f"(Qwen3.5, Llama family), GGUF files of {', '.join(sorted(GGUF_ARCHITECTURES))}"
        ) from None
    except FileNotFoundError as exc:
        raise InstallError(str(exc)) from None


def _describe_source(source: Source) -> str:
    if source.kind == "hub":
        return f"{source.spec} at {source.revision[:12] if source.revision else '?'}"
    return str(source.path)


def _default_name(source: Source, adapter: Adapter | None) -> str:
    return registry.default_name(source.stem, adapter.lora.sha256 if adapter else None)


def _target(name: str) -> Path:
    try:
        registry.check_new_name(name)
    except registry.RegistryError as exc:
        raise InstallError(str(exc)) from None
    return paths.models_dir() / name


def _already(target: Path, source: Source, adapter: Adapter | None, force: bool, say) -> bool:
    """True when `target` holds this very model (then nothing is done); an error when it holds another,
    unless --force."""
    if not target.exists() or force:
        return False
    record = registry.describe(target).install
    same_source = (record.get("source") or {}).get("spec") == source.spec
    same_adapter = (record.get("adapter") or {}).get("sha256") == (adapter.lora.sha256 if adapter else None)
    if same_source and same_adapter and not registry.describe(target).problem:
        say(f"{target.name}: already installed from {source.spec} in {target} (--force exports it again)")
        return True
    raise InstallError(
        f"a model named '{target.name}' is already installed (from {record.get('source', {}).get('spec', '?')}); "
        "choose another --name, or add --force to replace it"
    )


# --- adapter -----------------------------------------------------------------------------------------


def load_adapter(path: Path) -> Adapter:
    """`--adapter FILE`: the manifest `fantasma train` writes (adapter.json: the file and its sha256), or
    the .safetensors it names (checked against that manifest when it lies beside it)."""
    from export.lora import AdapterError, load_adapter, load_shipped, read_manifest

    try:
        if path.suffix.lower() == ".json":
            manifest = read_manifest(path)
            return Adapter(load_shipped(path), path.parent / manifest["file"], True)
        beside = path.with_suffix(".json")
        if beside.is_file():
            manifest = read_manifest(beside)
            if manifest.get("file") == path.name:
                return Adapter(load_adapter(path, manifest["sha256"]), path, True)
        return Adapter(load_adapter(path), path, False)
    except AdapterError as exc:
        raise InstallError(f"adapter refused: {exc}") from None


# --- disk --------------------------------------------------------------------------------------------


def _output_bytes(files: dict[str, Path], adapter: Adapter | None) -> int:
    weights = sum(p.stat().st_size for n, p in files.items() if n.endswith(".safetensors"))
    gguf = sum(p.stat().st_size for n, p in files.items() if n.endswith(".gguf"))
    other = sum(p.stat().st_size for n, p in files.items() if not n.endswith((".safetensors", ".gguf")))
    merged = weights if adapter is not None else 0  # the merged copy of the checkpoint, while exporting
    return int(weights * OUTPUT_PER_SAFETENSORS_BYTE + gguf * OUTPUT_PER_GGUF_BYTE) + other + merged


def _existing(path: Path) -> Path:
    path = Path(path).resolve()
    while not path.exists():
        path = path.parent
    return path


def check_disk(needs: list[tuple[Path, int]], margin: int = DISK_MARGIN) -> None:
    """Each (dir, bytes) on its file system, those on the same one added up; InstallError when one
    would fill up (with `margin` left free)."""
    by_device: dict[int, tuple[Path, int, list[str]]] = {}
    for directory, size in needs:
        if size <= 0:
            continue
        where = _existing(directory)
        device = where.stat().st_dev
        mount, total, parts = by_device.get(device, (where, 0, []))
        by_device[device] = (
            mount,
            total + size,
            [*parts, f"{registry.human_bytes(size)} in {directory}"],
        )
    for where, total, parts in by_device.values():
        free = shutil.disk_usage(where).free
        if total + margin > free:
            raise InstallError(
                f"not enough disk space: the install needs {registry.human_bytes(total)} "
                f"({', '.join(parts)}) and {registry.human_bytes(free)} is free there; free some space "
                "(or point HF_HOME / FANTASMA_HOME elsewhere)"
            )


# --- export, check, provenance, placing --------------------------------------------------------------


def _export_and_place(
    source: Source, architecture: str, target: Path, adapter: Adapter | None, files: dict[str, Any], say
):
    from export.cli import ExportError, TqdmProgress
    from export.graph import Precision
    from export.lora import AdapterError, export_merged
    from export.registry import ExportOptions

    root = paths.private_dir(paths.models_dir())
    for stale in root.glob(f".{target.name}.installing-*"):  # left by a killed earlier run
        shutil.rmtree(stale, ignore_errors=True)
    staging = root / f".{target.name}.installing-{os.getpid()}"
    precision = Precision("int4")
    label = f"{source.spec}@{source.revision}" if source.revision else str(source.path)
    options = ExportOptions(precision, source_label=label)
    try:
        started = time.perf_counter()
        progress = TqdmProgress()
        try:
            if adapter is None:
                from export.cli import export_model

                export_model(source.path, staging, options, progress)
            else:
                export_merged(source.path, staging, adapter.lora, options)
        except (ExportError, AdapterError) as exc:
            full = paths.storage_failure(exc)  # a full disk, a read-only dir: worded as commands/_io.py does
            raise InstallError(
                f"cannot export {source.spec} into {root}: {full}" if full else f"export failed: {exc}"
            ) from None
        finally:
            progress.close()
        export_s = time.perf_counter() - started
        meta = _read_meta(staging)
        if not meta.get("chat_template"):
            raise InstallError(
                f"{source.spec} has no chat template, so it cannot follow the rewriting instruction (a base "
                "model?); install its instruction-tuned (chat) version"
            )
        size = sum(p.stat().st_size for p in staging.rglob("*") if p.is_file())
        say(f"exported int4 (block {precision.block_size}) in {export_s:.1f} s: {registry.human_bytes(size)}")
        check = prove(staging)
        say(
            f"checked: loads in {check['load_s']:.1f} s, decodes {check['decode_tokens_per_s']:.1f} tokens/s "
            f"on this machine ({check['threads']} threads)"
        )
        record = provenance(source, architecture, adapter, precision, check, export_s, files)
        (staging / registry.INSTALL_FILE).write_text(
            json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        _place(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    with contextlib.suppress(Exception):  # only a cache (native_host/engine/checks_cache.py)
        from native_host.engine import Engine

        Engine.prepare(target)
    model = registry.describe(target)
    params = f", {registry.human_count(model.parameters)} parameters" if model.parameters else ""
    say(
        f"installed {model.name} in {target}: {model.layers}{params}, {registry.human_bytes(model.size_bytes)}"
    )
    return model


def _read_meta(model_dir: Path) -> dict[str, Any]:
    from export.modeldir import ModelDirError, read_meta

    try:
        return read_meta(model_dir)
    except ModelDirError as exc:
        raise InstallError(f"the export left no usable model dir: {exc}") from None


def prove(model_dir: Path) -> dict[str, Any]:
    """Load the model and generate CHECK_TOKENS tokens from a chat prompt (eos held off, no speculation,
    so every token is one decode step); what it measured. InstallError when it does not run."""
    from native_host.engine import Engine, GenerationOptions

    engine: Any = None
    try:
        started = time.perf_counter()
        engine = Engine.load(model_dir)
        load_s = time.perf_counter() - started
        prompt = engine.encode(engine.render_chat([{"role": "user", "content": CHECK_PROMPT}]))
        options = GenerationOptions(
            max_new_tokens=CHECK_TOKENS, min_new_tokens=CHECK_TOKENS, speculative=False, reuse_prefix=False
        )
        result = engine.generate(prompt, options)
        threads = engine.threads
    except Exception as exc:  # any failure here means the model dir is not usable
        raise InstallError(f"the exported model does not run: {type(exc).__name__}: {exc}") from None
    finally:
        engine = None  # the session goes before the dir is renamed into place
        gc.collect()
    if len(result.token_ids) < CHECK_TOKENS:
        raise InstallError(
            f"the exported model stopped after {len(result.token_ids)} tokens of {CHECK_TOKENS}"
        )
    timings = result.timings
    return {
        "tokens": len(result.token_ids),
        "prompt_tokens": result.prompt_tokens,
        "load_s": round(load_s, 3),
        "prefill_s": timings.get("prefill_s"),
        "decode_tokens_per_s": timings.get("decode_tokens_per_s"),
        "threads": threads,
    }


def _digests(source: Source) -> dict[str, dict[str, Any]]:
    """{file: {sha256, bytes}} of what the export reads; a hub file whose hash differs from the hub's
    listing is refused."""
    from export import hub
    from export.modeldir import file_sha256

    if source.snapshot is not None:
        try:
            hashes = hub.file_digests(source.snapshot)
        except hub.HubError as exc:
            raise InstallError(str(exc)) from None
    else:
        hashes = {name: file_sha256(path) for name, path in source.files.items()}
    return {
        name: {"sha256": hashes[name], "bytes": source.files[name].stat().st_size} for name in sorted(hashes)
    }


def provenance(
    source: Source, architecture: str, adapter: Adapter | None, precision, check, export_s: float, files
) -> dict[str, Any]:
    """fantasma_install.json (docs/models.md)."""
    return {
        "format": 1,
        "installed_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "fantasma_version": __version__,
        "architecture": architecture,
        "source": {
            "kind": source.kind,
            "spec": source.spec,
            "repo_id": source.repo_id,
            "revision": source.revision,
            "path": str(source.path),
        },
        "files": files,
        "adapter": None
        if adapter is None
        else {
            "file": str(adapter.file),
            "sha256": adapter.lora.sha256,
            "checked_against_manifest": adapter.checked,
        },
        "export": {"precision": precision.to_json(), "seconds": round(export_s, 1)},
        "check": check,
    }


def _place(staging: Path, target: Path) -> None:
    """staging -> target; a model already there (--force) is swapped out first, then deleted."""
    retired = target.with_name(f".{target.name}.retired-{os.getpid()}")
    if target.exists():
        target.rename(retired)
    staging.rename(target)
    shutil.rmtree(retired, ignore_errors=True)


def support_lines() -> list[str]:
    """The meaning embedder every rewrite needs, set up when missing (seconds); a note when the embedded
    default, which every fallback uses, is not set up."""
    from native_host.models.embedded import EMBEDDER_STEP, run_step

    lines = []
    if not EMBEDDER_STEP.ready(EMBEDDER_STEP.target()):
        try:
            lines.append(run_step(EMBEDDER_STEP, False))
        except Exception as exc:
            lines.append(f"note: the meaning embedder could not be set up ({exc}); run: fantasma setup")
    if registry.describe(paths.default_model_dir(), embedded=True).problem:
        lines.append("note: the embedded default model (the fallback) is not set up yet; run: fantasma setup")
    return lines

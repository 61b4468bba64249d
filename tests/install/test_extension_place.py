"""`fantasma setup` in a wheel puts the extension pair where the browsers load it from (`extension.place`):
the unpacked Chromium folder and the Firefox .xpi, replaced together or not at all. A real fault on a tmpfs
at each step (the disk full while unpacking, full while copying the .xpi, the old copy immutable so it
cannot be set aside), with an earlier pair there or none: place() raises, and every file and directory is
as it was. The bundled packages are made here (assets.extension_source points at them)."""

from __future__ import annotations

import contextlib
import json
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from native_host import assets, paths
from native_host.install import extension
from tests.faults import immutable, leave_free, tmpfs, tree

KIB = 1024
CHROMIUM_BYTES = 256 * KIB  # the unpacked folder's one large file
XPI_BYTES = 1024 * KIB


def bundle(where: Path, version: str) -> assets.ExtensionSource:
    """A wheel's two packages of `version`: a Chromium zip (stored, so it unpacks to its own size) and an
    .xpi, both of random bytes so nothing compresses them."""
    where.mkdir(parents=True)
    chromium = where / assets.CHROMIUM_PACKAGE
    with zipfile.ZipFile(chromium, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("manifest.json", json.dumps({"manifest_version": 3, "version": version}))
        archive.writestr("background.js", os.urandom(CHROMIUM_BYTES))
    xpi = where / assets.FIREFOX_PACKAGE
    xpi.write_bytes(os.urandom(XPI_BYTES))
    return assets.ExtensionSource(chromium, xpi, None)


@pytest.fixture
def disk(tmp_path, monkeypatch) -> Iterator[Path]:
    """An 8 MiB tmpfs holding FANTASMA_HOME (its `home/`)."""
    with tmpfs(tmp_path / "fs", "8m") as root:
        monkeypatch.setenv("FANTASMA_HOME", str(root / "home"))
        yield root


def place(monkeypatch, source: assets.ExtensionSource) -> extension.Packages:
    monkeypatch.setattr(assets, "extension_source", lambda: source)
    return extension.place()


def test_place_replaces_the_pair_and_leaves_nothing_else(disk, tmp_path, monkeypatch):
    place(monkeypatch, bundle(tmp_path / "v1", "1"))
    new = bundle(tmp_path / "v2", "2")
    placed = place(monkeypatch, new)
    target = paths.data_dir() / "extension"
    assert placed == extension.Packages(target / "chromium", target / assets.FIREFOX_PACKAGE)
    assert placed.firefox_xpi is not None and placed.firefox_xpi.read_bytes() == new.firefox_xpi.read_bytes()
    assert json.loads((target / "chromium" / "manifest.json").read_text())["version"] == "2"
    assert sorted(tree(disk)) == [
        "home",
        "home/data",
        "home/data/extension",
        "home/data/extension/chromium",
        "home/data/extension/chromium/background.js",
        "home/data/extension/chromium/manifest.json",
        "home/data/extension/fantasma-firefox.xpi",
    ]  # no staging or retired copy left


# Each step of place() that can fail, with the fault that makes it fail for real (held for a `with`).
FAULTS = {
    "unpacking chromium": lambda disk: contextlib.nullcontext(leave_free(disk, 16 * KIB)),
    # room for the folder, not the .xpi
    "copying the xpi": lambda disk: contextlib.nullcontext(leave_free(disk, 512 * KIB)),
    "setting the old copy aside": lambda disk: immutable(paths.data_dir() / "extension"),
}
CASES = [
    (fault, old) for fault in FAULTS for old in (True, False) if old or fault != "setting the old copy aside"
]


@pytest.mark.parametrize(("fault", "old"), CASES, ids=[f"{f}-{'old' if o else 'none'}" for f, o in CASES])
def test_a_fault_leaves_the_old_pair_or_none(disk, tmp_path, monkeypatch, fault, old):
    if old:
        place(monkeypatch, bundle(tmp_path / "v1", "1"))
    else:
        paths.private_dir(paths.data_dir())
    new = bundle(tmp_path / "v2", "2")
    with FAULTS[fault](disk):
        before = tree(disk)
        with pytest.raises(OSError):
            place(monkeypatch, new)
        assert tree(disk) == before

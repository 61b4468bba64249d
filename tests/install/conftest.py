"""One build for every test here. scripts/build_dist.py (what `make dist` runs) builds every release file
into one dir, as a package index made of `make dist`'s files; `pip install fantasma` installs from it, not
editable, into a fresh venv the way pipx does it (a venv without pip, pip pointed at it from outside),
with `--no-index`: fantasma and its model wheels come from that dir, its other dependencies from a
wheelhouse `pip download` fills once (kept in pytest's cache). The install, `fantasma setup --register`
(in a temporary HOME that has a Chromium profile dir, as a person's would) and the rewrite run without a
network (`unshare -rn`: a network namespace with no interface up) where the kernel allows it.
Commands of the installed tool run outside the checkout, without PYTHONPATH, so nothing of the
checkout can be imported by them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIP = (sys.executable, "-m", "pip", "--disable-pip-version-check")  # the checkout's pip, as pipx uses its own


def _offline_prefix() -> list[str]:
    """`unshare -rn` where this kernel lets an unprivileged process make a network namespace, else nothing
    (the commands still get no index, and setup needs none)."""
    if not shutil.which("unshare"):
        return []
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True, timeout=30)
    return ["unshare", "-rn"] if probe.returncode == 0 else []


OFFLINE = _offline_prefix()


@dataclass(frozen=True)
class Installed:
    dist: Path  # every file `make dist` writes
    venv: Path
    home: Path  # HOME
    fantasma_home: Path  # FANTASMA_HOME
    setup: subprocess.CompletedProcess[str]  # `fantasma setup --register`
    build_s: float
    install_s: float

    @property
    def wheel(self) -> Path:
        return next(self.dist.glob("fantasma-*.whl"))

    def site_packages(self) -> Path:
        return next(self.venv.glob("lib/python3*/site-packages"))

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)

    def env(self) -> dict[str, str]:
        return user_env(self.home, self.fantasma_home)

    def run(
        self, *command: str, timeout: float = 300, stdin: str | None = None, offline: bool = False
    ) -> subprocess.CompletedProcess[str]:
        prefix = OFFLINE if offline else []
        return run_as_user(self.home, self.fantasma_home, [*prefix, *command], timeout, stdin)

    def launcher(self) -> str:
        """The launcher setup registered for Chromium: what the browser starts."""
        manifest = self.home / ".config/chromium/NativeMessagingHosts/org.fantasma.host.json"
        return str(json.loads(manifest.read_text())["path"])


def user_env(home: Path, fantasma_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "HOME": str(home), "FANTASMA_HOME": str(fantasma_home)}


def run_as_user(
    home: Path, fantasma_home: Path, command: list[str], timeout: float, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """A command of the installed tool, started in HOME (outside the checkout)."""
    return subprocess.run(
        command,
        env=user_env(home, fantasma_home),
        cwd=home,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def unzip(archive: Path, into: Path) -> Path:
    with zipfile.ZipFile(archive) as z:
        z.extractall(into)
    return into


def requirements(wheel: Path) -> list[str]:
    """What installing the wheel pulls in, less fantasma's own model wheels (which are in dist/)."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(
            archive.read(n).decode() for n in archive.namelist() if n.endswith(".dist-info/METADATA")
        )
    required = [
        line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Requires-Dist: ")
    ]
    return [r for r in required if "extra ==" not in r and not r.startswith("fantasma-model-")]


@pytest.fixture(scope="session")
def installed(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Installed]:
    """About 1 GB: the release files, the models and the extension copies (a few large files) are removed
    when the session ends; the venv (thousands of small files, slow to delete on a busy disk) is left to
    pytest's retention of its last three temp dirs."""
    root = tmp_path_factory.mktemp("install")
    dist, venv, home, fantasma_home = root / "dist", root / "venv", root / "home", root / "fantasma"
    started = time.perf_counter()
    build = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_dist.py"), "--out", str(dist), "--no-sdist"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    built = time.perf_counter()
    wheelhouse = Path(request.config.cache.mkdir("dist-wheelhouse"))  # the dependencies, downloaded once
    download = subprocess.run(
        [*PIP, "download", "-q", "-d", str(wheelhouse), *requirements(next(dist.glob("fantasma-*.whl")))],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert download.returncode == 0, download.stderr[-3000:]
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    pip = subprocess.run(
        [
            *OFFLINE,
            *PIP,
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            "--no-index",
            "--find-links",
            str(dist),
            "--find-links",
            str(wheelhouse),
            "fantasma",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=root,
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    install_s = time.perf_counter() - built
    (home / ".config" / "chromium").mkdir(parents=True)  # a Chromium that was started once
    setup = run_as_user(
        home, fantasma_home, [*OFFLINE, str(venv / "bin" / "fantasma"), "setup", "--register"], 900
    )
    yield Installed(dist, venv, home, fantasma_home, setup, built - started, install_s)
    for large in (dist, fantasma_home):
        shutil.rmtree(large, ignore_errors=True)

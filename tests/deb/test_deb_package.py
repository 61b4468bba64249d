"""The Debian package end to end (`make test-deb`): built by scripts/build_deb.py, then installed in a clean
Debian 12 debootstrap root with the network off, used, removed and purged by scripts/check_deb.py.

Slow (3 minutes in all on an idle 2-core machine, about 12 on a shared one; the debootstrap root adds 2
minutes, once), and it needs root, debootstrap, lintian and dpkg-deb on Debian 12, so it runs only when
FANTASMA_TEST_DEB=1 (`make test-deb`, which CI runs after `make test`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEEDS = ("debootstrap", "dpkg-deb", "unshare", "chroot")
PACKAGED_MODELS = "/usr/lib/fantasma/share/fantasma/models/"  # a link to /usr/share/fantasma/models

# Deselected (not skipped) unless FANTASMA_TEST_DEB=1: tests/conftest.py.
pytestmark = [pytest.mark.deb, pytest.mark.timeout(3600)]


@pytest.fixture(scope="module")
def deb(tmp_path_factory) -> Path:
    if os.geteuid() != 0 or any(shutil.which(tool) is None for tool in NEEDS):
        pytest.fail(f"make test-deb needs root and {', '.join(NEEDS)} (apt-get install debootstrap)")
    out = tmp_path_factory.mktemp("deb")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "scripts/build_deb.py", "--out", str(out)], cwd=ROOT, env=env, check=True)
    return next(out.glob("fantasma_*_amd64.deb"))


@pytest.fixture(scope="module")
def checked(deb) -> dict:
    done = subprocess.run(
        [sys.executable, "scripts/check_deb.py", "--deb", str(deb)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout)


def test_lintian_finds_no_error_or_warning_left(deb):
    """Each override in scripts/deb/lintian-overrides is explained in docs/install.md."""
    if shutil.which("lintian") is None:
        pytest.fail("make test-deb needs lintian (apt-get install lintian)")
    done = subprocess.run(
        ["lintian", "--fail-on", "error,warning", str(deb)], capture_output=True, text=True, timeout=1800
    )
    assert done.returncode == 0, done.stdout[-4000:]


def test_rewrites_offline_with_the_packaged_model(checked):
    cli = checked["rewrite_cli"]
    assert cli["path"] == "llm", cli["reason"]  # the model answered, not the neutralizer fallback
    assert cli["model"]["embedded"] is True
    assert cli["text"].strip()


def test_a_users_setup_finds_the_packaged_models_and_exports_nothing(checked):
    lines = [line for line in checked["setup"].splitlines() if line.startswith(("chat model", "meaning"))]
    assert len(lines) == 2 and all(f"already set up in {PACKAGED_MODELS}" in line for line in lines), lines


def test_the_host_answers_as_a_browser_starts_it(checked):
    host = checked["host"]
    assert host["hello"]["type"] == "result", host["hello"]
    model = host["hello"]["result"]["model"]
    assert model["state"] == "available", model
    assert model["dir"].startswith(PACKAGED_MODELS), model  # paths.system_models_dir, the package's
    assert model["embedder"]["dir"].startswith(PACKAGED_MODELS), model
    assert host["rewrite"]["type"] == "result", host["rewrite"]
    assert host["exit"] == 0


def test_registered_for_chromium_and_firefox_esr(checked):
    assert checked["manifests"]["chromium"]["path"] == "/usr/lib/fantasma/bin/fantasma-host"
    assert checked["manifests"]["firefox-esr"]["path"] == "/usr/lib/fantasma/bin/fantasma-host"


def test_remove_and_purge_leave_nothing(checked):
    assert checked["status_after_remove"] == "unknown (purged)"  # dpkg keeps no record either
    assert checked["left_after_remove"] == []
    assert checked["left_after_purge"] == []
    assert checked["gone_after_purge"] == []

"""Builds the real-editor pages once per session: `npm ci` when node_modules is missing (make test-install
normally did it), then the esbuild bundle step, which is offline."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ..harness import host_request, npm_ci
from .cases import EMAIL, MARKERS, ORIGINAL, URL

EDITORS_DIR = Path(__file__).parent
BUNDLES = EDITORS_DIR / "bundles"


def _stale() -> bool:
    sources = [*(EDITORS_DIR / "src").iterdir(), EDITORS_DIR / "build.mjs", EDITORS_DIR / "package-lock.json"]
    bundles = list(BUNDLES.glob("*.js")) if BUNDLES.exists() else []
    if len(bundles) < len([s for s in sources if s.suffix in (".js", ".jsx") and s.name != "common.js"]):
        return True
    return max(s.stat().st_mtime for s in sources) > min(b.stat().st_mtime for b in bundles)


@pytest.fixture(scope="session", autouse=True)
def editor_bundles() -> Path:
    npm_ci(EDITORS_DIR, "esbuild", timeout=600)
    if _stale():
        node = shutil.which("node")
        assert node, "node is needed to bundle the editor pages"
        subprocess.run([node, "build.mjs"], cwd=EDITORS_DIR, check=True, timeout=300)
    return BUNDLES


@pytest.fixture(scope="session")
def light(host_home: Path) -> str:
    """The host's own answer for ORIGINAL at strength light: the oracle (overrides tests/e2e's SAMPLE one)."""
    reply = host_request(host_home, "rewrite", {"text": ORIGINAL, "options": {"strength": "light"}})
    assert reply["type"] == "result", reply
    text = reply["result"]["text"]
    assert URL in text and EMAIL in text, text
    assert not any(marker in text.replace(URL, "") for marker in MARKERS), text
    return text

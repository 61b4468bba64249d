"""Mozilla's add-on linter over the extension: no errors, and no warnings except the one the shared
Chromium/Firefox manifest causes by design (Firefox ignores `background.service_worker` and uses
`background.scripts`; see docs/extension.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEBEXT_DIR = Path(__file__).parent / "webext"
EXPECTED_WARNINGS = {"BACKGROUND_SERVICE_WORKER_IGNORED"}


def web_ext() -> Path:
    binary = WEBEXT_DIR / "node_modules" / ".bin" / "web-ext"
    if not binary.exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed to install web-ext (tests/e2e/webext/package.json)"
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=WEBEXT_DIR,
            check=True,
            timeout=300,
        )
    return binary


def test_web_ext_lint_is_clean() -> None:
    proc = subprocess.run(
        [str(web_ext()), "lint", "--source-dir", str(ROOT / "extension"), "--output", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(proc.stdout)
    assert report["errors"] == [], report["errors"]
    assert report["notices"] == [], report["notices"]
    unexpected = [w for w in report["warnings"] if w["code"] not in EXPECTED_WARNINGS]
    assert unexpected == [], unexpected

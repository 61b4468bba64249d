"""Mozilla's add-on linter over the extension: no errors, and no warnings except the one the shared
Chromium/Firefox manifest causes by design (Firefox ignores `background.service_worker` and uses
`background.scripts`; see docs/extension.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .harness import ROOT, npm_ci

WEBEXT_DIR = Path(__file__).parent / "webext"
EXPECTED_WARNINGS = {"BACKGROUND_SERVICE_WORKER_IGNORED"}


def web_ext() -> Path:
    npm_ci(WEBEXT_DIR, ".bin/web-ext", timeout=300)
    return WEBEXT_DIR / "node_modules" / ".bin" / "web-ext"


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

"""The extension's protocol helpers and native-port logic (reassembly, timeouts, bounded reconnects),
run by Node's own test runner over the extension's real ES modules."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

JS_TESTS = Path(__file__).parent / "js"


def test_extension_js_units_pass() -> None:
    node = shutil.which("node")
    assert node, "node (>= 20) is needed for the extension's JS unit tests"
    proc = subprocess.run([node, "--test", str(JS_TESTS)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout
    passed = re.search(r"^# pass (\d+)$", proc.stdout, re.M)
    assert passed and int(passed.group(1)) >= 6, proc.stdout[-2000:]

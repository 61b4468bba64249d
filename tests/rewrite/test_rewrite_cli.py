"""`fantasma rewrite` as a user runs it: a real subprocess, stdin/stdout, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

TEXT = "tbh i think ur right lol, the meeting on Friday is gonna be sooo long :)\n"


def _run(args, stdin: bytes, env_home) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, "FANTASMA_HOME": str(env_home)}
    return subprocess.run(
        [sys.executable, "-m", "native_host.cli", "rewrite", *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
    )


def test_light_json_from_stdin(isolated_home):
    proc = _run(["-", "--strength", "light", "--json"], TEXT.encode(), isolated_home)
    assert proc.returncode == 0, proc.stderr.decode()
    result = json.loads(proc.stdout)
    assert result["path"] == "neutralizer" and result["strength"] == "light"
    assert "tbh" not in result["text"] and "Friday" in result["text"]
    assert result["markers_after"]["count"] < result["markers_before"]["count"]


def test_missing_model_falls_back_and_says_so(isolated_home):
    proc = _run(["--strength", "strong"], TEXT.encode(), isolated_home)
    assert proc.returncode == 0
    assert "Friday" in proc.stdout.decode()
    assert "not installed" in proc.stderr.decode() and "fantasma setup" in proc.stderr.decode()


def test_bad_input_is_a_clear_error(isolated_home, tmp_path):
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x00\x01\x02")
    for args, stdin, message in [
        ([str(binary)], b"", b"binary"),
        (["-"], b"   \n", b"empty"),
    ]:
        proc = _run(args, stdin, isolated_home)
        assert proc.returncode == 2 and message in proc.stderr and b"Traceback" not in proc.stderr

"""The CLI through a real subprocess: output, JSON, and clear errors (exit 2, no traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "forum_post.txt"


def fantasma(*args: str, stdin: bytes | None = None, home: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "FANTASMA_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "native_host.cli", *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
    )


@pytest.mark.parametrize("command", ["analyze", "neutralize"])
@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"", "is empty"),
        (b"   \n\t\n", "is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        (b"caf\xe9 latin-1", "not valid UTF-8"),
    ],
)
def test_bad_input_is_a_clear_error(command: str, payload: bytes, message: str, tmp_path: Path) -> None:
    result = fantasma(command, "-", stdin=payload, home=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode().startswith(f"fantasma {command}: ") and message in result.stderr.decode()
    assert b"Traceback" not in result.stderr and result.stdout == b""


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    result = fantasma("analyze", str(tmp_path / "nope.txt"), home=tmp_path)
    assert result.returncode == 2 and b"no such file" in result.stderr and b"Traceback" not in result.stderr


def test_analyze_json_from_stdin(tmp_path: Path) -> None:
    result = fantasma("analyze", "--json", stdin=EXAMPLE.read_bytes(), home=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["version"] == 1 and 0 <= report["score"] <= 100
    assert {f["family"] for f in report["findings"]} >= {"spelling", "slang", "punctuation", "emoji"}


def test_analyze_readable_output_groups_by_family_without_ansi_when_piped(tmp_path: Path) -> None:
    result = fantasma("analyze", str(EXAMPLE), home=tmp_path)
    out = result.stdout.decode()
    assert result.returncode == 0
    assert "Identifiability:" in out and "SPELLING" in out and "[organisation]" in out
    assert "\033[" not in out


def test_neutralize_plain_and_json(tmp_path: Path) -> None:
    plain = fantasma("neutralize", str(EXAMPLE), home=tmp_path)
    assert plain.returncode == 0
    assert "organization" in plain.stdout.decode() and "tips@example.org" in plain.stdout.decode()
    as_json = json.loads(fantasma("neutralize", "--json", str(EXAMPLE), home=tmp_path).stdout)
    assert as_json["text"].rstrip("\n") == plain.stdout.decode().rstrip("\n")
    assert as_json["edits"][0].keys() == {"start", "end", "original", "replacement", "family", "marker"}


def test_demo_prints_analysis_then_neutralized_text(tmp_path: Path) -> None:
    result = fantasma("demo", str(EXAMPLE), home=tmp_path)
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr
    assert out.index("What identifies the writer") < out.index("Neutralized (deterministic)")
    assert "Hi all!" in out.split("Neutralized (deterministic)")[1]


def test_profile_add_show_clear(tmp_path: Path) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_text("Honestly, at the end of the day it works!! Honestly!! " * 20, encoding="utf-8")
    added = fantasma("profile", "add", str(mine), str(EXAMPLE), home=tmp_path)
    assert added.returncode == 0, added.stderr
    assert (tmp_path / "data" / "profile.msgpack").exists()
    shown = fantasma("profile", "show", home=tmp_path).stdout.decode()
    assert "Profile: 2 texts" in shown and "repeated exclamation marks" in shown
    analyzed = json.loads(fantasma("analyze", "--json", str(mine), home=tmp_path).stdout)
    assert analyzed["profile_used"] and analyzed["findings"][0]["personal"]
    assert fantasma("profile", "clear", home=tmp_path).stdout.decode().strip() == "profile deleted"
    assert not (tmp_path / "data" / "profile.msgpack").exists()


def test_profile_add_rejects_unreadable_files_and_keeps_old_profile(tmp_path: Path) -> None:
    binary = tmp_path / "x.bin"
    binary.write_bytes(b"\x00\x01\x02")
    result = fantasma("profile", "add", str(EXAMPLE), str(binary), home=tmp_path)
    assert result.returncode == 2 and b"binary" in result.stderr
    assert not (tmp_path / "data" / "profile.msgpack").exists()


def test_corrupt_profile_is_reported_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "data" / "profile.msgpack"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xc1garbage")
    shown = fantasma("profile", "show", home=tmp_path)
    assert shown.returncode == 2 and b"corrupt" in shown.stderr and b"Traceback" not in shown.stderr
    analyzed = fantasma("analyze", str(EXAMPLE), home=tmp_path)
    assert analyzed.returncode == 0 and b"ignoring the personal profile" in analyzed.stderr

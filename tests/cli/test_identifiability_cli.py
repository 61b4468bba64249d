"""`fantasma analyze` and `fantasma rewrite` show identifiability (current; before → after) and which
attacker family still links the text, as a user runs them: real subprocesses, a real FANTASMA_HOME."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.rewrite.summary import strands_line

FAMILIES = {"char3", "delta", "function_words"}


def fantasma(*args: str, home: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FANTASMA_HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "-m", "native_host.cli", *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
    )
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


@pytest.fixture(scope="module")
def hamilton(tmp_path_factory) -> tuple[list[Path], str]:
    """Two files of Hamilton's training chunks (the user's own writing) and one held-out chunk."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 2, 2, 4)
    train = [c.text for c in split.train if c.author == "Hamilton"]
    folder = tmp_path_factory.mktemp("hamilton")
    files = []
    for k in range(0, len(train), 2):
        path = folder / f"sample{k}.txt"
        path.write_text("\n\n".join(train[k : k + 2]), encoding="utf-8")
        files.append(path)
    return files, next(c.text for c in split.test if c.author == "Hamilton")


def test_analyze_prints_identifiability_and_linking_families(isolated_home, hamilton):
    files, text = hamilton
    shown = fantasma("analyze", "-", home=isolated_home, stdin=text.encode())
    assert shown.returncode == 0, shown.stderr
    line = re.search(
        r"^Identifiability: (\d\.\d\d) \(compared with writers in general\): .*$", shown.stdout, re.MULTILINE
    )
    assert line, shown.stdout
    assert "  note: Fantasma has no samples of your writing yet" in shown.stdout
    plain = json.loads(fantasma("analyze", "-", "--json", home=isolated_home, stdin=text.encode()).stdout)
    assert f"\n  {strands_line(plain['identifiability'])}\n" in shown.stdout  # in words, never family codes
    assert not FAMILIES & set(re.findall(r"\w+", shown.stdout.split("Identifiability: ", 1)[1]))

    assert fantasma("profile", "add", *map(str, files), home=isolated_home).returncode == 0
    as_json = json.loads(fantasma("analyze", "-", "--json", home=isolated_home, stdin=text.encode()).stdout)
    report = as_json["identifiability"]
    assert report["mode"] == "profile" and set(report["families"]) == FAMILIES
    shown = fantasma("analyze", "-", home=isolated_home, stdin=text.encode()).stdout
    assert f"Identifiability: {report['score']:.2f} (compared with your writing samples): " in shown
    assert f"\n  {strands_line(report)}\n" in shown

    plain = json.loads(
        fantasma("analyze", "-", "--json", "--no-profile", home=isolated_home, stdin=text.encode()).stdout
    )
    assert plain["identifiability"]["mode"] == "typicality"


def test_rewrite_prints_identifiability_before_and_after(isolated_home, hamilton):
    files, text = hamilton
    assert fantasma("profile", "add", *map(str, files), home=isolated_home).returncode == 0
    result = json.loads(
        fantasma(
            "rewrite", "-", "--strength", "light", "--json", home=isolated_home, stdin=text.encode()
        ).stdout
    )
    before, after = result["identifiability_before"], result["identifiability_after"]
    assert before["mode"] == after["mode"] == "profile"
    assert 0 <= before["score"] <= 1 and 0 <= after["score"] <= 1

    shown = fantasma("rewrite", "-", "--strength", "light", home=isolated_home, stdin=text.encode())
    assert shown.returncode == 0 and shown.stdout.strip() == result["text"].strip()
    lines = shown.stderr.splitlines()
    assert lines[0] == result["summary"]["headline"]
    assert lines[1].startswith(f"  identifiability {before['score']:.2f} → {after['score']:.2f} · ")
    assert f"  {strands_line(after)}" in lines  # which parts still point to you, in words
    assert not FAMILIES & set(re.findall(r"\w+", shown.stderr))


def test_profile_show_says_how_many_samples_train_the_model(isolated_home, hamilton):
    files, _ = hamilton
    assert fantasma("profile", "add", str(files[0]), home=isolated_home).returncode == 0
    shown = fantasma("profile", "show", home=isolated_home).stdout
    as_json = json.loads(fantasma("profile", "show", "--json", home=isolated_home).stdout)
    assert as_json["samples"] == 2  # two ~250-word chunks in the first file
    assert "Identifiability model: trained on 2 pieces of ~250 words\n" in shown
    (isolated_home / "data" / "identify_samples.msgpack").write_bytes(b"\xc1 corrupt")
    shown = fantasma("profile", "show", home=isolated_home).stdout
    assert "Identifiability samples: unreadable; run `fantasma profile clear`" in shown
    assert fantasma("profile", "clear", home=isolated_home).returncode == 0
    assert not (isolated_home / "data" / "identify_samples.msgpack").exists()

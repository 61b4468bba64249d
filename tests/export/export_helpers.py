"""Helpers the exporter tests share (a plain module: conftest names collide across test dirs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np


def teacher_forced_agreement(reference, candidate, prompt: list[int], steps: int) -> tuple[int, float]:
    """Two OrtDecoders fed `prompt`, then `steps` greedy tokens of `reference` (teacher forcing, so one
    early difference does not derail the rest): (on how many steps `candidate` ranks the same token
    first, the lowest cosine similarity of the two logit vectors over the steps)."""
    a, b = reference.step(prompt)[-1], candidate.step(prompt)[-1]
    agree, lowest = 0, 1.0
    for _ in range(steps):
        token = int(a.argmax())
        agree += token == int(b.argmax())
        lowest = min(lowest, float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))))
        a, b = reference.step([token])[-1], candidate.step([token])[-1]
    return agree, lowest


def export_error_line(checkpoint: Path, out: Path) -> str:
    """fantasma-export run as the user runs it (a subprocess) where it must fail: its one stderr line."""
    proc = subprocess.run(
        [sys.executable, "-m", "export.cli", str(checkpoint), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]

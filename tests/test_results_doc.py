"""docs/results.md holds the current figures, each with its command, commit and machine; the story of a
run (the machine's load as it went, a trial that collapsed, what a session could not build) belongs in
research/log/ (docs/architecture.md, STYLE.md §11). The machine's state may be named ("shared with other
jobs", "nothing else running"); its load figures may not."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results.md"
# "load average 2.0 → 2.8", "(load 7–20)", "at load 8–24", "load 13 → 11"; not a model's load time
# ("load 1.02 vs 1.01 s", "model load 0.52 s")
LOAD_NARRATION = re.compile(
    r"load averages?|\(load \d|at load \d|\bload \d+(?:\.\d+)?\s*(?:–|-|→|to)\s*\d", re.IGNORECASE
)


def narrated_load(text: str) -> list[str]:
    return [
        f"{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        if LOAD_NARRATION.search(line)
    ]


def test_the_pattern_tells_the_machines_load_from_a_models_load_time():
    narrated = [
        "shared (load average 13 → 11), random",
        "2-core VM (Intel Xeon), shared (load 7–20).",
        "this machine ran at load 8–24.",
        "UTC, load 13 → 11, `--repeats 1`",
    ]
    kept = ["load 1.02 vs 1.01 s, peak RSS", "1.2 s, of which model load 0.52 s", "(load included)"]
    assert [bool(narrated_load(line)) for line in narrated + kept] == [True] * 4 + [False] * 3


def test_the_results_narrate_no_load():
    found = narrated_load(RESULTS.read_text(encoding="utf-8"))
    assert not found, "docs/results.md narrates the machine's load (move it to research/log/):\n" + "\n".join(
        found
    )

"""The repository's own files, as git sees them: what the structure tests (imports, cited paths) read."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def project_files(folder: str, pattern: str = "") -> list[Path]:
    """The folder's files (`pattern`: e.g. "*.py") that git tracks or would add (new and not ignored): what a
    benchmark unpacks or builds under bench/out/ is not the project's code. Outside a git checkout (an
    unpacked sdist): every file."""
    spec = f"{folder}/{pattern}" if pattern else folder
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", spec],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if listed.returncode != 0:
        return sorted((ROOT / folder).rglob(pattern or "*"))
    return sorted(ROOT / line for line in listed.stdout.splitlines() if (ROOT / line).is_file())

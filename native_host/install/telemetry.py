"""onnxruntime's telemetry, as `fantasma-host doctor` reports it.

native_host/__init__.py sets ORT_DISABLE_TELEMETRY=1 before onnxruntime can load. This module checks
that it works (a fresh interpreter imports onnxruntime the way the host does, with its cache pointed at
an empty temp dir, and must leave no event queue there) and finds a queue left by an earlier run or by
another onnxruntime program: `<cache>/Microsoft/DeveloperTools/.onnxruntime/` (a device id and an
event database holding model file names and the interpreter path, i.e. the user name).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

QUEUE_PARTS = ("Microsoft", "DeveloperTools", ".onnxruntime")
# onnxruntime (1.32, read from its library's strings and tried one by one) keeps telemetry off on its own
# when any of these is set, so on a CI machine a probe or test that leaves them in place proves nothing.
# Users' browsers do not set them; the probe and the no-network test remove them to see what a user gets.
CI_MARKERS = (
    "CI",
    "TF_BUILD",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "CIRCLECI",
    "TRAVIS",
    "JENKINS_URL",
    "CODEBUILD_BUILD_ID",
    "BUILDKITE",
    "TEAMCITY_VERSION",
    "APPVEYOR",
    "BITBUCKET_BUILD_NUMBER",
    "SYSTEM_TEAMFOUNDATIONCOLLECTIONURI",
)
PROBE_TIMEOUT_S = 60.0
# What the host does, in a fresh interpreter: import the package first, then onnxruntime.
PROBE_CODE = (
    "import native_host, os, onnxruntime\n"
    "print(os.environ.get('ORT_DISABLE_TELEMETRY', ''), onnxruntime.__version__)\n"
)


def queue_dirs(home: Path, environ: Mapping[str, str] | None = None) -> list[Path]:
    """Where onnxruntime (POSIX builds) keeps its queue: $XDG_CACHE_HOME, else HOME/.cache."""
    environ = os.environ if environ is None else environ
    roots = [home / ".cache"]
    xdg = environ.get("XDG_CACHE_HOME")
    if xdg and Path(xdg).is_absolute():
        roots.insert(0, Path(xdg))
    out: list[Path] = []
    for root in roots:
        candidate = root.joinpath(*QUEUE_PARTS)
        if candidate not in out:
            out.append(candidate)
    return out


def existing_queues(home: Path, environ: Mapping[str, str] | None = None) -> list[Path]:
    return [d for d in queue_dirs(home, environ) if d.is_dir()]


def queue_size(directory: Path) -> tuple[int, int]:
    """(files, bytes) under a queue dir."""
    files = total = 0
    for path in directory.rglob("*"):
        if path.is_file():
            files += 1
            total += path.stat().st_size
    return files, total


def delete_queue(directory: Path) -> None:
    """Removes the `.onnxruntime` dir only (Microsoft/DeveloperTools may hold other tools' files)."""
    if directory.name != QUEUE_PARTS[-1]:
        raise ValueError(f"not an onnxruntime telemetry queue: {directory}")
    shutil.rmtree(directory)


def as_a_user_runs_it(environ: Mapping[str, str]) -> dict[str, str]:
    """environ without the CI markers that make onnxruntime keep telemetry off by itself."""
    return {k: v for k, v in environ.items() if k not in CI_MARKERS}


def probe(interpreter: str = sys.executable) -> tuple[bool, str]:
    """(telemetry off, detail): import native_host then onnxruntime in a fresh interpreter whose cache
    and HOME are an empty temp dir, with ORT_DISABLE_TELEMETRY and the CI markers removed from its
    environment; off means no queue appeared there."""
    with tempfile.TemporaryDirectory(prefix="fantasma-telemetry-probe-") as scratch:
        env = dict(as_a_user_runs_it(os.environ), HOME=scratch, XDG_CACHE_HOME=scratch, USERPROFILE=scratch)
        env.pop("ORT_DISABLE_TELEMETRY", None)
        # The probe must import the package under test, wherever the caller imported it from.
        package_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
        try:
            proc = subprocess.run(
                [interpreter, "-c", PROBE_CODE],
                capture_output=True,
                text=True,
                timeout=PROBE_TIMEOUT_S,
                env=env,
                cwd=scratch,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, f"could not run {interpreter}: {exc}"
        if proc.returncode != 0:
            return False, f"importing onnxruntime failed: {proc.stderr.strip()[-300:] or proc.returncode}"
        flag, _, version = proc.stdout.strip().partition(" ")
        leftovers = [str(p) for p in Path(scratch).rglob(QUEUE_PARTS[-1])]
        if leftovers:
            return False, (
                f"onnxruntime {version} still created a telemetry queue ({leftovers[0]}) with "
                f"ORT_DISABLE_TELEMETRY={flag!r}"
            )
        return (
            True,
            f"onnxruntime {version}, ORT_DISABLE_TELEMETRY={flag} set before import, no queue written",
        )

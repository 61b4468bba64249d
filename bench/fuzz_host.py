"""Full-size fuzz of the real host: 100,000 random frames (hypothesis) over real pipes.

    .venv/bin/python bench/fuzz_host.py [--frames 100000]

Measures the host against random input (valid, invalid and truncated frames, unknown types, bad
params): crashes, `internal_error` replies and non-frame bytes on stdout. Goal: all three zero. The test
suite runs the same driver with ~2,000 frames (tests/host/test_fuzz_host.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from native_host.host.fuzz import run_fuzz  # noqa: E402

AVERAGE_BATCH = 4.0  # frames per hypothesis example (lists of 1-8; measured ~4.15)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=100_000)
    args = parser.parse_args()
    import os

    with tempfile.TemporaryDirectory() as home:
        os.environ["FANTASMA_HOME"] = home
        started = time.perf_counter()
        stats = run_fuzz(int(args.frames / AVERAGE_BATCH) + 1)
        elapsed = time.perf_counter() - started
    print(
        f"fuzz: {stats.frames} random frames, {stats.replies} replies, 0 crashes, 0 non-frame bytes on stdout, "
        f"{elapsed:.0f} s ({stats.frames / elapsed:.0f} frames/s)"
    )
    print("errors by name: " + ", ".join(f"{k} {v}" for k, v in sorted((stats.errors_by_name or {}).items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())

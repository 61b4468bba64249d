"""Anonymization benchmark: a small `fantasma eval` slice, printed as a table plus the ratios that matter.

    .venv/bin/python bench/bench_anonymization.py [--strength strong] [--corpora brontes] [--chunks 3]

Uses the installed default model (run `fantasma setup` first); without it the rewrite falls back to
the neutralizer and the numbers say so. For the full run see README "How anonymous is it?".
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default="brontes")
    parser.add_argument("--authors", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=3, help="test chunks per author")
    parser.add_argument("--strength", default="strong", choices=("light", "medium", "strong"))
    parser.add_argument("--candidates", type=int, default=3)
    args = parser.parse_args()

    from native_host.eval import EvalDependencyMissing, EvalOptions, format_table, run_eval

    with tempfile.TemporaryDirectory() as out:
        options = EvalOptions(
            corpora=tuple(args.corpora.split(",")),
            authors=args.authors,
            chunks_per_author=args.chunks,
            strength=args.strength,
            candidates=args.candidates,
            out_dir=Path(out),
        )
        try:
            report = run_eval(options, log=lambda line: print(line, file=sys.stderr, flush=True))
        except EvalDependencyMissing as exc:
            print(exc, file=sys.stderr)
            return 2
    print(format_table(report))
    overall = report["overall"]
    for name, acc in overall["attackers"].items():
        gap_before = acc["original"] - acc["chance"]
        gap_after = acc["rewritten"] - acc["chance"]
        kept = gap_after / gap_before if gap_before > 0 else float("nan")
        print(
            f"{name}: advantage over chance {gap_before * 100:+.1f} → {gap_after * 100:+.1f} points "
            f"(ratio {kept:.2f}; 0 = anonymous, 1 = unchanged)"
        )
    print(f"model: {report['model'].get('state')} {report['model'].get('reason', '')}".rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())

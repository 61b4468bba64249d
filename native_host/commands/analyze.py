"""`fantasma analyze [FILE|-] [--json]`: which habits in a text identify its writer."""

from __future__ import annotations

import argparse
import json
import sys

from native_host.commands import _identifiability
from native_host.commands._io import read_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("analyze", help="show the writing habits that identify you")
    parser.add_argument("source", nargs="?", default="-", metavar="FILE", help="text file, or - for stdin")
    parser.add_argument(
        "--json", action="store_true", help="print the report as JSON (docs/report-format.md)"
    )
    parser.add_argument("--no-profile", action="store_true", help="ignore the saved personal profile")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from native_host.style import analyze
    from native_host.style.render import report_text

    text = read_text(args.source)
    profile = None if args.no_profile else load_profile_or_warn()
    report = analyze(text, profile)
    identifiability, why_not = _identifiability.score(text, use_samples=not args.no_profile)
    if args.json:
        json.dump(
            {**report.to_json(), "identifiability": identifiability},
            sys.stdout,
            ensure_ascii=False,
            indent=1,
        )
        sys.stdout.write("\n")
    else:
        print(report_text(report, text, color=sys.stdout.isatty()))
        print(identifiability_text(identifiability, why_not))
    return 0


def identifiability_text(report: dict | None, why_not: str) -> str:
    if report is None:
        return f"Identifiability: {why_not}"
    meaning = (
        "how likely a reader holding your samples links this text to you"
        if report.get("mode") == "profile"
        else "how far this text stands out from other writers (no writing samples used)"
    )
    lines = [
        f"Identifiability: {_identifiability.describe(report)}: {meaning}",
        f"  {_identifiability.linked_line(report)}",
    ]
    lines += [f"  note: {note}" for note in _identifiability.notes(report)]
    return "\n".join(lines)


def load_profile_or_warn():
    """The saved profile, or None; a corrupt profile is reported on stderr and ignored."""
    from native_host.style.profile import ProfileError, load_profile

    try:
        return load_profile()
    except ProfileError as exc:
        print(f"fantasma: ignoring the personal profile: {exc}", file=sys.stderr)
        return None

"""`fantasma neutralize [FILE|-] [--json]`: rewrite surface markers to one neutral style, no model."""

from __future__ import annotations

import argparse
import json
import sys

from native_host.commands._io import read_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("neutralize", help="remove surface markers deterministically (no model)")
    parser.add_argument("source", nargs="?", default="-", metavar="FILE", help="text file, or - for stdin")
    parser.add_argument("--json", action="store_true", help='print {"text", "edits"} as JSON')
    parser.add_argument("--british", action="store_true", help="target British instead of American spelling")
    parser.add_argument("--keep-emoji", action="store_true", help="leave emoji and emoticons in place")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from native_host.style import Target, neutralize

    text = read_text(args.source)
    target = Target(spelling="british" if args.british else "american", keep_emoji=args.keep_emoji)
    new_text, edits = neutralize(text, target)
    if args.json:
        payload = {"version": 1, "text": new_text, "edits": [e.to_json() for e in edits]}
        json.dump(payload, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(new_text if new_text.endswith("\n") else new_text + "\n")
    return 0

"""`fantasma rewrite [FILE|-] [--strength light|medium|strong] [--json]`: remove the markers, keep the meaning.

What the command line leaves out comes from the host's settings (PROTOCOL.md, "How the settings apply"),
so the CLI and the browser rewrite alike: the default strength and candidates, the protected terms (added
to --keep), use_profile and threads."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from native_host.commands import _identifiability
from native_host.commands._io import read_text


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "rewrite",
        help="rewrite a text so its author's habits are gone (local LLM, neutralizer fallback)",
        description=(
            "Rewrite a text with the local language model so the writing habits that identify you are "
            "gone and the meaning stays. Falls back to the deterministic neutralizer, and says why, when "
            "no model is installed or no candidate passes the checks."
        ),
    )
    parser.add_argument(
        "source", nargs="?", default="-", help="text file to rewrite, or - for stdin (default)"
    )
    parser.add_argument(
        "--strength",
        choices=("light", "medium", "strong"),
        default=None,
        help="light: surface markers only (no model); medium: edits chosen to hide your style, at most 8%% "
        "of the words; strong: the same search with a budget of 25%% of the words (default: the "
        "default_strength setting, medium unless changed)",
    )
    parser.add_argument(
        "--keep",
        action="append",
        default=[],
        metavar="TERM",
        help="a term to keep verbatim (with those of the protected_terms setting)",
    )
    parser.add_argument(
        "--candidates",
        type=int,
        default=None,
        help="candidates per window (default: the candidates setting, 3 unless changed)",
    )
    parser.add_argument("--model-dir", type=Path, default=None, help="model dir (default: the installed one)")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    text = read_text(args.source)
    from native_host import settings
    from native_host.rewrite import RewriteOptions, rewrite

    conf = settings.load_settings()
    try:
        options = RewriteOptions(
            strength=args.strength or conf["default_strength"],
            protected_terms=settings.merge_terms(conf["protected_terms"], args.keep),
            candidates=conf["candidates"] if args.candidates is None else args.candidates,
            model_dir=args.model_dir,
            use_profile=conf["use_profile"],
            threads=conf["threads"],
        )
    except ValueError as exc:
        print(f"fantasma rewrite: {exc}", file=sys.stderr)
        return 2

    def show_progress(event: dict) -> None:
        if not args.quiet and sys.stderr.isatty():
            print(
                f"\r{event['stage']:>9} {event['fraction'] * 100:5.1f}%  {event['message'][:60]:<60}",
                end="",
                file=sys.stderr,
                flush=True,
            )

    result = rewrite(text, options, on_progress=show_progress)
    if not args.quiet and sys.stderr.isatty():
        print("\r" + " " * 80 + "\r", end="", file=sys.stderr)
    reply = with_identifiability(result.to_json(), text, options.use_profile)
    if args.json:
        print(json.dumps(reply, ensure_ascii=False, indent=2))
        return 0
    print(result.text)
    before, after = result.markers_before, result.markers_after
    summary = f"[{result.path}] markers {before.get('count')} → {after.get('count')}"
    if result.similarity is not None:
        summary += f", meaning similarity {result.similarity:.3f}"
    summary += f", {result.timings.get('total_s', 0):.1f} s"
    print(summary, file=sys.stderr)
    print(identifiability_line(reply), file=sys.stderr)
    if result.reason:
        print(f"note: {result.reason}", file=sys.stderr)
    return 0


def with_identifiability(reply: dict, original: str, use_profile: bool = True) -> dict:
    """The result with identifiability_before/after: the pipeline's own, else scored here against the
    saved samples (typicality without them, or when `use_profile` is off: then they are not read)."""
    if reply.get("identifiability_before") is not None and reply.get("identifiability_after") is not None:
        return reply
    before, _ = _identifiability.score(original, use_profile)
    after, _ = _identifiability.score(reply["text"], use_profile)
    if not use_profile:
        from native_host.settings import PROFILE_OFF

        for report in (before, after):
            if report is not None:
                report["message"] = PROFILE_OFF
    return {**reply, "identifiability_before": before, "identifiability_after": after}


def identifiability_line(reply: dict) -> str:
    before, after = reply.get("identifiability_before"), reply.get("identifiability_after")
    if before is None or after is None:
        return "identifiability: not available in this installation"
    line = (
        f"identifiability {before['score']:.2f} → {_identifiability.describe(after)}; "
        + _identifiability.linked_line(after)
    )
    if after.get("message"):
        line += f" (note: {after['message']})"
    return line

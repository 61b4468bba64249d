"""`fantasma rewrite [FILE|-] [--strength light|medium|strong] [--json]`: remove the markers, keep the meaning.

What the command line leaves out comes from the host's settings (PROTOCOL.md, "How the settings apply"),
so the CLI and the browser rewrite alike: the default strength and candidates, the protected terms (added
to --keep), use_profile, threads and the model (the `model` setting, chosen as the host chooses it). The
reply is built as the host builds it (native_host/rewrite/reply.py), so both show the same figures and
the same words for the same text and strength."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

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
    parser.add_argument(
        "--model-dir",
        type=Path,
        default=None,
        help="model dir (default: the active model, `fantasma models`)",
    )
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    text = read_text(args.source)
    from native_host import settings
    from native_host.rewrite import RewriteOptions, rewrite
    from native_host.rewrite.reply import build_reply

    def show_progress(event: dict) -> None:
        if not args.quiet and sys.stderr.isatty():
            print(
                f"\r{event['stage']:>9} {event['fraction'] * 100:5.1f}%  {event['message'][:60]:<60}",
                end="",
                file=sys.stderr,
                flush=True,
            )

    conf = settings.load_settings()
    strength = args.strength or conf["default_strength"]
    model_dir, model_note, model = _model(strength, args.model_dir, conf["threads"], show_progress)
    try:
        options = RewriteOptions(
            strength=strength,
            protected_terms=settings.merge_terms(conf["protected_terms"], args.keep),
            candidates=conf["candidates"] if args.candidates is None else args.candidates,
            model_dir=model_dir,
            use_profile=conf["use_profile"],
            threads=conf["threads"],
        )
    except ValueError as exc:
        print(f"fantasma rewrite: {exc}", file=sys.stderr)
        return 2

    result = rewrite(text, options, on_progress=show_progress)
    if not args.quiet and sys.stderr.isatty():
        print("\r" + " " * 80 + "\r", end="", file=sys.stderr)
    reply = build_reply(result, options.use_profile, model, model_note)  # as the host's `rewrite` builds it
    if args.json:
        print(json.dumps(reply, ensure_ascii=False, indent=2))
        return 0
    print(result.text)
    print(summary_text(reply), file=sys.stderr)
    technical = f"[{result.path}]"
    if result.similarity is not None:
        technical += f" meaning similarity {result.similarity:.3f},"
    print(
        f"{technical} {result.timings.get('total_s', 0):.1f} s (--json for the full record)", file=sys.stderr
    )
    return 0


def _model(strength: str, model_dir: Path | None, threads: int | None, show_progress) -> tuple:
    """(model dir, note for `reason`, the reply's `model`) as the host chooses them (native_host/models/choice.py):
    the active model (the `model` setting), the embedded default when it fails to load; --model-dir as
    given; none at light strength."""
    if strength == "light" or model_dir is not None:
        return model_dir, "", None
    from native_host.models import choice as model_choice

    def progress(stage: str, fraction: float | None, message: str) -> None:
        show_progress({"stage": stage, "fraction": fraction or 0.0, "message": message})

    chosen_dir, note, active = model_choice.for_rewrite(threads, progress)
    return chosen_dir, note, active.answered()


def summary_text(reply: dict) -> str:
    """The reply's summary as the terminal shows it: the headline (in words), the figure's digits, the
    details, the next step."""
    summary = reply["summary"]
    figure = summary.get("identifiability") or {}
    lines = [summary["headline"], *([f"  {figure['line']}"] if figure.get("line") else [])]
    lines += [f"  {detail}" for detail in summary["details"]]
    if summary.get("next_step"):
        lines.append(f"Next: {summary['next_step']}")
    return "\n".join(lines)

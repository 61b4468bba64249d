"""`fantasma demo FILE`: the main job of `make run`. Each step is one function in STEPS, so a later
step (the LLM rewrite) is one more entry."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from native_host.commands._io import read_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="analyze a text, then show it neutralized")
    parser.add_argument("source", metavar="FILE", help="text file, or - for stdin")
    parser.set_defaults(func=run)


def heading(title: str, color: bool) -> str:
    line = "=" * 72
    return f"\033[1m{line}\n{title}\n{line}\033[0m" if color else f"{line}\n{title}\n{line}"


def step_analysis(text: str, color: bool) -> str:
    from native_host.commands.analyze import load_profile_or_warn
    from native_host.style import analyze
    from native_host.style.render import report_text

    return report_text(analyze(text, load_profile_or_warn()), text, color)


def step_neutralized(text: str, color: bool) -> str:
    from native_host.style import neutralize
    from native_host.style.render import neutralized_text

    new_text, edits = neutralize(text)
    return (
        f"{len(edits)} edits (no model: spelling, punctuation, slang, emoji, spacing)\n\n"
        + neutralized_text(new_text, edits, text, color)
    )


def step_rewrite(text: str, color: bool) -> str:
    """The LLM rewrite (strong) with the default model; falls back to the neutralizer and says why."""
    from native_host.commands.rewrite import summary_text
    from native_host.rewrite import RewriteOptions, rewrite
    from native_host.rewrite.reply import build_reply

    result = rewrite(text, RewriteOptions(strength="strong"))
    reply = build_reply(result, use_profile=True)  # what the page shows, in words
    llm = sum(1 for w in result.windows if w.path == "llm")
    lines = [
        result.text.rstrip("\n"),
        "",
        f"path: {result.path} ({llm} of {len(result.windows)} parts rewritten by the model, "
        f"the rest kept the neutralizer's version)"
        if result.windows
        else f"path: {result.path}",
        summary_text(reply),
    ]
    if result.similarity is not None:
        lines.append(f"meaning similarity of the rewritten parts: {result.similarity:.3f}")
    lines.append(f"time: {result.timings.get('total_s', 0):.1f} s")
    if result.reason:
        lines.append(f"note: {result.reason}")
    return "\n".join(lines)


# (title, function(text, color) -> printable).
STEPS: list[tuple[str, Callable[[str, bool], str]]] = [
    ("What identifies the writer", step_analysis),
    ("Neutralized (deterministic)", step_neutralized),
    (
        "Rewritten (strong: edits chosen against the attackers, scored by the local model, checked by the guards)",
        step_rewrite,
    ),
]


def run(args: argparse.Namespace) -> int:
    text = read_text(args.source)
    color = sys.stdout.isatty()
    for title, step in STEPS:
        print(heading(title, color))
        print(step(text, color).rstrip("\n"))
        print()
    return 0

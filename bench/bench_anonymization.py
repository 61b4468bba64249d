"""Anonymization benchmark: a small `fantasma eval` slice, printed as a table plus the ratios that matter.

    .venv/bin/python bench/bench_anonymization.py [--strength strong] [--corpora brontes] [--chunks 3]
    .venv/bin/python bench/bench_anonymization.py --speed [--texts 4]

Default mode: the eval's three authorship attackers on the original test chunks against the rewritten
ones (a small slice of the setting in docs/results.md), with each attacker's advantage over chance before
and after. Goal: every attacker at least 20 points below its accuracy on the original text.

`--speed`: seconds per 100 words of `strong` (the identifiability search, with and without LLM
windows) and of `medium` (the same search, a smaller budget), against the pre-search pipelines
(`search=False`: `strong` paraphrases every window with the model, `medium` only the sentences carrying
markers) in the same run, on the same texts, so machine load affects all alike. Goal: `strong` ≤ 2 s per
100 words on 2 cores.

Uses the installed default model (run `fantasma setup` first); without it the rewrite falls back to
the neutralizer and the numbers say so. The full eval and the current figures: docs/results.md.
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
    parser.add_argument("--speed", action="store_true", help="time strong against the pre-search pipeline")
    parser.add_argument("--texts", type=int, default=4, help="--speed: corpus chunks to rewrite")
    args = parser.parse_args()
    if args.speed:
        return speed(args.texts, args.candidates)

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


def speed(n_texts: int, candidates: int) -> int:
    import time

    from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
    from native_host.rewrite import RewriteOptions, model_status, rewrite

    if model_status()["state"] == "not_installed":
        print("the default model is not installed; run: fantasma setup", file=sys.stderr)
        return 2
    split = split_corpus(find_corpus("brontes", load_manifest()), 3, max(1, n_texts // 3 + 1), 5)
    texts = [c.text for c in split.test][:n_texts]
    words = sum(len(t.split()) for t in texts)
    setups = {
        "strong before the search (LLM windows only)": RewriteOptions(
            strength="strong", candidates=candidates, search=False
        ),
        "strong (search + LLM windows)": RewriteOptions(
            strength="strong", candidates=candidates, llm_windows=True
        ),
        "strong (search only, no LLM windows)": RewriteOptions(
            strength="strong", candidates=candidates, llm_windows=False
        ),
        "medium before the search (marker sentences)": RewriteOptions(
            strength="medium", candidates=candidates, search=False
        ),
        "medium (search only, the default)": RewriteOptions(strength="medium", candidates=candidates),
    }
    rewrite(texts[0][:200], RewriteOptions(strength="strong", candidates=candidates))  # load models once
    results = {}
    for name, options in setups.items():
        started = time.perf_counter()
        for text in texts:
            rewrite(text, options)
        results[name] = 100 * (time.perf_counter() - started) / words
    base = results["strong before the search (LLM windows only)"]
    print(f"{len(texts)} texts, {words} words (typicality: no profile stored)")
    for name, per_100 in results.items():
        print(f"{name:<46} {per_100:6.2f} s per 100 words  ({per_100 / base:.2f}x the pre-search pipeline)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Base vs fine-tuned from `fantasma eval` report dirs: one table of the figures issue 11 asks for.

Each model's eval may be split over several report dirs (one `fantasma eval --corpora NAME` per corpus,
run side by side: a corpus's chunks, attackers and figures do not depend on the other corpora, so the
split changes nothing but the wall time). The figures are pooled per model: attacker accuracy per corpus
and its mean over corpora, the share of sentence windows with an accepted LLM candidate, meaning
similarity, perplexity ratio, identifiability and guard rejections, all from each dir's
eval_report.json and samples.jsonl (one line per rewritten chunk).

    python -m train.compare base=DIR[,DIR...] fine-tuned=DIR[,DIR...] [--judge MODEL_DIR] [--paired] [--json]

Each eval measures the perplexity ratio with its own --model-dir, so a fine-tuned model judges its own
rewrites; `--judge` re-scores every model's chunks (original and rewritten) with one model (the base).

`--paired` refits each corpus's attackers exactly as the eval does (same split, same training chunks)
and asks them about every model's rewrite of each test chunk, so two models are compared chunk by
chunk: how many chunks an attacker still names for one model and not for the other, with the exact
two-sided sign-test p-value of that split (a one-chunk difference in a mean is then visibly noise).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ATTACKER_NAMES = {"char3": "char 3-grams", "delta": "Cosine Delta", "function_words": "function words"}


def pooled(report_dirs: list[Path]) -> dict:
    """One model's figures over its report dirs (each corpus must appear once)."""
    corpora: dict[str, dict] = {}
    chunks: list[dict] = []
    options = []
    for directory in report_dirs:
        report = json.loads((Path(directory) / "eval_report.json").read_text())
        options.append({k: v for k, v in report["options"].items() if k not in ("corpora", "out_dir")})
        for corpus in report["corpora"]:
            if corpus["corpus"] in corpora:
                raise ValueError(f"{corpus['corpus']} appears twice among {', '.join(map(str, report_dirs))}")
            corpora[corpus["corpus"]] = corpus
        lines = (Path(directory) / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        chunks.extend(json.loads(line) for line in lines if line.strip())
    if any(o != options[0] for o in options[1:]):
        raise ValueError(f"the report dirs of one model ran with different settings: {options}")
    names = sorted({n for c in corpora.values() for n in c["attackers"]})
    attackers = {
        name: {
            "per_corpus": {
                c: {k: corpora[c]["attackers"][name][k] for k in ("original", "rewritten")} for c in corpora
            },
            "original": sum(corpora[c]["attackers"][name]["original"] for c in corpora) / len(corpora),
            "rewritten": sum(corpora[c]["attackers"][name]["rewritten"] for c in corpora) / len(corpora),
        }
        for name in names
    }
    similarities = [c["similarity"] for c in chunks if c["similarity"] is not None]
    ratios = [c["perplexity_ratio"] for c in chunks if c["perplexity_ratio"] is not None]
    before = [c["identifiability_before"] for c in chunks if c["identifiability_before"] is not None]
    after = [c["identifiability_after"] for c in chunks if c["identifiability_after"] is not None]
    rejections: Counter[str] = Counter()
    for c in chunks:
        rejections.update(c["rejections"])
    windows = sum(c["windows"] for c in chunks)
    return {
        "options": options[0],
        "corpora": sorted(corpora),
        "chunks": len(chunks),
        "attackers": attackers,
        "windows": windows,
        "llm_windows": sum(c["llm_windows"] for c in chunks),
        "llm_window_share": sum(c["llm_windows"] for c in chunks) / windows if windows else 0.0,
        "mean_similarity": sum(similarities) / len(similarities) if similarities else None,
        "min_similarity": min(similarities) if similarities else None,
        "perplexity_ratio": sum(ratios) / len(ratios) if ratios else None,
        "max_perplexity_ratio": max(ratios) if ratios else None,
        "identifiability_before": sum(before) / len(before) if before else None,
        "identifiability_after": sum(after) / len(after) if after else None,
        "rejected_by_guard": dict(rejections.most_common()),
        "seconds": sum(c["seconds"] for c in chunks),
    }


def judge_perplexity(figures: dict, report_dirs: list[Path], engine: Any) -> None:
    """Replace the perplexity ratios in `figures` with those of `engine` on the same chunks."""
    from native_host.eval.naturalness import perplexity_ratios

    chunks = [
        json.loads(line)
        for directory in report_dirs
        for line in (Path(directory) / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    ratios = [
        r
        for r in perplexity_ratios(engine, [c["original"] for c in chunks], [c["rewritten"] for c in chunks])
        if r is not None
    ]
    figures["perplexity_ratio"] = sum(ratios) / len(ratios) if ratios else None
    figures["max_perplexity_ratio"] = max(ratios) if ratios else None


def _chunk_verdicts(report_dirs: list[Path]) -> dict[str, dict[str, list[bool]]]:
    """{corpus: {attacker: [is the author named, per test chunk in split order]}} for one model's
    rewrites, the attackers refitted as `fantasma eval` fits them."""
    from native_host.eval.attackers import ATTACKERS
    from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
    from native_host.eval.run import parse_corpus_spec

    manifest = load_manifest()
    out: dict[str, dict[str, list[bool]]] = {}
    for directory in report_dirs:
        report = json.loads((Path(directory) / "eval_report.json").read_text())
        options = report["options"]
        lines = (Path(directory) / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        rewritten = {
            (c["corpus"], c["original"]): c["rewritten"] for c in map(json.loads, filter(None, lines))
        }
        for spec in options["corpora"]:
            name, authors = parse_corpus_spec(spec)
            split = split_corpus(
                find_corpus(name, manifest),
                authors or options["authors"],
                options["chunks_per_author"],
                options["train_chunks_per_author"],
            )
            texts = [rewritten[(split.corpus, c.text)] for c in split.test]
            truth = [c.author for c in split.test]
            out[split.corpus] = {}
            for attacker_name, cls in ATTACKERS.items():
                attacker = cls().fit([c.text for c in split.train], [c.author for c in split.train])
                out[split.corpus][attacker_name] = [
                    p == a for p, a in zip(attacker.predict(texts), truth, strict=True)
                ]
    return out


def sign_test_p(wins: int, losses: int) -> float:
    """Exact two-sided sign test: P(a split at least this uneven | each discordant chunk a coin flip)."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(0, min(wins, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired(models: dict[str, list[Path]]) -> dict:
    """Per attacker, chunks each model leaves named, and against the first model the chunks named only
    with it (`worse`: the other model's rewrite still named the author where the first's did not) and only
    with the other (`better`), over every corpus."""
    verdicts = {label: _chunk_verdicts(dirs) for label, dirs in models.items()}
    labels = list(models)
    reference = verdicts[labels[0]]
    out: dict = {}
    for attacker in next(iter(reference.values())):
        row: dict = {}
        for label in labels:
            named = [v for corpus in sorted(reference) for v in verdicts[label][corpus][attacker]]
            entry: dict = {"named": sum(named), "chunks": len(named)}
            if label != labels[0]:
                ref = [v for corpus in sorted(reference) for v in reference[corpus][attacker]]
                better = sum(1 for r, m in zip(ref, named, strict=True) if r and not m)
                worse = sum(1 for r, m in zip(ref, named, strict=True) if m and not r)
                entry.update(better=better, worse=worse, p=round(sign_test_p(better, worse), 3))
            row[label] = entry
        out[attacker] = row
    return out


def paired_table(result: dict) -> str:
    labels = list(next(iter(result.values())))
    rows = [
        "| attacker (chunks still named, of all) | " + " | ".join(labels) + " |",
        "|---|" + "---|" * len(labels),
    ]
    for attacker, row in result.items():
        cells = []
        for label in labels:
            e = row[label]
            cell = f"{e['named']} / {e['chunks']}"
            if "better" in e:
                cell += f" (vs {labels[0]}: {e['better']} fewer, {e['worse']} more; p {e['p']:.2f})"
            cells.append(cell)
        rows.append(f"| {ATTACKER_NAMES.get(attacker, attacker)} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def table(models: dict[str, dict]) -> str:
    """Markdown: one column per model, the first model the reference the others are compared with."""
    labels = list(models)
    first = models[labels[0]]
    rows = [
        "| | " + " | ".join(labels) + " |",
        "|---|" + "---|" * len(labels),
    ]
    for name in first["attackers"]:
        pretty = ATTACKER_NAMES.get(name, name)
        for corpus in first["corpora"]:
            original = first["attackers"][name]["per_corpus"][corpus]["original"]
            rows.append(
                f"| {pretty}, {corpus} (original {_pct(original)}) | "
                + " | ".join(
                    _pct(models[m]["attackers"][name]["per_corpus"][corpus]["rewritten"]) for m in labels
                )
                + " |"
            )
        rows.append(
            f"| **{pretty}, mean** (original {_pct(first['attackers'][name]['original'])}) | "
            + " | ".join(_pct(models[m]["attackers"][name]["rewritten"]) for m in labels)
            + " |"
        )
    base_share = first["llm_window_share"]
    rows.append(
        "| windows with an accepted LLM candidate | "
        + " | ".join(
            f"{models[m]['llm_windows']} / {models[m]['windows']} ({_pct(models[m]['llm_window_share'])}"
            + (
                f", {models[m]['llm_window_share'] / base_share:.2f}×"
                if m != labels[0] and base_share
                else ""
            )
            + ")"
            for m in labels
        )
        + " |"
    )
    rows.append(
        "| meaning similarity (mean / min) | "
        + " | ".join(
            f"{_num(models[m]['mean_similarity'])} / {_num(models[m]['min_similarity'])}" for m in labels
        )
        + " |"
    )
    rows.append(
        "| perplexity ratio (mean / max) | "
        + " | ".join(
            f"{_num(models[m]['perplexity_ratio'], 2)} / {_num(models[m]['max_perplexity_ratio'], 2)}"
            for m in labels
        )
        + " |"
    )
    rows.append(
        "| identifiability (surrogate, before → after) | "
        + " | ".join(
            f"{_num(models[m]['identifiability_before'], 2)} → {_num(models[m]['identifiability_after'], 2)}"
            for m in labels
        )
        + " |"
    )
    rows.append(
        "| rejected candidates by guard | "
        + " | ".join(
            ", ".join(f"{g} {n}" for g, n in models[m]["rejected_by_guard"].items()) or "none" for m in labels
        )
        + " |"
    )
    rows.append(
        "| rewrite time (s, all chunks) | " + " | ".join(f"{models[m]['seconds']:.0f}" for m in labels) + " |"
    )
    return "\n".join(rows)


def _mismatch(models: dict[str, dict]) -> str:
    """Why the models' evals are not comparable ("" when they are): other corpora or other settings
    than the model dir."""
    corpora = {tuple(m["corpora"]) for m in models.values()}
    if len(corpora) > 1:
        return f"the models were evaluated on different corpora: {sorted(corpora)}"
    settings = {
        label: {k: v for k, v in m["options"].items() if k != "model_dir"} for label, m in models.items()
    }
    first = next(iter(settings.values()))
    for label, other in settings.items():
        if other != first:
            diff = sorted(k for k in first.keys() | other.keys() if first.get(k) != other.get(k))
            return f"{label} ran with other eval settings than the reference ({', '.join(diff)})"
    return ""


def _parse(spec: str) -> tuple[str, list[Path]]:
    label, sep, dirs = spec.partition("=")
    if not sep or not label or not dirs:
        raise argparse.ArgumentTypeError(f"expected LABEL=DIR[,DIR...], got {spec!r}")
    return label, [Path(d) for d in dirs.split(",") if d]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", type=_parse, help="LABEL=DIR[,DIR...], the reference first")
    parser.add_argument(
        "--judge", type=Path, default=None, help="model dir that scores every model's perplexity ratio"
    )
    parser.add_argument(
        "--paired", action="store_true", help="also compare the models chunk by chunk (attackers refitted)"
    )
    parser.add_argument("--json", action="store_true", help="the pooled figures as JSON")
    args = parser.parse_args(argv)
    try:
        models = {label: pooled(dirs) for label, dirs in args.models}
        if args.judge is not None:
            from native_host.engine import Engine

            engine = Engine.load(args.judge)
            for label, dirs in args.models:
                judge_perplexity(models[label], dirs, engine)
                models[label]["perplexity_judge"] = str(args.judge)
    except (OSError, ValueError, KeyError) as exc:
        print(f"train.compare: {exc}", file=sys.stderr)
        return 2
    if problem := _mismatch(models):
        print(f"train.compare: {problem}", file=sys.stderr)
        return 2
    pairs = paired(dict(args.models)) if args.paired else None
    if args.json:
        print(json.dumps({**models, **({"paired": pairs} if pairs else {})}, indent=2))
    else:
        print(table(models))
        if pairs:
            print()
            print(paired_table(pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Does the meter keep its promise? (`fantasma eval`, docs/eval.md "The meter's calibration")

Every test text of the run, original and rewritten, is put at the level the meter would show for it
(style/linkability.py, from the same surrogate score the composer's meter shows: with `--profile` its
author's, trained on that author's training chunks only); per level, each attacker's accuracy on the
texts there and their chance (1 / candidates of each text's corpus, averaged). The promise: at
"unlikely", every attacker names the author at most chance + PROMISE_MARGIN.

    Placed(corpus, kind, score, chance, correct, unlikely)   one text: the meter's score, which attackers were
                                                             right, whether the meter may say "unlikely"
    calibrate(placed) -> dict                          per kind ("original", "rewritten", "all") and level
    format_lines(calibration) -> list[str]             the table `fantasma eval` prints

`kept_words_masked`: the same texts judged by attackers that read them (and learned) with every word the
writer is told to keep masked (attackers.mask_kept): names, places and the subject point to a writer
whatever the meter says, and the meter promises nothing about them. The report keeps every text's score
(`texts`), so the table can be made again from a report with other level boundaries (`python -m native_host.eval.calibration REPORT [--likely X --possibly Y]`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from native_host.style import linkability

PROMISE_MARGIN = 0.10  # at "unlikely", every attacker at most chance + 10 points
KINDS = ("original", "rewritten", "all")


@dataclass(frozen=True)
class Placed:
    corpus: str
    kind: str  # "original" | "rewritten"
    score: float  # the meter's score of this text (the surrogate's, as the composer shows it)
    chance: float  # 1 / candidate authors in its corpus
    correct: dict[str, bool]  # attacker -> did it name the author
    # whether the meter may say "unlikely" for it (linkability.says_unlikely): a profile meter without
    # rivals holds a text below the lowest boundary at "possibly"
    unlikely: bool = True


def level(
    score: float,
    likely: float = linkability.LIKELY,
    possibly: float = linkability.POSSIBLY,
    unlikely: bool = True,
) -> str:
    """linkability.level, with other boundaries when asked (measuring where they should be)."""
    if (likely, possibly) == (linkability.LIKELY, linkability.POSSIBLY):
        return linkability.level(score, unlikely)
    shown = linkability.shown(score)
    return "likely" if shown >= likely else "possibly" if shown >= possibly or not unlikely else "unlikely"


def _cell(texts: Sequence[Placed], attackers: Sequence[str]) -> dict:
    return {
        "texts": len(texts),
        "chance": float(np.mean([t.chance for t in texts])) if texts else None,
        "attackers": {
            a: (float(np.mean([t.correct[a] for t in texts])) if texts else None) for a in attackers
        },
    }


def calibrate(
    placed: Sequence[Placed], likely: float = linkability.LIKELY, possibly: float = linkability.POSSIBLY
) -> dict:
    """Per kind of text and per level: texts, mean chance and each attacker's accuracy (None where no
    text is at that level); `overall` is the same over every level, so each attacker's accuracy there
    is the per-level accuracies weighted by their texts. `promise_kept`: at "unlikely" (all texts)
    every attacker within chance + PROMISE_MARGIN (None: no text there, nothing promised)."""
    attackers = sorted({a for t in placed for a in t.correct})
    table: dict[str, dict] = {}
    for kind in KINDS:
        of_kind = [t for t in placed if kind == "all" or t.kind == kind]
        table[kind] = {
            "levels": {
                lv: _cell(
                    [t for t in of_kind if level(t.score, likely, possibly, t.unlikely) == lv], attackers
                )
                for lv in linkability.LEVELS
            },
            "overall": _cell(of_kind, attackers),
        }
    unlikely = table["all"]["levels"]["unlikely"]
    kept = (
        None
        if not unlikely["texts"]
        else all(acc <= unlikely["chance"] + PROMISE_MARGIN + 1e-9 for acc in unlikely["attackers"].values())
    )
    return {
        "thresholds": {"likely": likely, "possibly": possibly},
        "margin": PROMISE_MARGIN,
        "attackers": attackers,
        "kinds": table,
        "promise_kept": kept,
        "texts": [
            {
                "corpus": t.corpus,
                "kind": t.kind,
                "score": round(t.score, 4),
                "chance": t.chance,
                "correct": t.correct,
                "unlikely": t.unlikely,
            }
            for t in placed
        ],
    }


def from_report(report: dict) -> list[Placed]:
    """The texts a report's calibration was made from."""
    return [Placed(**t) for t in report["calibration"]["texts"]]


def _pct(value: float | None) -> str:
    return "   n/a" if value is None else f"{value * 100:5.1f}%"


def format_lines(calibration: dict) -> list[str]:
    """The table `fantasma eval` prints; then, where the report has it, the same with what the writer
    keeps masked (attackers.mask_kept): what the attackers still find in how the text is written."""
    lines = _table_lines(calibration)
    masked = calibration.get("kept_words_masked")
    if masked:
        lines.append(
            "the same with the words the writer keeps masked in the attackers' training and test texts "
            "(names, number words, subject words, the people it is about): what they find in how it is written"
        )
        lines.extend(_table_lines(masked)[1:])
    return lines


def _table_lines(calibration: dict) -> list[str]:
    attackers = calibration["attackers"]
    t = calibration["thresholds"]
    setting = calibration.get("setting")
    lines = [
        f"the meter's calibration: each attacker's accuracy on the texts the meter puts at each level "
        f"(likely ≥ {t['likely']:.2f} > possibly ≥ {t['possibly']:.2f} > unlikely)"
        + (f", surrogate {setting}" if setting else "")
        + ("; typicality levels promise nothing about an attacker" if setting == "typicality" else ""),
        f"{'texts':<10} {'level':<9} {'n':>4} {'chance':>7} " + " ".join(f"{a:>14}" for a in attackers),
    ]
    for kind in KINDS:
        cells = calibration["kinds"][kind]
        rows = [*cells["levels"].items(), ("all", cells["overall"])]
        for level, cell in rows:
            lines.append(
                f"{kind:<10} {level:<9} {cell['texts']:>4} {_pct(cell['chance']):>7} "
                + " ".join(f"{_pct(cell['attackers'][a]):>14}" for a in attackers)
            )
    kept = calibration["promise_kept"]
    lines.append(
        "promise (at 'unlikely' every attacker ≤ chance + "
        f"{calibration['margin'] * 100:.0f} points): "
        + ("no text at 'unlikely'" if kept is None else "kept" if kept else "NOT kept")
        + (
            " (a meter without rivals never says 'unlikely': run with --rivals)"
            if setting == "--profile"
            else ""
        )
    )
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    """The calibration table of an eval report, with the report's or other level boundaries."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("reports", nargs="+", type=Path, help="eval_report.json files (their texts pooled)")
    parser.add_argument("--likely", type=float, default=linkability.LIKELY)
    parser.add_argument("--possibly", type=float, default=linkability.POSSIBLY)
    args = parser.parse_args(argv)
    reports = [json.loads(path.read_text(encoding="utf-8")) for path in args.reports]
    placed = [t for report in reports for t in from_report(report)]
    settings = {report["calibration"].get("setting") for report in reports}
    table = calibrate(placed, args.likely, args.possibly)
    if all("kept_words_masked" in report["calibration"] for report in reports):
        masked = [Placed(**t) for r in reports for t in r["calibration"]["kept_words_masked"]["texts"]]
        table["kept_words_masked"] = calibrate(masked, args.likely, args.possibly)
    print("\n".join(format_lines({**table, "setting": " + ".join(sorted(map(str, settings)))})))


if __name__ == "__main__":
    main()

"""The fluency guard's calibration table: the labelled edits of native_host/rewrite/data/fluency_cases.tsv
scored as the search scores them (each edit alone in its window) with the installed default model, under the old
per-token measure, the per-edit measure without and with the rarity term, at several margins; then the
cases the shipped setting gets wrong. Run: python research/probes/fluency_calibration.py [MODEL_DIR]
(docs/anonymization.md, "Fluency guard")."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("model_dir", nargs="?", type=Path, help="model dir (default: the installed one)")
    args = parser.parse_args()

    from native_host import models
    from native_host.rewrite import guards, search
    from native_host.rewrite.edits import Edit
    from native_host.rewrite.windows import split_pieces

    table = Path(__file__).resolve().parents[2] / "native_host" / "rewrite" / "data" / "fluency_cases.tsv"
    lines = table.read_text(encoding="utf-8").splitlines()
    CASES = [tuple(line.split("\t")) for line in lines if not line.startswith("#")]
    NATURAL, SURVIVORS = "natural", "eval chunks "  # the table's header says what they mean

    checks = search.SearchChecks(None, models.get_engine(args.model_dir))
    src, cand, items = [], [], []
    for lab, origin, s, old, new in CASES:
        st = s.index(old)
        e = Edit(st, st + len(old), new, "lexical", "calibration", True)
        pieces = split_pieces(s)
        g = search._groups(pieces, e)
        w0, w1 = search.fluency_window(s, pieces, e, g)
        src.append(s[w0:w1])
        cand.append(s[w0:st] + new + s[st + len(old) : w1])
        items.append((lab, origin, old, new))
    lp = checks.logprobs(src + cand)
    n = len(src)
    rows = []
    for k, (lab, origin, old, new) in enumerate(items):
        a, b = lp[k], lp[n + k]
        old_m = max(float(a.mean() - b.mean()), float(a.sum() - b.sum()) / max(1, len(a)))
        plain = guards.fluency_drop(a, b)
        full = guards.fluency_drop(a, b, src[k], cand[k])
        rows.append((lab, origin, old, new, old_m, plain, full))

    def conf(idx, m):
        natp = sum(1 for r in rows if r[0] == NATURAL and r[idx] <= m)
        unr = sum(1 for r in rows if r[0] != NATURAL and r[idx] > m)
        brk = sum(1 for r in rows if r[1].startswith("broken") and r[idx] > m)
        return natp, unr, brk

    all_rows = rows
    for title, subset in (
        ("all cases", all_rows),
        (
            "without the cases read after the guard (SURVIVORS)",
            [r for r in all_rows if not r[1].startswith(SURVIVORS)],
        ),
        (
            "only the cases read after the guard (SURVIVORS)",
            [r for r in all_rows if r[1].startswith(SURVIVORS)],
        ),
    ):
        rows = subset
        nn = sum(r[0] == NATURAL for r in rows)
        nu = len(rows) - nn
        nb = sum(r[1].startswith("broken") for r in rows)
        print(f"{title}: natural {nn}, unnatural {nu} (broken on purpose {nb})")
        print("| measure | margin | natural passed | unnatural rejected | of them broken on purpose |")
        print("|---|---|---|---|---|")
        for name, idx, margins in (
            ("old: nats per window token", 4, (0.1, 0.2, 0.3, 0.4)),
            ("per edit, no rarity correction", 5, (1.5, 2.0, 2.5, 3.0)),
            ("per edit, rarity x0.5 (shipped)", 6, (1.0, 1.5, 2.0, 2.5, 3.0)),
        ):
            for m in margins:
                a, b, c = conf(idx, m)
                print(
                    f"| {name} | {m} | {a}/{nn} ({100 * a / max(1, nn):.0f}%) | {b}/{nu} ({100 * b / max(1, nu):.0f}%) | {c}/{nb} |"
                )
        print()
    rows = all_rows
    print()
    for r in rows:
        ok = r[6] <= guards.FLUENCY_MARGIN
        if ok != (r[0] == NATURAL):
            print(
                ("passed unnatural" if ok else "rejected natural"),
                f"{r[6]:.2f}",
                r[1],
                repr(r[2]),
                "->",
                repr(r[3]),
            )


if __name__ == "__main__":
    main()

"""Replay an eval's rewrites with some kinds of edit undone, and score them again: the stealth detector's
rates F1 / AUC and the three attackers, per corpus. Used for issue 30 to find what gave the rewrites away
(research/log/stealth.md). Reads a `fantasma eval ... --stealth` run's samples.jsonl; nothing imports this.

    python research/probes/stealth_replay.py /tmp/stealth-medium/samples.jsonl
"""

from __future__ import annotations

import difflib
import json
import re
import sys

import numpy as np
from sklearn.metrics import f1_score, roc_auc_score

from native_host.eval.attackers import ATTACKERS, function_word_features
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import parse_corpus_spec
from native_host.eval.stealth import held_out_scores
from native_host.style.counting import PUNCTUATION
from native_host.style.population import Population

CORPORA = ("federalist", "brontes", "problemC:5")  # the command, 10 test / 30 train chunks
TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
CURLY = "“”‘’"


def segments(original: str, rewritten: str) -> list[list[str]]:
    """[original piece, rewritten piece, opcode] along a token diff."""
    a, b = TOKEN.findall(original), TOKEN.findall(rewritten)
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return [["".join(a[i1:i2]), "".join(b[j1:j2]), tag] for tag, i1, i2, j1, j2 in ops]


def undo(original: str, rewritten: str, kinds: set[str]) -> str:
    out = []
    for so, sw, tag in segments(original, rewritten):
        hit = tag != "equal" and (
            ("quotes" in kinds and any(c in so for c in CURLY))
            or ("semicolon" in kinds and (";" in so or ";" in sw))
            or ("dash" in kinds and any(c in so for c in "-—–"))
        )
        out.append(so if hit else sw)
    return "".join(out)


def floor_at_typical(original: str, rewritten: str, marks: str, rates: np.ndarray) -> str:
    """Undo removals of each mark, first to last, until its rate is back at min(original's, population mean)."""
    segs = segments(original, rewritten)
    for m in marks:
        typical = float(rates[:, PUNCTUATION.index(m)].mean())
        for s in segs:
            current = "".join(x[1] for x in segs)
            if 1000 * current.count(m) / len(current) >= min(
                1000 * original.count(m) / len(original), typical
            ):
                break
            if s[2] != "equal" and s[0].count(m) > s[1].count(m):
                s[1] = s[0]
    return "".join(x[1] for x in segs)


def score(rows: list[dict], rewritten: list[str], splits: list) -> str:
    k, accuracy = 0, {}
    for split in splits:
        n = len(split.test)
        for name, cls in ATTACKERS.items():
            attacker = cls().fit([c.text for c in split.train], [c.author for c in split.train])
            accuracy.setdefault(name, []).append(
                attacker.accuracy(rewritten[k : k + n], [c.author for c in split.test])
            )
        k += n
    x = np.vstack([function_word_features([r["original"] for r in rows]), function_word_features(rewritten)])
    y = np.array([0] * len(rows) + [1] * len(rows))
    owner = np.array([f"{r['corpus']}/{r['author']}" for r in rows] * 2)
    s = held_out_scores(x, y, owner)
    attackers = " ".join(f"{a} " + "/".join(f"{100 * v:.1f}" for v in vs) for a, vs in accuracy.items())
    return f"F1 {f1_score(y, (s >= 0.5).astype(int)):.2f} AUC {roc_auc_score(y, s):.2f} | {attackers}"


def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    manifest = load_manifest()
    splits = []
    for spec in CORPORA:
        name, authors = parse_corpus_spec(spec)
        splits.append(split_corpus(find_corpus(name, manifest), authors or 3, 10, 30))
    assert [c.text for s in splits for c in s.test] == [r["original"] for r in rows]
    pop = Population.load()
    rates = 1000 * pop.punct / pop.n_chars[:, None]
    variants = {
        "as rewritten": lambda o, w: w,
        "undo quotes": lambda o, w: undo(o, w, {"quotes"}),
        "undo semicolons": lambda o, w: undo(o, w, {"semicolon"}),
        "undo dashes": lambda o, w: undo(o, w, {"dash"}),
        "undo semicolons + dashes": lambda o, w: undo(o, w, {"semicolon", "dash"}),
        "undo quotes + semicolons + dashes": lambda o, w: undo(o, w, {"quotes", "semicolon", "dash"}),
        "floor ; - — at the population mean": lambda o, w: floor_at_typical(o, w, ";-—", rates),
    }
    for label, fn in variants.items():
        print(
            f"{label:38s} {score(rows, [fn(r['original'], r['rewritten']) for r in rows], splits)}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1])

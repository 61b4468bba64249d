#!/usr/bin/env python3
"""Can a writer act on the guide's reasons? (issue 43; a probe)

Over the eval's test chunks (`fantasma eval`'s default corpora and split: 3 authors, 10 test chunks each,
30 training chunks), the guide's reasons for every sentence it gives reasons for, with each author's
--profile surrogate (what the composer uses once samples are stored; --typicality for the other). Per
reason:

* kept: it names (in quotes) a name, a number word or a subject word of its chunk
  (native_host/style/reasons.py `keep_words`, the same definition before and after);
* opaque: it is only "letter patterns" of a word or "full stops" (issue 43's examples of reasons a person
  cannot act on);
* undirected: it says no direction (neither what else people write, nor fewer/more against other
  writers, nor longer/shorter sentences, nor that the subject is what is left).

Prints the shares and writes every chunk's reasons to --out (JSON) so two runs (before/after a change)
can be set side by side.

Usage: PYTHONPATH=$PWD .venv/bin/python research/probes/guide_reasons.py [--typicality]
       [--corpora federalist,brontes,sotu] [--out /tmp/reasons.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import DEFAULT_CORPORA, EvalOptions, training_texts
from native_host.guide.analysis import guide
from native_host.style.identify import Identifiability
from native_host.style.reasons import connectives, keep_words

QUOTED = re.compile(r"'([^' ]+(?:'[a-z]+)?)'")
# what a reason tells the writer to do (the new reasons' directions; the old reasons say none of these)
DIRECTION = re.compile(
    "|".join(
        ["others write", "use it less", "use fewer", "join some", "split it", "subject itself"]
        + ["in your own words", "in other words", "misquote"]
        + [re.escape(how) for _, how in connectives().values() if how]
    ),
    re.I,
)


def classify(reason: str, keep) -> dict[str, bool]:
    named = [w.lower() for w in QUOTED.findall(reason)]
    return {
        "kept": any(keep.must_keep(w) for w in named),
        "opaque": "letter patterns" in reason or reason.startswith("full stops"),
        "undirected": not DIRECTION.search(reason),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--typicality", action="store_true")
    parser.add_argument("--corpora", default=",".join(DEFAULT_CORPORA))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    options = EvalOptions()
    manifest = load_manifest()
    totals = {"reasons": 0, "kept": 0, "opaque": 0, "undirected": 0}
    dump: dict[str, list] = {}
    for name in args.corpora.split(","):
        split = split_corpus(
            find_corpus(name, manifest),
            options.authors,
            options.chunks_per_author,
            options.train_chunks_per_author,
        )
        if args.typicality:
            typical = Identifiability.load(None, exclude_corpora=(split.corpus,))
            surrogates = {a: typical for a in split.authors}
        else:
            surrogates = {
                a: Identifiability.from_texts(training_texts(split, a), exclude_corpora=(split.corpus,))
                for a in split.authors
            }
        counts = {k: 0 for k in totals}
        for i, chunk in enumerate(split.test):
            keep = keep_words(chunk.text)
            report = guide(surrogates[chunk.author], chunk.text)
            rows = []
            for s in report.sentences:
                for reason in s.reasons:
                    c = classify(reason, keep)
                    counts["reasons"] += 1
                    for k, v in c.items():
                        counts[k] += v
                rows.append(
                    {
                        "sentence": chunk.text[s.start : s.end],
                        "weight": round(s.weight, 3),
                        "reasons": s.reasons,
                    }
                )
            dump[f"{split.corpus}/{i}"] = rows
        n = max(counts["reasons"], 1)
        print(
            f"{split.corpus}: {counts['reasons']} reasons; kept {counts['kept'] / n:.0%}, "
            f"opaque {counts['opaque'] / n:.0%}, undirected {counts['undirected'] / n:.0%}",
            flush=True,
        )
        for k in totals:
            totals[k] += counts[k]
    n = max(totals["reasons"], 1)
    print(
        f"all: {totals['reasons']} reasons; names a name/number/subject word {totals['kept'] / n:.1%}, "
        f"only letter patterns or full stops {totals['opaque'] / n:.1%}, no direction {totals['undirected'] / n:.1%}"
    )
    if args.out:
        args.out.write_text(json.dumps(dump, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

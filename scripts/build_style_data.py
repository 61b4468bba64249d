#!/usr/bin/env python3
"""Regenerate native_host/style/data/spelling_variants.tsv (British <-> American spelling pairs).

Pairs are generated from the wordfreq English word list where the rule is safe (-our/-or, -ise/-ize,
-yse/-yze, -re/-er on a curated stem list, doubled l in unstressed endings) and then joined with a
curated list (data/spelling_curated.tsv) for the irregular ones. A generated pair is kept only when
both spellings are real words in wordfreq (Zipf >= 1.5 for the American one), so "hour" never
becomes "hor" and "filled" never becomes "filed".

Usage: .venv/bin/python scripts/build_style_data.py
"""

from __future__ import annotations

import re
from pathlib import Path

import wordfreq

DATA = Path(__file__).resolve().parents[1] / "native_host" / "style" / "data"
MIN_AMERICAN_ZIPF = 1.5

# Roots whose "-our" is not the British -our (tour/tor, four/for, flour, scour, devour, ...).
OUR_EXCLUDED_ROOTS = {"fl", "sc", "am", "dev", "cont", "det", "vel", "troubad", "param", "glam", "ob", "st"}
# Stressed final syllables double the l in American English too (controlled, compelled, ...).
LL_EXCLUDED_ROOTS = {
    "control",
    "compel",
    "propel",
    "excel",
    "patrol",
    "rebel",
    "expel",
    "repel",
    "impel",
    "dispel",
    "annul",
    "extol",
    "enthral",
    "appal",
    "befal",
    "instal",
}
# "-ise" words that are -ise in American English too.
ISE_EXCLUDED = set(
    [
        "advise",
        "devise",
        "revise",
        "supervise",
        "televise",
        "exercise",
        "compromise",
        "surprise",
        "enterprise",
        "franchise",
        "merchandise",
        "advertise",
        "chastise",
        "despise",
        "disguise",
        "improvise",
        "incise",
        "excise",
        "premise",
        "promise",
        "precise",
        "concise",
        "wise",
        "rise",
        "raise",
        "arise",
        "noise",
        "poise",
        "praise",
        "cruise",
        "bruise",
        "expertise",
        "paradise",
        "treatise",
        "demise",
        "comprise",
        "circumcise",
        "apprise",
        "mortise",
        "reprise",
        "guise",
        "otherwise",
        "likewise",
        "clockwise",
        "surmise",
        "anise",
        "remise",
        "valise",
        "chemise",
        "reprise",
        "prise",
        "porpoise",
        "tortoise",
        "turquoise",
        "mayonnaise",
        "marquise",
    ]
)
# "analyses" is also the plural of "analysis" in American English.
ISE_WORDS_EXCLUDED = {"analyses", "paralyses"}
RE_STEMS = [
    "cent",
    "theat",
    "met",
    "lit",
    "fib",
    "calib",
    "somb",
    "spect",
    "sab",
    "lust",
    "meag",
    "lust",
    "sepulch",
    "mit",
    "och",
    "goit",
    "reconnoit",
    "accout",
    "sceptre",
]
LL_ROOTS_MIN_LEN = 4
SUFFIXES_OUR = (
    "",
    "s",
    "ed",
    "ing",
    "ite",
    "ites",
    "ful",
    "fully",
    "less",
    "able",
    "ably",
    "er",
    "ers",
    "ist",
    "ists",
    "ism",
    "y",
)


def zipf(word: str) -> float:
    return wordfreq.zipf_frequency(word, "en")


def generate(vocab: list[str]) -> dict[str, tuple[str, str]]:
    pairs: dict[str, tuple[str, str]] = {}
    vocab_set = set(vocab)

    def add(british: str, american: str, category: str) -> None:
        if british == american or british in pairs:
            return
        if american in vocab_set and zipf(american) >= MIN_AMERICAN_ZIPF:
            pairs[british] = (american, category)

    our_re = re.compile(r"^([a-z]{2,})our(" + "|".join(s for s in SUFFIXES_OUR if s) + r")?$")
    ise_re = re.compile(r"^([a-z]{3,})(is|ys)(e|es|ed|ing|er|ers|ation|ations|ational|able)$")
    ll_re = re.compile(r"^([a-z]{3,}[aeiou])ll(ed|ing|er|ers|or|ors)$")
    for word in vocab:
        if (m := our_re.match(word)) and m.group(1) not in OUR_EXCLUDED_ROOTS:
            add(word, f"{m.group(1)}or{m.group(2) or ''}", "our")
        if m := ise_re.match(word):
            base = m.group(1) + m.group(2) + "e"
            if base not in ISE_EXCLUDED and word not in ISE_WORDS_EXCLUDED:
                add(word, f"{m.group(1)}{m.group(2)[0]}z{m.group(3)}", "ise")
        if m := ll_re.match(word):
            root = m.group(1) + "l"
            if len(root) >= LL_ROOTS_MIN_LEN and root in vocab_set and root not in LL_EXCLUDED_ROOTS:
                add(word, f"{root}{m.group(2)}", "ll")
    for stem in RE_STEMS:
        for b_suffix, a_suffix in (("re", "er"), ("res", "ers"), ("red", "ered"), ("ring", "ering")):
            british = stem + b_suffix
            if british in vocab_set:
                add(british, stem + a_suffix, "re")
    return pairs


def main() -> None:
    vocab = wordfreq.top_n_list("en", 120_000)
    generated = generate(vocab)
    curated: list[tuple[str, str, str, str]] = []
    for line in (DATA / "spelling_curated.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        british, american, category, reversible = line.split("\t")
        curated.append((british, american, category, reversible))
    rows = {b: (a, c, "1") for b, (a, c) in generated.items()}
    for british, american, category, reversible in curated:
        rows[british] = (american, category, reversible)
    out = DATA / "spelling_variants.tsv"
    lines = [
        "# british\tamerican\tcategory\treversible  (generated by scripts/build_style_data.py; edit"
        " spelling_curated.tsv instead)"
    ]
    lines += [f"{b}\t{a}\t{c}\t{r}" for b, (a, c, r) in sorted(rows.items())]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{out}: {len(rows)} pairs ({len(generated)} generated, {len(curated)} curated)")


if __name__ == "__main__":
    main()

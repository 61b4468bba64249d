"""The writer study (issue 43): writers who see only what the composer shows rewrite one sentence at a time
until the meter says "unlikely" or six sentences were rewritten, keeping every fact; then the eval's
attackers judge the results against the originals.

    python research/probes/writer_study.py prepare STUDY [--corpus problemC:5] [--chunks-per-author 6]
                                                         [--held-out chunks|documents]
    python research/probes/writer_study.py show STUDY CHUNK        what the composer shows, in words
    python research/probes/writer_study.py edit STUDY CHUNK N "the new sentence N"   (N-M: sentences N to M)
    python research/probes/writer_study.py alternatives STUDY CHUNK N   the composer's other ways to say sentence N
    python research/probes/writer_study.py use STUDY CHUNK N K     put alternative K in (one edit)
    python research/probes/writer_study.py undo STUDY CHUNK        back to before the last edit
    python research/probes/writer_study.py stop STUDY CHUNK        the writer is done with this chunk
    python research/probes/writer_study.py status STUDY            which chunks are open, how far each is
    python research/probes/writer_study.py judge STUDY [--json]    attackers, meaning, levels, sentences used
    python research/probes/writer_study.py export STUDY OUT.json    the writers' texts and steps, to keep

The writer's view (`show`) is built from the same reply the composer renders (native_host/guide/analysis.py):
the meter's level in words, every sentence with its share of the give-away in words and percent, the
three to reword first (the composer's numbers), whether rewording it alone could reach the lowest level,
and its reasons, which sentences were changed, and what the last change did to the meter, in the
composer's words. It never shows a score, an author, a corpus or an attacker. Each author's meter is trained on that
author's training chunks (as `fantasma profile add` would be given a user's writing), the population
without the corpus; the test chunks are held out from both, as in `fantasma eval --profile`.
State lives in STUDY/ (study.json, the writers' steps; surrogates.pkl, the meters), so anyone can repeat
a run or judge one: research/log/writer-study.md says how the last one went.
"""

from __future__ import annotations

import argparse
import difflib
import json
import pickle
import sys
from pathlib import Path
from typing import Any

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import parse_corpus_spec, rival_texts, training_texts
from native_host.guide.analysis import guide
from native_host.style.identify import Identifiability

MAX_EDITS = 6
TRAIN_CHUNKS = 30


def _load(study: Path) -> dict[str, Any]:
    return json.loads((study / "study.json").read_text(encoding="utf-8"))


def _save(study: Path, state: dict[str, Any]) -> None:
    tmp = study / "study.json.tmp"
    tmp.write_text(json.dumps(state, indent=1, ensure_ascii=False), encoding="utf-8")
    tmp.replace(study / "study.json")


def _meters(study: Path) -> dict[str, Identifiability]:
    with (study / "surrogates.pkl").open("rb") as f:
        return pickle.load(f)


def prepare(
    study: Path, corpus_spec: str, per_author: int, held_out: str = "chunks", rivals: bool = False
) -> None:
    """`rivals`: each author's meter also holds the other candidates' training chunks as rivals, as a
    writer who stored samples of the people a reader might suspect (`fantasma profile add --rival`)."""
    study.mkdir(parents=True, exist_ok=True)
    name, authors = parse_corpus_spec(corpus_spec)
    corpus = find_corpus(name, load_manifest())
    split = split_corpus(corpus, authors or 5, per_author, TRAIN_CHUNKS, held_out=held_out)
    meters = {
        author: Identifiability.from_texts(
            training_texts(split, author),
            exclude_corpora=(split.corpus,),
            rival_texts=rival_texts(split, author) if rivals else None,
        )
        for author in split.authors
    }
    with (study / "surrogates.pkl").open("wb") as f:
        pickle.dump(meters, f)
    chunks = [
        {
            "id": f"c{k:02d}",
            "author": c.author,
            "original": c.text,
            "text": c.text,
            "steps": [],
            "stopped": False,
        }
        for k, c in enumerate(split.test)
    ]
    train = [{"author": c.author, "text": c.text} for c in split.train]
    _save(
        study,
        {
            "corpus": split.corpus,
            "held_out": held_out,
            "rivals": rivals,
            "authors": list(split.authors),
            "chunks": chunks,
            "train": train,
        },
    )
    print(f"{len(chunks)} chunks of {len(split.authors)} authors in {study}")


def _chunk(state: dict[str, Any], cid: str) -> dict[str, Any]:
    for chunk in state["chunks"]:
        if chunk["id"] == cid:
            return chunk
    raise SystemExit(f"no chunk {cid}")


def _report(study: Path, chunk: dict[str, Any], text: str) -> dict[str, Any]:
    return guide(_meters(study)[chunk["author"]], text).to_json()


def _share_words(share: float, level: str) -> str:  # as extension/composer/composer.js shareWords says it
    if level == "unlikely":  # the share is a part of the little that is left
        return "gives little away" if share > 0 else "gives nothing away"
    if share >= 0.25:
        return "gives a lot away"
    if share >= 0.1:
        return "gives some away"
    return "gives little away" if share > 0 else "gives nothing away"


def _changed(chunk: dict[str, Any], text: str, start: int, end: int) -> bool:
    """A sentence the writer changed: its words are not in the original (the composer marks these)."""
    return " ".join(text[start:end].split()) not in " ".join(chunk["original"].split())


def view(study: Path, chunk: dict[str, Any]) -> str:
    report = _report(study, chunk, chunk["text"])
    lines = [f"Chunk {chunk['id']}: the meter says this text is {report['level_words']}."]
    if chunk.get("undone"):  # the last change was the undo (writer 9d: it still said "lowered")
        lines.append("Your last change was undone.")
    elif chunk["steps"]:
        last = chunk["steps"][-1]
        before, after = last["level_before"], report["level"]
        way = (
            "lowered"
            if last["score_after"] < last["score_before"]
            else "raised"
            if last["score_after"] > last["score_before"]
            else "did not move"
        )
        moved = f"({before} → {after})" if before != after else f"(still {after})"
        lines.append(f"Your last change {way} the meter {moved}." + (" Undo it?" if way == "raised" else ""))
    lines.append(f"Edits so far: {len(chunk['steps'])} of {MAX_EDITS}.")
    lines.append("")
    text = chunk["text"]
    for n, s in enumerate(report["sentences"], 1):
        mark = " [changed]" if _changed(chunk, text, s["start"], s["end"]) else ""
        rank = f" [number {report['top'].index(n - 1) + 1} to reword]" if n - 1 in report["top"] else ""
        share = f"{_share_words(s['share'], report['level'])} ({round(s['share'] * 100)}%)"
        lines.append(f"{n}.{mark}{rank} {share}: {text[s['start'] : s['end']]}")
        if s["enough"]:  # as the composer says it (extension/_locales/en: composerEnough)
            lines.append("     - Reworded, this sentence alone could take the meter to its lowest level")
        for reason in s["reasons"]:
            lines.append(f"     - {reason}")
    return "\n".join(lines)


def _open(
    study: Path, cid: str, number: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], int, int, int, int]:
    """(state, the open chunk, the composer's report of its text, N, M, start, end) of sentences N-M ("N"
    alone: N-N), as the writer numbers them in `show`."""
    state = _load(study)
    chunk = _chunk(state, cid)
    if chunk["stopped"]:
        raise SystemExit(f"{cid} is stopped")
    before = _report(study, chunk, chunk["text"])
    spans = [(s["start"], s["end"]) for s in before["sentences"]]
    first, _, last = number.partition("-")
    try:
        lo, hi = int(first), int(last or first)
    except ValueError:
        raise SystemExit(f"sentence {number!r}: give N or N-M") from None
    if not 1 <= lo <= hi <= len(spans):
        raise SystemExit(f"sentence {number}: the text has {len(spans)}")
    return state, chunk, before, lo, hi, spans[lo - 1][0], spans[hi - 1][1]


def edit(study: Path, cid: str, number: str, sentence: str) -> None:
    """Replace sentence N, or sentences N-M together (joining them, as a writer in the composer can)."""
    state, chunk, before, lo, hi, start, end = _open(study, cid, number)
    text = chunk["text"][:start] + sentence.strip() + chunk["text"][end:]
    after = _report(study, chunk, text)
    chunk["steps"].append(
        {
            "sentence": lo if lo == hi else f"{lo}-{hi}",
            "from": chunk["text"][start:end],
            "to": sentence.strip(),
            "text_before": chunk["text"],
            "score_before": before["score"],
            "level_before": before["level"],
            "score_after": after["score"],
            "level_after": after["level"],
        }
    )
    chunk["text"] = text
    chunk.pop("undone", None)
    if after["level"] == "unlikely" or len(chunk["steps"]) >= MAX_EDITS:
        chunk["stopped"] = True
    _save(study, state)
    print(view(study, chunk))
    if chunk["stopped"]:
        why = "the meter says unlikely" if after["level"] == "unlikely" else f"{MAX_EDITS} edits were made"
        print(f"\nThis chunk is done: {why}.")


def _says_unlikely(study: Path, chunk: dict[str, Any]) -> bool:
    """Whether the chunk's meter may say "unlikely" (it holds rivals; style/linkability.py)."""
    from native_host.style import linkability

    meter = _meters(study)[chunk["author"]]
    return linkability.says_unlikely(meter.mode, meter.rivals)


def _effect_words(before: dict[str, Any], score: float, unlikely: bool) -> str:
    """What an alternative does to the meter, in the composer's words (no score): "likely → possibly", or
    "still likely, a little lower"."""
    from native_host.style import linkability

    after = linkability.level(score, unlikely)
    if after != before["level"]:
        return f"Meter: {before['level']} → {after}"
    return f"Meter: still {after}, a little lower"


def alternatives(study: Path, cid: str, number: int) -> None:
    """The composer's "other ways to say it" for sentence N: the rule edits in it and the embedded model's
    candidates, each through every guard, only those that lower the meter (guide/alternatives.py, as the
    host's `guide.alternatives` makes them), kept in the study so `use` can put one in."""
    from native_host.eval.run import EvalOptions, _embedder, _language_model
    from native_host.guide.alternatives import AlternativesError, sentence_alternatives

    state, chunk, before, _, _, start, end = _open(study, cid, str(number))
    embedder = _embedder(EvalOptions())
    if embedder is None:
        raise SystemExit("no meaning model: run `fantasma setup` (the composer offers none without it)")
    try:
        found = sentence_alternatives(
            chunk["text"],
            start,
            end,
            ident=_meters(study)[chunk["author"]],
            embedder=embedder,
            engine=_language_model(EvalOptions()),
        )
    except AlternativesError as exc:
        raise SystemExit(str(exc)) from None
    chunk["offered"] = {
        "sentence": number,
        "text": chunk["text"],
        "start": start,
        "end": end,
        "alternatives": [a.text for a in found],
    }
    _save(study, state)
    if not found:
        print(
            f"Sentence {number}: no other wording of this sentence both passed every check (meaning, "
            "fluency, your protected words) and lowered the meter. Edit it by hand."
        )
        return
    print(f"Sentence {number}: {len(found)} other way(s) to say it, each checked for meaning and fluency:")
    for k, alt in enumerate(found, 1):
        print(f"  {k}. {alt.sentence}\n     {_effect_words(before, alt.score, _says_unlikely(study, chunk))}")
    print(f"Put one in with: use {cid} {number} K")


def use(study: Path, cid: str, number: int, k: int) -> None:
    """Put alternative K of the last `alternatives` for sentence N in (one edit, as "Use this" is)."""
    state = _load(study)
    chunk = _chunk(state, cid)
    offered = chunk.get("offered") or {}
    if offered.get("sentence") != number or offered.get("text") != chunk["text"]:
        raise SystemExit(
            f"Nothing was changed: ask for the alternatives of sentence {number} first"
            " (the last ones offered were for another sentence or another text)."
        )
    texts = offered["alternatives"]
    if not 1 <= k <= len(texts):
        raise SystemExit(f"alternative {k}: there are {len(texts)}")
    new_text = texts[k - 1]  # the whole text: the new sentence lies where the offered one lay
    tail = len(chunk["text"]) - offered["end"]
    edit(study, cid, str(number), new_text[offered["start"] : len(new_text) - tail])


def undo(study: Path, cid: str) -> None:
    state = _load(study)
    chunk = _chunk(state, cid)
    if not chunk["steps"]:
        raise SystemExit("nothing to undo")
    chunk["text"] = chunk["steps"].pop()["text_before"]
    chunk["stopped"] = False
    chunk["undone"] = True
    _save(study, state)
    print(view(study, chunk))


def _outcome(study: Path, chunk: dict[str, Any]) -> tuple[str, int, str]:
    """(the writer's text, edits, its level) as the meter levels it now (native_host/style/linkability.py):
    the text after the first edit whose score the meter now puts at "unlikely" (a writer stops there),
    else after the last edit. Scores are kept per step, so a run is judged again under new levels."""
    from native_host.style import linkability

    steps = chunk["steps"]
    unlikely = _says_unlikely(study, chunk)
    for k, step in enumerate(steps):
        if linkability.level(step["score_after"], unlikely) == "unlikely":
            text = steps[k + 1]["text_before"] if k + 1 < len(steps) else chunk["text"]
            return text, k + 1, "unlikely"
    if steps:
        return chunk["text"], len(steps), linkability.level(steps[-1]["score_after"], unlikely)
    return chunk["text"], 0, _report(study, chunk, chunk["text"])["level"]


def judge(study: Path) -> dict[str, Any]:
    """Each attacker of `fantasma eval` trained on the training chunks, on the originals and on the
    writers' texts (overall and by the level the meter gives each written text); meaning by the eval's
    document similarity; how many reached "unlikely" and with how many edits."""
    import numpy as np

    from native_host.eval import attackers as attacker_module
    from native_host.eval.run import EvalOptions, _embedder

    state = _load(study)
    chunks = state["chunks"]
    outcomes = [_outcome(study, c) for c in chunks]
    texts = [t["text"] for t in state["train"]]
    authors = [t["author"] for t in state["train"]]
    found = [
        cls
        for cls in vars(attacker_module).values()
        if isinstance(cls, type) and issubclass(cls, attacker_module.Attacker) and cls.name
    ]
    truth = [c["author"] for c in chunks]
    embedder = _embedder(EvalOptions())
    if embedder is None:  # no `fantasma setup` on this machine: the same model, exported into the study
        from export.bert import export_default_embedder
        from native_host.engine.embedder import Embedder

        embedder = Embedder(export_default_embedder(study / "embedder" / "all-minilm-l6-v2").parent)
    sims = [
        float(embedder.document_similarity(c["original"], o[0]))
        for c, o in zip(chunks, outcomes, strict=True)
    ]
    levels = sorted({o[2] for o in outcomes})
    rows: dict[str, Any] = {}
    for cls in found:
        attacker = cls().fit(texts, authors)
        originals = attacker.predict([c["original"] for c in chunks])
        written = attacker.predict([o[0] for o in outcomes])
        row: dict[str, Any] = {
            "original": float(np.mean([p == a for p, a in zip(originals, truth, strict=True)])),
            "written": float(np.mean([p == a for p, a in zip(written, truth, strict=True)])),
        }
        for level in levels:
            at = [i for i, o in enumerate(outcomes) if o[2] == level]
            row[f"written_at_{level}"] = float(np.mean([written[i] == truth[i] for i in at]))
        # the same attacker with what the writer keeps masked in its training and in the texts (names,
        # number words, subject words: style/reasons.py keep_words): how much of what it still finds is
        # what the writer was told to keep, which the meter promises nothing about
        masked = cls().fit([attacker_module.mask_kept(t) for t in texts], authors)
        hidden = masked.predict([attacker_module.mask_kept(o[0]) for o in outcomes])
        row["written_kept_words_masked"] = float(
            np.mean([p == a for p, a in zip(hidden, truth, strict=True)])
        )
        for level in levels:
            at = [i for i, o in enumerate(outcomes) if o[2] == level]
            row[f"written_at_{level}_kept_words_masked"] = float(np.mean([hidden[i] == truth[i] for i in at]))
        rows[attacker.name] = row
    reached = [i for i, o in enumerate(outcomes) if o[2] == "unlikely"]
    # share of the original's words not kept in place (difflib's matching blocks over the word lists)
    words = [
        1.0
        - sum(
            b.size
            for b in difflib.SequenceMatcher(None, c["original"].split(), o[0].split()).get_matching_blocks()
        )
        / max(1, len(c["original"].split()))
        for c, o in zip(chunks, outcomes, strict=True)
    ]
    return {
        "corpus": state["corpus"],
        "authors": len(state["authors"]),
        "chance": 1 / len(state["authors"]),
        "chunks": len(chunks),
        "levels": {level: sum(1 for o in outcomes if o[2] == level) for level in levels},
        "reached_unlikely": len(reached),
        "edits_mean": float(np.mean([o[1] for o in outcomes])),
        "edits_to_unlikely_mean": float(np.mean([outcomes[i][1] for i in reached])) if reached else None,
        "meaning_mean": float(np.mean(sims)),
        "meaning_mean_where_unlikely": float(np.mean([sims[i] for i in reached])) if reached else None,
        "words_changed_mean": float(np.mean(words)),
        "attackers": rows,
    }


def export(study: Path, out: Path) -> None:
    """The writers' work without what `prepare` makes again (training chunks, meters): each chunk's
    original, final text and steps (sentence, from, to, the meter's score and level before and after)."""
    state = _load(study)
    keep = ("sentence", "from", "to", "score_before", "level_before", "score_after", "level_after")
    chunks = [
        {
            "id": c["id"],
            "author": c["author"],
            "original": c["original"],
            "text": c["text"],
            "steps": [{k: step[k] for k in keep} for step in c["steps"]],
        }
        for c in state["chunks"]
    ]
    out.write_text(
        json.dumps(
            {
                "corpus": state["corpus"],
                "held_out": state.get("held_out", "chunks"),
                "rivals": state.get("rivals", False),
                "authors": state["authors"],
                "chunks": chunks,
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("study", type=Path)
    p.add_argument("--corpus", default="problemC:5")
    p.add_argument("--chunks-per-author", type=int, default=6)
    p.add_argument(
        "--held-out",
        choices=("chunks", "documents"),
        default="chunks",
        help="documents: test chunks from books/essays no training chunk comes from",
    )
    p.add_argument(
        "--rivals",
        action="store_true",
        help="each meter holds the other candidates' training chunks as rivals (profile add --rival)",
    )
    for name in ("show", "undo", "stop"):
        p = sub.add_parser(name)
        p.add_argument("study", type=Path)
        p.add_argument("chunk")
    p = sub.add_parser("edit")
    p.add_argument("study", type=Path)
    p.add_argument("chunk")
    p.add_argument("number", help="N, or N-M to replace sentences N to M together")
    p.add_argument("sentence")
    p = sub.add_parser("alternatives")
    p.add_argument("study", type=Path)
    p.add_argument("chunk")
    p.add_argument("number", type=int)
    p = sub.add_parser("use")
    p.add_argument("study", type=Path)
    p.add_argument("chunk")
    p.add_argument("number", type=int)
    p.add_argument("k", type=int)
    p = sub.add_parser("status")
    p.add_argument("study", type=Path)
    p = sub.add_parser("export")
    p.add_argument("study", type=Path)
    p.add_argument("out", type=Path)
    p = sub.add_parser("judge")
    p.add_argument("study", type=Path)
    p.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "prepare":
        prepare(args.study, args.corpus, args.chunks_per_author, args.held_out, args.rivals)
    elif args.command == "show":
        print(view(args.study, _chunk(_load(args.study), args.chunk)))
    elif args.command == "edit":
        edit(args.study, args.chunk, args.number, args.sentence)
    elif args.command == "alternatives":
        alternatives(args.study, args.chunk, args.number)
    elif args.command == "use":
        use(args.study, args.chunk, args.number, args.k)
    elif args.command == "undo":
        undo(args.study, args.chunk)
    elif args.command == "stop":
        state = _load(args.study)
        _chunk(state, args.chunk)["stopped"] = True
        _save(args.study, state)
    elif args.command == "status":
        for c in _load(args.study)["chunks"]:
            level = c["steps"][-1]["level_after"] if c["steps"] else "-"
            print(f"{c['id']}  {'done' if c['stopped'] else 'open'}  edits {len(c['steps'])}  {level}")
    elif args.command == "export":
        export(args.study, args.out)
    elif args.command == "judge":
        result = judge(args.study)
        print(json.dumps(result, indent=1) if args.json else json.dumps(result))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit as refused:
        # a refusal ("ask for the alternatives of that sentence first") is what the writer reads: on
        # stdout, as the composer shows it; a study's wrapper may silence stderr (run 6: `use` "silently
        # did nothing")
        if isinstance(refused.code, str):
            print(refused.code)
            sys.exit(1)
        raise

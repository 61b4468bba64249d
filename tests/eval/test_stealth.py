"""The obfuscation detector (native_host/eval/stealth.py) on real corpus chunks: it finds a rewriter that
leaves a trace, stays near chance when there is nothing to find, and its judge features agree with the
engine's own greedy choices."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from native_host.cli import main
from native_host.eval import stealth
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.style.counting import function_words


def chunks(corpus: str, authors: int, per_author: int):
    split = split_corpus(find_corpus(corpus, load_manifest()), authors, per_author, 2)
    return split.test


def test_a_rewriter_that_leaves_a_trace_is_found_on_held_out_authors():
    """A crude obfuscator (every comma and semicolon dropped, 'the' -> 'a'): each held-out author's
    rewrites are found by a detector that never saw that author."""
    pairs = [
        stealth.Pair(
            c.author, c.text, re.sub(r"\bthe\b", "a", c.text.replace(",", "").replace(";", "")), ("crude",)
        )
        for c in chunks("federalist", 3, 6)
    ]
    report = stealth.detect(pairs)
    assert report.authors == 3 and report.pairs == 18
    assert report.f1 >= 0.9 and report.auc >= 0.95, report


def test_no_trace_gives_about_chance():
    """The 'rewrite' is another original chunk of the same author: nothing marks it, so the detector
    cannot beat chance by much (the figure the issue's F1 <= 0.60 goal is read against)."""
    test = chunks("brontes", 3, 8)
    by_author: dict[str, list[str]] = {}
    for c in test:
        by_author.setdefault(c.author, []).append(c.text)
    pairs = [
        stealth.Pair(author, texts[i], texts[(i + 1) % len(texts)])
        for author, texts in by_author.items()
        for i in range(0, len(texts), 2)
    ]
    report = stealth.detect(pairs)
    assert report.auc <= 0.75, report


def test_family_effects_rank_the_family_that_gives_rewrites_away():
    pairs = [stealth.Pair("a", "x", "y", ("loud",) if i % 2 else ("quiet",)) for i in range(8)]
    scores = np.array([0.9 if i % 2 else 0.2 for i in range(8)])
    rows = stealth.family_effects(pairs, scores)
    assert [r["family"] for r in rows] == ["loud", "quiet"]
    assert rows[0]["moves"] == pytest.approx(0.7) and rows[0]["chunks"] == 4


def test_human_check_hides_the_answer_until_the_end(tmp_path):
    test = chunks("federalist", 3, 3)
    pairs = [stealth.Pair(c.author, c.text, c.text.upper()) for c in test]
    path = stealth.write_human_check(tmp_path / "pairs.md", pairs, seed=1, n=5)
    text = path.read_text()
    body, answers = text.split("## Answers (the rewrite)")
    assert body.count("**A**") == 5 and body.count("**B**") == 5
    letters = re.findall(r"^\d+\. ([AB])$", answers, re.M)
    assert len(letters) == 5 and set(letters) <= {"A", "B"}
    for section, letter in zip(body.split("\n## ")[1:], letters, strict=True):
        a = section.split("**A**")[1].split("**B**")[0]
        b = section.split("**B**")[1]
        rewrite, original = (a, b) if letter == "A" else (b, a)
        assert rewrite.strip().isupper() and not original.strip().isupper()


@pytest.mark.slow
def test_judge_ranks_agree_with_the_engines_greedy_choice(host_llm_dir):
    """Tokens the engine picked greedily are rank 0 under the judge, and the log-probabilities match the
    engine's own `score` (a separate code path: one position per pass)."""
    from native_host.engine import Engine, GenerationOptions

    engine = Engine.load(host_llm_dir)
    prompt = [engine.bos_token_id, *engine.encode("The capital of France is a city where")]
    generated = engine.generate(prompt, GenerationOptions(max_new_tokens=8, greedy=True)).token_ids
    generated = [t for t in generated if t not in engine.eos_token_ids]
    assert len(generated) >= 4
    ranks, logprobs = stealth.ranks_and_logprobs(engine, [*prompt, *generated])
    assert list(ranks[-len(generated) :]) == [0] * len(generated)
    reference = engine.score(prompt, [generated])[0]
    assert np.allclose(logprobs[-len(generated) :], reference, atol=0.05)


@pytest.mark.slow
def test_eval_stealth_reports_the_detector(tmp_path, capsys, models_in_home, host_llm_dir):
    out = tmp_path / "report"
    args = ["eval", "--corpora", "federalist", "--chunks-per-author", "3", "--train-chunks", "4"]
    assert main([*args, "--strength", "light", "--stealth", "--out", str(out), "--quiet"]) == 0
    table = capsys.readouterr().out
    report = json.loads((out / "eval_report.json").read_text())
    found = report["stealth"]
    assert found["pairs"] == 9 and found["authors"] == 3 and found["judge"] == "the rewriting model"
    detectors = found["detectors"]
    assert set(detectors) == {"likelihood", "rates", "both"}
    # the figure is the strongest detector's (the one an adversary would pick), not any number in [0, 1]
    best = max(detectors, key=lambda name: (detectors[name]["f1"], detectors[name]["auc"]))
    assert found["detector"] == best
    assert (found["f1"], found["auc"]) == (detectors[best]["f1"], detectors[best]["auc"])
    # GLTR's features, counted from the paper's layout rather than the code's constants: the share of
    # tokens in each of 6 rank buckets (top 1, 3, 10, 100, 1000, below) and 9 log-probability bins, then
    # the mean and spread of log p; the rates are one per function word and per punctuation mark
    assert detectors["likelihood"]["features"] == 6 + 9 + 2
    rates = len(function_words()) + len(".,;:!?'\"()-—–…")
    assert detectors["rates"]["features"] == rates
    assert detectors["both"]["features"] == 6 + 9 + 2 + rates
    assert f"F1 {found['f1']:.2f}, AUC {found['auc']:.2f}" in table
    assert (out / found["human_check_file"]).read_text().startswith("# Which one is the rewrite?")
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert any(s["families"] for s in samples)  # light removes surface markers: "markers:<family>"
    assert main(["eval", "--judge", str(host_llm_dir)]) == 2
    assert "--judge needs --stealth" in capsys.readouterr().err


@pytest.mark.slow
def test_the_judged_detector_finds_rewrites_only_likelihood_gives_away(host_llm_dir):
    """The judge's likelihood features, from the model `eval --stealth` judges with, separate a planted
    set: each chunk with its words shuffled within each sentence, so every function-word and punctuation
    rate stays exactly as it was and only how likely the text reads to the model changes."""
    from native_host.engine import Engine

    rng = np.random.default_rng(0)

    def shuffled(text: str) -> str:
        """The words of each sentence in a random order; every space, line break and character kept."""
        parts = re.split(r"(\s+)", text)  # words at even places, the whitespace between them at odd
        words, sentence = parts[0::2], []
        start = 0
        for end, word in enumerate(words, 1):
            if word.endswith((".", "!", "?")) or end == len(words):
                sentence.extend(rng.permutation(words[start:end]))
                start = end
        parts[0::2] = sentence
        return "".join(parts)

    texts = [(c.author, " ".join(c.text.split()[:120])) for c in chunks("federalist", 3, 3)]  # fast to judge
    pairs = [stealth.Pair(author, text, shuffled(text)) for author, text in texts]
    report = stealth.detect(pairs, Engine.load(host_llm_dir), "the rewriting model")
    likelihood, rates = report.detectors["likelihood"], report.detectors["rates"]
    assert likelihood["f1"] >= 0.9 and likelihood["auc"] >= 0.95, report
    assert rates["auc"] <= 0.6, report  # the rates are the same before and after: the judge found it

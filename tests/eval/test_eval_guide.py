"""`fantasma eval --guide`: does the guide point at the sentences the attackers use?"""

from __future__ import annotations

import json

import numpy as np
import pytest

from native_host.cli import main
from native_host.eval import guide_vs_attackers as guide
from native_host.eval.attackers import ATTACKERS
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import _surrogates


@pytest.fixture(scope="module")
def federalist():
    """A small Federalist slice (2 test chunks per author), the eval's attackers trained on it and each
    author's --profile surrogate, as the eval makes them."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 2, 10)
    train = [c.text for c in split.train], [c.author for c in split.train]
    attackers = {name: cls().fit(*train) for name, cls in ATTACKERS.items()}
    return split, attackers, _surrogates(split, profile=True)


def test_spearman_matches_known_values_and_average_ranks_for_ties():
    # no ties: 1 - 6 * sum(d^2) / (n (n^2 - 1)) with d = (-1, 1, -1, 1, 0): 1 - 24 / 120
    assert guide.spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)
    assert guide.spearman([1, 2, 3], [30, 20, 10]) == pytest.approx(-1.0)
    assert list(guide.ranks([10, 20, 20, 5])) == [2.0, 3.5, 3.5, 1.0]
    # ties: scipy's reference value (scipy comes with scikit-learn, the eval's dependency)
    from scipy.stats import spearmanr

    a, b = [0.1, 0.4, 0.4, 0.2, 0.9, 0.9, 0.3], [3, 1, 2, 2, 7, 5, 5]
    assert guide.spearman(a, b) == pytest.approx(float(spearmanr(a, b).statistic))
    assert guide.spearman([1, 1, 1], [1, 2, 3]) is None and guide.spearman([1], [2]) is None


def test_removing_sentences_keeps_the_rest_and_the_paragraph_breaks():
    text = "One here. Two there.\n\nThree again. Four last."
    assert guide.without(text, [(10, 20)]) == "One here. \n\nThree again. Four last."
    assert guide.without(text, [(0, 9), (35, 45)]) == "Two there.\n\nThree again. "
    assert guide.top_sentences([(0, 1, 0.1), (2, 3, 0.5), (4, 5, 0.5), (6, 7, -0.2)], 3) == [1, 2, 0]


def test_attackers_probabilities_pick_what_they_predict(federalist):
    split, attackers, _ = federalist
    texts = [c.text for c in split.test]
    for attacker in attackers.values():
        p = attacker.probabilities(texts)
        assert p.shape == (len(texts), len(split.authors)) and np.allclose(p.sum(axis=1), 1.0)
        assert [attacker.classes()[i] for i in p.argmax(axis=1)] == attacker.predict(texts)


def test_the_guides_top_sentences_are_the_ones_the_attackers_lean_on(federalist):
    """On held-out chunks, removing the 3 sentences the guide ranks highest lowers each attacker's
    probability of the true author more than removing 3 at random, and that more than removing the
    3 it ranks lowest (a ranking blind to the attackers would put all three alike)."""
    split, attackers, surrogates = federalist
    rng = np.random.default_rng(0)
    for name, attacker in attackers.items():
        top, drawn, bottom = [], [], []
        for chunk in split.test:
            sentences = guide.guide_ranking(surrogates[chunk.author], chunk.text)
            order = guide.top_sentences(sentences, len(sentences))
            variants = [chunk.text] + [
                guide.without(chunk.text, [sentences[i][:2] for i in picked])
                for picked in [order[:3], order[-3:]]
                + [list(rng.choice(len(sentences), 3, replace=False)) for _ in range(guide.RANDOM_DRAWS)]
            ]
            p = attacker.probabilities(variants)[:, attacker.classes().index(chunk.author)]
            top.append(p[0] - p[1])
            bottom.append(p[0] - p[2])
            drawn.append(float(np.mean(p[0] - p[3:])))
        assert np.mean(top) > np.mean(drawn) > np.mean(bottom), name


def test_corpus_figures_have_their_shape_and_random_draws_their_spread(federalist):
    """Each figure checked against the attackers' own answers on the texts it stands for: the original,
    the guide's top k removed, the diligent writer's text (here: the top 3 removed, on every other
    chunk), the eval's rewrite (here: each chunk's text swapped for the next chunk's); the random draws
    differ from each other and with the seed, the guided figures do not."""
    split, attackers, surrogates = federalist
    test = split.test
    authors = [c.author for c in test]
    ranked = [guide.guide_ranking(surrogates[c.author], c.text) for c in test]

    def removed(i: int, k: int) -> str:
        return guide.without(test[i].text, [ranked[i][j][:2] for j in guide.top_sentences(ranked[i], k)])

    replayed = list(range(0, len(test), 2))
    chunks = [
        guide.GuideChunk(
            c.author,
            c.text,
            ranked[i],
            diligent=removed(i, 3) if i in replayed else None,
            scores=(0.8, 0.5 + i / 100) if i in replayed else None,
        )
        for i, c in enumerate(test)
    ]
    swapped = [test[(i + 1) % len(test)].text for i in range(len(test))]
    figures = guide.evaluate_corpus(chunks, attackers, seed=3, rewritten=swapped)
    assert figures["chunks"] == len(test)
    assert figures["sentences_per_chunk"] == pytest.approx(np.mean([len(r) for r in ranked]))
    assert figures["diligent_score"] == {
        "before": pytest.approx(0.8),
        "after": pytest.approx(np.mean([0.5 + i / 100 for i in replayed])),
        "changed": len(replayed),
    }
    of = [authors[i] for i in replayed]
    spread = []
    for name, attacker in attackers.items():
        a = figures["attackers"][name]
        assert a["original"] == attacker.accuracy([c.text for c in test], authors)
        assert set(a["removed"]) == {str(k) for k in guide.REMOVED}
        for k in guide.REMOVED:
            figure = a["removed"][str(k)]
            assert figure["guided"] == attacker.accuracy([removed(i, k) for i in range(len(test))], authors)
            r = figure["random"]
            assert r["min"] - 1e-9 <= r["mean"] <= r["max"] + 1e-9 and r["std"] >= 0.0  # float sums
            spread.append(r["max"] - r["min"])
        d = a["diligent"]
        assert d["chunks"] == len(replayed)
        assert d["original"] == attacker.accuracy([test[i].text for i in replayed], of)
        assert d["diligent"] == attacker.accuracy([removed(i, 3) for i in replayed], of)
        assert d["rewritten"] == attacker.accuracy([swapped[i] for i in replayed], of)
        # rho per chunk: the guide's sentence scores against this attacker's drop in the true author's
        # probability when that sentence alone is removed
        truth = attacker.classes().index(test[0].author)
        p = attacker.probabilities([test[0].text] + [guide.without(test[0].text, [s[:2]]) for s in ranked[0]])
        rho = guide.spearman([s[2] for s in ranked[0]], p[0, truth] - p[1:, truth])
        assert a["spearman"]["per_chunk"][0] == pytest.approx(rho, abs=1e-4)
        measured = [r for r in a["spearman"]["per_chunk"] if r is not None]
        assert a["spearman"]["chunks"] == len(measured) >= 1
        assert a["spearman"]["mean"] == pytest.approx(np.mean(measured), abs=1e-4)
    assert max(spread) > 0.0  # the draws differ from each other
    again = guide.evaluate_corpus(chunks, attackers, seed=3, rewritten=swapped)
    assert again == figures  # seeded: the same draws
    other = guide.evaluate_corpus(chunks, attackers, seed=4, rewritten=swapped)
    draws = {
        seed: [[f["random"] for f in a["removed"].values()] for a in run["attackers"].values()]
        for seed, run in ((3, figures), (4, other))
    }
    assert draws[3] != draws[4]  # another seed, other draws
    for run in (figures, other):  # ... and the same guided figures
        for name in attackers:
            for k in guide.REMOVED:
                guided = run["attackers"][name]["removed"][str(k)]["guided"]
                assert guided == figures["attackers"][name]["removed"][str(k)]["guided"]
    summary = guide.summarize([figures], "none")
    assert set(summary["spearman"]) == set(ATTACKERS)
    assert summary["spearman"] == {name: a["spearman"]["mean"] for name, a in figures["attackers"].items()}
    assert set(summary["goals"]) == {"spearman_at_least_0_5", "guided_removal_of_3_beats_random"}


def test_eval_guide_on_a_small_slice_writes_the_table_report_and_plot(tmp_path, capsys):
    """The command end to end (light strength and typicality: no model and no profile to train, so no
    diligent writer either)."""
    out = tmp_path / "report"
    args = ["eval", "--corpora", "federalist", "--chunks-per-author", "2", "--train-chunks", "8"]
    assert main([*args, "--strength", "light", "--guide", "--out", str(out), "--quiet"]) == 0
    table = capsys.readouterr().out
    assert "removing a sentence stands in for rewriting it" in table
    assert "mean Spearman rho per attacker" in table and "guide goals:" in table
    report = json.loads((out / "eval_report.json").read_text())
    assert report["options"]["guide"] is True
    figures = report["corpora"][0]["guide"]
    assert figures["chunks"] == 6 and set(figures["attackers"]) == set(ATTACKERS)
    assert all("diligent" not in a for a in figures["attackers"].values())  # no embedder, no alternatives
    assert report["guide"]["method"]["note"] == "removing a sentence stands in for the writer rewriting it"
    assert set(report["guide"]["spearman"]) == set(ATTACKERS)
    assert (out / "eval_report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_the_diligent_writer_replays_the_top_sentences_with_the_offered_alternatives(
    tmp_path, capsys, models_in_home, host_llm_dir
):
    """--guide-replay 1 with the real models: the first test chunk of each author is replayed (the best
    offered alternative in each of its top 3 sentences); each accepted alternative lowered the score,
    so the replayed text scores no higher, and the figures sit beside the rewrite's."""
    out = tmp_path / "report"
    args = ["eval", "--corpora", "federalist", "--chunks-per-author", "2", "--train-chunks", "6"]
    assert main([*args, "--profile", "--guide", "--guide-replay", "1", "--out", str(out), "--quiet"]) == 0
    assert "diligent writer: the best alternative" in capsys.readouterr().out
    figures = json.loads((out / "eval_report.json").read_text())["corpora"][0]["guide"]
    moved = figures["diligent_score"]
    # alternatives were offered and accepted (a writer who never accepts one leaves every text as it was
    # and the score where it stood), and each one accepted lowered the score
    assert moved["changed"] >= 1, moved
    assert moved["after"] < moved["before"], moved
    for a in figures["attackers"].values():
        d = a["diligent"]
        assert d["chunks"] == 3 and all(0.0 <= d[k] <= 1.0 for k in ("original", "diligent", "rewritten"))
    assert main([*args, "--guide-replay", "1"]) == 2  # --guide-replay needs --guide

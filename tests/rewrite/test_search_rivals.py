"""`strong` with stored samples and rivals: the search minimizes the profile that contrasts you with
your rivals, and the result says whom it compared you with (reports and the search record)."""

from __future__ import annotations

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.rewrite import RewriteOptions, rewrite
from native_host.style import samples


def test_strong_names_the_rivals_it_compared(rewrite_model_dir, embedder_model_dir):
    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 2, 6)

    def train(author: str) -> list[str]:
        return [c.text for c in split.train if c.author == author]

    samples.add_samples(train("Hamilton"))
    samples.add_rival_samples("Madison", train("Madison"))
    samples.add_rival_samples("Jay", train("Jay"))
    samples.add_rival_samples("One chunk", train("Jay")[:1])  # too little for a contrast of its own
    text = next(c.text for c in split.test if c.author == "Hamilton")
    options = RewriteOptions(
        strength="strong", model_dir=rewrite_model_dir, embedder_dir=embedder_model_dir, llm_windows=False
    )
    result = rewrite(text, options)
    assert result.search is not None and result.search["rivals"] == ["Jay", "Madison"]
    for report in (result.identifiability_before, result.identifiability_after):
        assert report is not None and report["mode"] == "profile" and report["rivals"] == ["Jay", "Madison"]
    assert result.to_json()["identifiability_after"]["rivals"] == ["Jay", "Madison"]
    # the search lowered (never raised) the objective it was given
    assert result.search["objective_after"] <= result.search["objective_before"]

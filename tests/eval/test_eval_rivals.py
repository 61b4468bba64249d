"""`fantasma eval --profile --rivals`: each author's surrogate gets the other candidates' *training*
chunks as rivals (what the attackers hold too), never a test chunk; the report names the setting."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from native_host.cli import main
from native_host.eval.attackers import ATTACKERS
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import EvalOptions, _summarize, _surrogates, format_table, rival_texts, setting
from native_host.style.counting import DocCounts
from native_host.style.identify import Identifiability


@cache
def federalist():
    return split_corpus(find_corpus("federalist", load_manifest()), 3, 3, 6)


def fingerprint(text: str) -> tuple:
    """What a chunk looks like to the surrogate (counts, not text): the same chunk has the same
    fingerprint whatever whitespace or object it travels in."""
    d = DocCounts.from_text(text)
    return (d.n_words, d.n_chars, tuple(sorted(d.words.items())))


def leaked(passed: list[str], split) -> set[tuple]:
    return {fingerprint(t) for t in passed} & {fingerprint(c.text) for c in split.test}


def test_rival_texts_are_the_other_candidates_training_chunks():
    split = federalist()
    for author in split.authors:
        rivals = rival_texts(split, author)
        assert sorted(rivals) == sorted(a for a in split.authors if a != author)
        for other, texts in rivals.items():
            assert {fingerprint(t) for t in texts} == {
                fingerprint(c.text) for c in split.train if c.author == other
            }
            assert len(texts) == 6 and not leaked(texts, split)


def test_the_surrogates_are_given_training_chunks_only(monkeypatch):
    """Spy on what _surrogates hands the model: the rivals' texts of every author, fingerprinted
    against every test chunk. The control (one test chunk slipped in) shows the check can fail."""
    split = federalist()
    calls: list[tuple[list[str], dict[str, list[str]] | None]] = []
    real = Identifiability.from_texts.__func__  # type: ignore[attr-defined]

    def spy(cls, user_texts, *, rival_texts=None, **kwargs):
        calls.append((list(user_texts), rival_texts))
        return real(cls, user_texts, rival_texts=rival_texts, **kwargs)

    monkeypatch.setattr(Identifiability, "from_texts", classmethod(spy))
    surrogates = _surrogates(split, profile=True, rivals=True)
    assert len(calls) == len(split.authors)
    for author, ident in surrogates.items():
        assert ident.mode == "profile"
        assert ident.rivals == sorted(a for a in split.authors if a != author)
    for user_texts, rivals in calls:
        assert rivals is not None and len(rivals) == len(split.authors) - 1
        passed = user_texts + [t for texts in rivals.values() for t in texts]
        assert not leaked(passed, split)
        assert leaked([*passed, split.test[0].text], split)  # the control: a leak is caught
    calls.clear()
    for ident in _surrogates(split, profile=True, rivals=False).values():
        assert ident.rivals == []
    assert all(rivals is None for _, rivals in calls)  # --profile alone: as before, no rivals


def test_the_report_and_table_name_the_setting():
    assert setting(EvalOptions(profile=False)) == "typicality"
    assert setting(EvalOptions(profile=True)) == "--profile"
    assert setting(EvalOptions(profile=True, rivals=True)) == "--profile --rivals"
    corpus = {
        "corpus": "federalist_papers",
        "authors": ["Hamilton", "Madison", "Jay"],
        "train_chunks": 90,
        "test_chunks": 30,
        "chance": 1 / 3,
        "attackers": {name: {"original": 0.8, "rewritten": 0.6} for name in ATTACKERS},
    }
    options = EvalOptions(profile=True, rivals=True, out_dir=Path("unused"))
    report = _summarize(options, [corpus], [], 1.0)
    assert report["options"]["rivals"] is True
    assert report["overall"]["identifiability"]["setting"] == "--profile --rivals"
    assert format_table(report).splitlines()[0] == "surrogate: --profile --rivals"
    plain = _summarize(EvalOptions(profile=True, out_dir=Path("unused")), [corpus], [], 1.0)
    assert format_table(plain).splitlines()[0] == "surrogate: --profile"


def test_rivals_without_profile_is_refused(capsys):
    assert main(["eval", "--corpora", "federalist", "--rivals"]) == 2
    assert "--rivals needs --profile" in capsys.readouterr().err


@pytest.mark.parametrize("rivals", [False, True])
def test_the_population_still_drops_the_corpus_under_test(rivals):
    split = federalist()
    for ident in _surrogates(split, profile=True, rivals=rivals).values():
        assert ident.population is not None
        assert not any(a.startswith(split.corpus + ":") for a in ident.population.authors)

"""`fantasma eval` on a small slice: corpora, attackers and the report's structure."""

from __future__ import annotations

import json

import pytest

from native_host.cli import main
from native_host.eval.attackers import ATTACKERS
from native_host.eval.corpora import CorpusError, chunk_text, find_corpus, load_manifest, split_corpus


def test_corpus_names_and_split():
    manifest = load_manifest()
    assert find_corpus("federalist", manifest)["id"] == "federalist_papers"
    assert find_corpus("brontes", manifest)["id"] == "bronte_sisters"
    with pytest.raises(CorpusError, match="available"):
        find_corpus("no_such_corpus", manifest)
    split = split_corpus(find_corpus("federalist", manifest), 3, 4, 10)
    assert split.authors == ("Hamilton", "Madison", "Jay")  # joint "Hamilton & Madison" texts excluded
    assert len(split.test) == 12 and all(180 <= c.words <= 520 for c in split.test)
    assert not {c.text for c in split.test} & {c.text for c in split.train}


@pytest.mark.parametrize("name", ["federalist", "brontes", "problemC"])
def test_documents_held_out_keep_every_test_document_out_of_training(name):
    corpus = find_corpus(name, load_manifest())
    n_authors = 5 if name == "problemC" else 3
    split = split_corpus(corpus, n_authors, 4, 30, held_out="documents")
    assert len(split.authors) == n_authors
    for author in split.authors:
        test = [c for c in split.test if c.author == author]
        train = [c for c in split.train if c.author == author]
        assert len(test) == 4 and len(train) >= 2, author
        assert not {c.source for c in test} & {c.source for c in train}, author
    # the default split takes test and training chunks from the same documents (what "documents" avoids)
    chunks = split_corpus(corpus, n_authors, 4, 30)
    assert any(
        {c.source for c in chunks.test if c.author == a} & {c.source for c in chunks.train if c.author == a}
        for a in chunks.authors
    )
    with pytest.raises(ValueError, match="held_out"):
        split_corpus(corpus, n_authors, 4, 30, held_out="books")


def test_an_author_with_one_document_cannot_be_held_out_by_documents(tmp_path):
    def prose(word: str, n: int) -> str:  # distinct sentences (a corpus's repeated chunks are dropped)
        return " ".join(f"The {word} counted to {i} again." for i in range(n))

    (tmp_path / "a1.txt").write_text(prose("clerk", 400), encoding="utf-8")
    (tmp_path / "b1.txt").write_text(prose("baker", 250), encoding="utf-8")
    (tmp_path / "b2.txt").write_text(prose("miller", 250), encoding="utf-8")
    corpus = {
        "id": "t",
        "known": [
            {"author": "A", "file": "a1.txt"},
            {"author": "B", "file": "b1.txt"},
            {"author": "B", "file": "b2.txt"},
        ],
    }
    assert len(split_corpus(corpus, 2, 2, 5, root=tmp_path).authors) == 2
    with pytest.raises(CorpusError, match="two documents"):
        split_corpus(corpus, 2, 2, 5, root=tmp_path, held_out="documents")


def test_chunks_unwrap_lines_and_cut_at_sentences():
    text = ("This is a wrapped\nline of text. " * 60) + "\n\nTail."
    chunks = chunk_text(text, words=50)
    assert chunks and all("\n" not in c.replace("\n\n", "") for c in chunks)
    assert all(c.endswith(".") for c in chunks)


def test_attackers_identify_original_authors():
    split = split_corpus(find_corpus("sotu", load_manifest()), 2, 6, 20)
    train = [c.text for c in split.train], [c.author for c in split.train]
    test = [c.text for c in split.test], [c.author for c in split.test]
    for name, cls in ATTACKERS.items():
        accuracy = cls().fit(*train).accuracy(*test)
        assert accuracy >= 0.75, f"{name} is too weak to be a meaningful attacker ({accuracy})"


@pytest.mark.slow
def test_eval_small_slice_report(tmp_path, capsys, models_in_home, host_llm_dir):
    out = tmp_path / "report"
    args = [
        "eval",
        "--corpora",
        "federalist,brontes",
        "--authors",
        "3",
        "--chunks-per-author",
        "4",
        "--train-chunks",
        "12",
        "--strength",
        "light",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(args) == 0
    table = capsys.readouterr().out
    assert (
        "char3" in table and "delta" in table and "function_words" in table and "meaning similarity" in table
    )
    assert "perplexity rewritten/original" in table and "changed_sentences.md" in table

    report = json.loads((out / "eval_report.json").read_text())
    assert [c["corpus"] for c in report["corpora"]] == ["federalist_papers", "bronte_sisters"]
    for corpus in report["corpora"]:
        assert len(corpus["authors"]) == 3 and corpus["test_chunks"] == 12
        assert corpus["chance"] == pytest.approx(1 / 3)
        assert set(corpus["attackers"]) == set(ATTACKERS)
        for acc in corpus["attackers"].values():
            assert 0.0 <= acc["original"] <= 1.0 and 0.0 <= acc["rewritten"] <= 1.0
    overall = report["overall"]
    assert overall["chunks"] == 24 and overall["words"] > 24 * 200
    assert 0.85 <= overall["mean_similarity"] <= 1.0  # the neutralizer barely moves meaning
    assert overall["protected_keep_rate"] == pytest.approx(1.0, abs=0.02)
    assert overall["seconds_per_100_words"] > 0
    # light strength only touches surface markers: as fluent to the model as the original
    assert 0.8 <= overall["perplexity_ratio"] <= 1.2 and overall["max_perplexity_ratio"] < 1.5
    assert set(report["goals"]) == {
        "attackers_20_points_below_original",
        "attackers_within_chance_plus_10",
        "mean_similarity_at_least_0_85",
        "protected_tokens_100_percent",
        "perplexity_ratio_at_most_1_3",
    }
    changed = report["changed_sentences"]
    assert 0 < len(changed["samples"]) <= 20 and changed["changed_places"] >= len(changed["samples"])
    chunks = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    for sample in changed["samples"]:
        chunk = chunks[sample["chunk"]]
        assert sample["original"] != sample["rewritten"]
        assert sample["original"] in " ".join(chunk["original"].split())
        assert sample["rewritten"] in " ".join(chunk["rewritten"].split())
    readable = (out / "changed_sentences.md").read_text()
    assert all(sample["rewritten"].replace("|", "\\|") in readable for sample in changed["samples"])
    assert (out / "eval_report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len((out / "samples.jsonl").read_text().splitlines()) == 24


def test_eval_rejects_bad_arguments(capsys):
    assert main(["eval", "--authors", "1"]) == 2
    assert "--authors" in capsys.readouterr().err
    assert main(["eval", "--corpora", "atlantis"]) == 2
    assert "unknown corpus" in capsys.readouterr().err


@pytest.mark.slow
def test_eval_with_profile_on_five_authors(tmp_path, capsys, models_in_home, host_llm_dir):
    """--profile on the 5-author AAAC problem C: each author's surrogate, trained on that author's
    training chunks, scores the chunks before and after; the table says so."""
    out = tmp_path / "report"
    args = ["eval", "--corpora", "problemC:5", "--chunks-per-author", "1", "--train-chunks", "4"]
    assert main([*args, "--strength", "light", "--profile", "--out", str(out), "--quiet"]) == 0
    table = capsys.readouterr().out
    report = json.loads((out / "eval_report.json").read_text())
    corpus = report["corpora"][0]
    assert corpus["corpus"] == "aaac_problem_c" and len(corpus["authors"]) == 5
    assert corpus["chance"] == pytest.approx(0.2)
    ident = report["overall"]["identifiability"]
    assert ident["mode"] == "profile" and report["options"]["profile"] is True
    assert 0 <= ident["before"] <= 1 and 0 <= ident["after"] <= 1
    assert f"identifiability (profile): {ident['before']:.2f} → {ident['after']:.2f}" in table
    chunks = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(chunks) == 5
    assert all(c["identifiability_before"] is not None and c["perplexity_ratio"] for c in chunks)

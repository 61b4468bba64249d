"""train.compare pools per-corpus eval report dirs into one model's figures and refuses evals that
are not comparable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from native_host.eval.attackers import ATTACKERS
from train.compare import main, pooled


def _report_dir(
    root: Path, name: str, corpus: str, rewritten: float, llm: list[int], model: str = "m", **options
) -> Path:
    out = root / name
    out.mkdir()
    settings = {"strength": "strong", "candidates": 3, "llm_windows": True, "model_dir": model, **options}
    report = {
        "options": {**settings, "corpora": [corpus], "out_dir": str(out)},
        "corpora": [
            {
                "corpus": corpus,
                "attackers": {
                    "char3": {"original": 0.9, "rewritten": rewritten},
                    "delta": {"original": 0.8, "rewritten": rewritten - 0.1},
                },
            }
        ],
    }
    (out / "eval_report.json").write_text(json.dumps(report))
    chunks = [
        {
            "windows": 4,
            "llm_windows": n,
            "similarity": 0.9 + n / 100,
            "perplexity_ratio": 1.1,
            "identifiability_before": 0.9,
            "identifiability_after": 0.8,
            "rejections": {"length": 4 - n},
            "seconds": 10.0,
        }
        for n in llm
    ]
    (out / "samples.jsonl").write_text("".join(json.dumps(c) + "\n" for c in chunks))
    return out


def test_pooled_over_corpora(tmp_path):
    a = _report_dir(tmp_path, "a", "federalist", 0.8, [1, 2])
    b = _report_dir(tmp_path, "b", "brontes", 0.6, [0, 1])
    figures = pooled([a, b])
    assert figures["corpora"] == ["brontes", "federalist"]
    assert figures["attackers"]["char3"]["rewritten"] == pytest.approx(0.7)  # mean over corpora
    assert figures["attackers"]["delta"]["per_corpus"]["brontes"]["rewritten"] == pytest.approx(0.5)
    assert (figures["llm_windows"], figures["windows"]) == (4, 16)  # pooled over chunks, not corpora
    assert figures["min_similarity"] == pytest.approx(0.9)
    assert figures["rejected_by_guard"] == {"length": 12}
    with pytest.raises(ValueError, match="twice"):
        pooled([a, a])


def test_table_and_refusals(tmp_path, capsys):
    base = [_report_dir(tmp_path, f"base-{c}", c, 0.8, [1, 1], "base") for c in ("federalist", "brontes")]
    tuned = [_report_dir(tmp_path, f"tuned-{c}", c, 0.7, [2, 2], "tuned") for c in ("federalist", "brontes")]
    assert main([f"base={base[0]},{base[1]}", f"tuned={tuned[0]},{tuned[1]}"]) == 0
    out = capsys.readouterr().out
    assert "| 4 / 16 (25.0%) | 8 / 16 (50.0%, 2.00×) |" in out
    assert "| **char 3-grams, mean** (original 90.0%) | 80.0% | 70.0% |" in out

    other = _report_dir(tmp_path, "other", "federalist", 0.7, [2], "tuned", candidates=5)
    assert main([f"base={base[0]}", f"tuned={other}"]) == 2
    assert "candidates" in capsys.readouterr().err
    assert main([f"base={base[0]},{base[1]}", f"tuned={tuned[0]}"]) == 2
    assert "different corpora" in capsys.readouterr().err


def test_sign_test():
    from train.compare import sign_test_p

    assert sign_test_p(0, 0) == 1.0
    assert sign_test_p(1, 0) == 1.0  # one chunk: a coin flip
    assert sign_test_p(6, 0) == pytest.approx(2 / 64)
    assert sign_test_p(2, 8) == pytest.approx(2 * (1 + 10 + 45) / 1024)


def test_paired_refits_the_attackers_and_compares_chunk_by_chunk(tmp_path):
    """Model 'copy' leaves every test chunk as it was, model 'swap' hands in another author's test chunk:
    the refitted attackers name the author of (almost) every copied chunk and of no swapped one."""
    from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
    from train.compare import paired

    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 2, 30)
    options = {"corpora": ["federalist"], "authors": 3, "chunks_per_author": 2, "train_chunks_per_author": 30}
    tests = split.test
    dirs = {}
    for label, texts in {
        "copy": [c.text for c in tests],
        "swap": [next(o.text for o in tests if o.author != c.author) for c in tests],
    }.items():
        out = tmp_path / label
        out.mkdir()
        (out / "eval_report.json").write_text(json.dumps({"options": options}))
        lines = [
            {"corpus": split.corpus, "original": c.text, "rewritten": t}
            for c, t in zip(tests, texts, strict=True)
        ]
        (out / "samples.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
        dirs[label] = [out]
    result = paired(dirs)
    assert set(result) == set(ATTACKERS)
    for row in result.values():
        assert row["copy"]["chunks"] == row["swap"]["chunks"] == len(tests) == 6
        assert row["copy"]["named"] >= 4 and row["swap"]["named"] <= 2
        assert row["swap"]["better"] - row["swap"]["worse"] == row["copy"]["named"] - row["swap"]["named"]

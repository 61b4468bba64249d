"""train.compare pools per-corpus eval report dirs into one model's figures and refuses evals that
are not comparable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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

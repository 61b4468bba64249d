"""The pipeline reads the model's class from its model dir: the embedded model keeps the small-model
path exactly (plain prompt, 40-word windows, no LLM windows in medium / strong unless asked); a model dir
whose fantasma_model.json says it is above the size threshold gets the restructuring prompt, windows in
medium by default (sized from its context), and the explicit `llm_windows=False` still turns them off.

"Above the threshold" is the embedded model's own files with `parameters` (and `context_length`) changed
in its fantasma_model.json: the only thing the pipeline reads to decide, so the real model and the real
pipeline run, and what changes is the path taken."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from native_host import models
from native_host.engine import Engine
from native_host.models.size_class import (
    PROMPT_TOKENS,
    RESTRUCTURE_MIN_PARAMETERS,
    RESTRUCTURE_WINDOW_WORDS,
    TOKENS_PER_WORD,
    model_class,
)
from native_host.rewrite import RewriteOptions, llm_windows, rewrite
from native_host.rewrite.windows import MAX_WINDOW_WORDS

pytestmark = pytest.mark.slow

TEXT = (
    "To be fair, I reckon the new parking policy is a bit of a shambles, and at the end of the day nobody "
    "on the committee seems to have read the survey. Honestly, the whole thing was decided in one meeting "
    "that ran for ten minutes. I have asked twice for the figures behind the change and have had no answer."
)


def relabelled(model_dir: Path, into: Path, drop: tuple[str, ...] = (), **meta) -> Path:
    """The model dir with its big files hard-linked and fantasma_model.json changed by `meta` (and
    without the keys in `drop`)."""
    into.mkdir()
    for path in model_dir.iterdir():
        if path.name != "fantasma_model.json":
            os.link(path, into / path.name)
    config = json.loads((model_dir / "fantasma_model.json").read_text())
    config = {k: v for k, v in {**config, **meta}.items() if k not in drop}
    (into / "fantasma_model.json").write_text(json.dumps(config))
    return into


def medium(model_dir: Path, embedder_dir: Path, **options) -> RewriteOptions:
    return RewriteOptions(
        strength="medium", model_dir=model_dir, embedder_dir=embedder_dir, use_profile=False, **options
    )


def prefix_ids(engine: Engine, restructure: bool) -> tuple[int, ...]:
    return tuple(llm_windows.shared_prefix_ids(engine, restructure))


def test_the_embedded_model_is_small_and_keeps_its_path(rewrite_model_dir, embedder_model_dir):
    engine = Engine.load(rewrite_model_dir)
    kind = model_class(engine)
    assert (
        kind.parameters == json.loads((rewrite_model_dir / "fantasma_model.json").read_text())["parameters"]
    )
    assert 130e6 < kind.parameters < 140e6  # SmolLM2-135M
    assert not kind.restructures and kind.window_words == MAX_WINDOW_WORDS == 40
    assert engine.chat_switches == {} and not engine.thinks  # its template has no switch, no think tokens
    result = rewrite(TEXT, medium(rewrite_model_dir, embedder_model_dir))
    assert result.search is not None and result.windows == []  # the search's rule edits only, as before
    warmed = models.get_engine(rewrite_model_dir)
    assert prefix_ids(warmed, False) not in warmed._prefixes  # no window prompt was even built


def test_a_model_above_the_threshold_restructures_in_medium(rewrite_model_dir, embedder_model_dir, tmp_path):
    large = relabelled(rewrite_model_dir, tmp_path / "large", parameters=RESTRUCTURE_MIN_PARAMETERS)
    kind = model_class(Engine.load(large))
    assert kind.restructures and kind.window_words == RESTRUCTURE_WINDOW_WORDS
    result = rewrite(TEXT, medium(large, embedder_model_dir))
    assert result.windows and sum(w.candidates for w in result.windows) >= len(result.windows)
    engine = models.get_engine(large)
    assert prefix_ids(engine, True) in engine._prefixes  # the restructuring prompt, cached for this model
    assert prefix_ids(engine, False) not in engine._prefixes
    # every window candidate the search could pick passed the window guards; whatever it applied passed its own
    assert result.search is not None
    for outcome in result.windows:
        assert (outcome.path == "llm") == bool(outcome.passing)
    # explicitly off is off
    off = rewrite(
        TEXT, RewriteOptions(strength="medium", model_dir=large, use_profile=False, llm_windows=False)
    )
    assert off.windows == []


def test_a_large_model_with_a_short_context_gets_shorter_windows(rewrite_model_dir, tmp_path):
    context = PROMPT_TOKENS + 3 * TOKENS_PER_WORD * 25
    large = relabelled(
        rewrite_model_dir,
        tmp_path / "short",
        parameters=2 * RESTRUCTURE_MIN_PARAMETERS,
        context_length=context,
    )
    assert model_class(Engine.load(large)).window_words == 25


def test_a_model_dir_without_parameters_is_sized_from_its_dimensions(rewrite_model_dir, tmp_path):
    """Exported before the key existed: estimated (vocab·hidden + 12·hidden²·layers), still small."""
    old = relabelled(rewrite_model_dir, tmp_path / "old", drop=("parameters", "chat_template_kwargs"))
    engine = Engine.load(old)
    kind = model_class(engine)
    assert engine.chat_switches == {}
    assert 140e6 < kind.parameters < 150e6 and not kind.restructures

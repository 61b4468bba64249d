"""Rivals in the identifiability model: a corrupt rivals file falls back with a message, and a profile
contrasts you with them (docs/anonymization.md, "Rivals"); their storage is tests/style/test_samples.py."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.style import fitting, identify
from native_host.style.identify import Identifiability
from native_host.style.population import cached_population
from native_host.style.samples import (
    IdentifyError,
    add_rival_samples,
    add_samples,
    clear_rivals,
    default_rivals_path,
    load_rivals,
    rivals_summary,
    samples_from_texts,
)


@cache
def federalist():
    return split_corpus(find_corpus("federalist", load_manifest()), 3, 3, 8)


def texts(author: str, which: str = "train") -> list[str]:
    return [c.text for c in getattr(federalist(), which) if c.author == author]


def test_corrupt_rivals_file_falls_back_to_your_samples_with_a_message():
    add_samples(texts("Hamilton")[:4])
    path = default_rivals_path()
    path.write_bytes(b"\xc1\xc1 garbage")
    with pytest.raises(IdentifyError, match="corrupt"):
        load_rivals()
    with pytest.raises(IdentifyError, match="corrupt"):
        rivals_summary()
    ident = Identifiability.load(profile="stored")  # never an exception out of load()
    assert ident.mode == "profile" and ident.rivals == []
    assert "corrupt" in ident.message and str(path) in ident.message and "without rivals" in ident.message
    report = ident.score(texts("Hamilton", "test")[0])
    assert report.rivals == [] and report.message == ident.message
    # adding a rival never replaces the unreadable file (it holds other people's samples)
    with pytest.raises(IdentifyError, match="corrupt"):
        add_rival_samples("Jay", texts("Jay")[:2])
    with pytest.raises(IdentifyError, match="corrupt"):
        add_rival_samples("Jay", [""])
    assert path.read_bytes() == b"\xc1\xc1 garbage"
    with pytest.raises(IdentifyError):
        clear_rivals("Jay")
    assert clear_rivals() is True


def test_stored_profile_uses_stored_rivals_and_reports_them():
    add_samples(texts("Hamilton")[:6])
    add_rival_samples("Jay", texts("Jay")[:4])
    add_rival_samples("Madison", texts("Madison")[:4])
    add_rival_samples("Lonely", texts("Madison")[4:5])  # one chunk: no contrast of its own
    ident = Identifiability.load(profile="stored")
    assert ident.mode == "profile" and not ident.message
    assert ident.rivals == ["Jay", "Madison"]
    data = ident.score(texts("Hamilton", "test")[0]).to_json()
    assert data["rivals"] == ["Jay", "Madison"]
    # typicality compares with nobody
    assert Identifiability.load().score("Some words of mine.").to_json()["rivals"] == []


def test_samples_in_memory_never_read_the_stored_rivals():
    add_rival_samples("Jay", texts("Jay")[:4])
    samples = samples_from_texts(texts("Hamilton")[:6])
    assert Identifiability.load(samples).rivals == []
    assert Identifiability.from_texts(texts("Hamilton")[:6]).rivals == []


def test_cache_key_depends_on_the_rivals():
    pop = cached_population(None)
    samples = samples_from_texts(texts("Hamilton")[:4])
    jay = samples_from_texts(texts("Jay")[:3])
    madison = samples_from_texts(texts("Madison")[:3])
    none = fitting.profile_cache_key(pop, samples)
    assert fitting.profile_cache_key(pop, samples, {}) == none
    with_jay = fitting.profile_cache_key(pop, samples, {"Jay": jay})
    assert with_jay != none
    assert fitting.profile_cache_key(pop, samples, {"Jay": madison}) != with_jay  # same name, other counts
    assert fitting.profile_cache_key(pop, samples, {"Someone": jay}) != with_jay  # same counts, other name
    assert fitting.profile_cache_key(pop, samples, {"Jay": jay, "Madison": madison}) == (
        fitting.profile_cache_key(pop, samples, {"Madison": madison, "Jay": jay})
    )
    a = Identifiability.from_texts(texts("Hamilton")[:4])
    b = Identifiability.from_texts(texts("Hamilton")[:4], rival_texts={"Jay": texts("Jay")[:3]})
    assert a.models is not b.models and b.rivals == ["Jay"]


def test_rivals_sharpen_the_profile_against_them():
    """With the other candidates as rivals, the surrogate separates its author's held-out chunks from
    theirs by more than the population-only profile does (the point of rivals)."""
    own = texts("Hamilton")
    plain = Identifiability.from_texts(own, exclude_corpora=("federalist_papers",))
    rivals = Identifiability.from_texts(
        own,
        rival_texts={"Jay": texts("Jay"), "Madison": texts("Madison")},
        exclude_corpora=("federalist_papers",),
    )
    assert rivals.rivals == ["Jay", "Madison"]

    def gap(ident: Identifiability) -> float:
        mine = [ident.score(t, sentences=False).score for t in texts("Hamilton", "test")]
        theirs = [ident.score(t, sentences=False).score for a in ("Jay", "Madison") for t in texts(a, "test")]
        return float(np.mean(mine) - np.mean(theirs))

    assert gap(rivals) > gap(plain) > 0


def test_objective_keeps_its_floor_with_rivals():
    """The aim is 'not linked to you', never 'looks like a rival': past Z_FLOOR a family stops
    pulling whatever the rivals are."""
    ident = Identifiability.from_texts(texts("Hamilton"), rival_texts={"Jay": texts("Jay")})
    state = ident.state(texts("Jay", "test")[0])  # a rival's own text: far below the boundary
    zs = state.zs()
    assert min(zs.values()) < identify.Z_FLOOR
    deeper = {f: z - 5 for f, z in zs.items()}
    assert identify.objective(deeper) <= identify.objective(zs)
    assert identify.objective({f: min(z, identify.Z_FLOOR) for f, z in zs.items()}) == identify.objective(
        {f: min(z, identify.Z_FLOOR) - 3 for f, z in zs.items()}
    )


def test_analyze_and_rewrite_lines_name_the_rivals_compared():
    from native_host.commands import _identifiability

    add_samples(texts("Hamilton")[:6])
    add_rival_samples("Jay", texts("Jay")[:3])
    report, why_not = _identifiability.score(texts("Hamilton", "test")[0])
    assert report is not None and not why_not
    assert report["rivals"] == ["Jay"]
    assert (
        _identifiability.describe(report)
        == f"{report['score']:.2f} (compared with your writing samples and Jay)"
    )
    plain, _ = _identifiability.score(texts("Hamilton", "test")[0], use_samples=False)
    assert plain is not None and "rivals" not in _identifiability.describe(plain)

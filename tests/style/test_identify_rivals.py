"""Rivals: other writers' samples stored as counts, validated names, a corrupt file that falls back
with a message, and a profile that contrasts you with them (docs/anonymization.md, "Rivals")."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.style import identify
from native_host.style.identify import Identifiability, IdentifyError


@cache
def federalist():
    return split_corpus(find_corpus("federalist", load_manifest()), 3, 3, 8)


def texts(author: str, which: str = "train") -> list[str]:
    return [c.text for c in getattr(federalist(), which) if c.author == author]


def test_round_trip_keeps_counts_only_and_lists_rivals_by_name():
    jay, madison = texts("Jay")[:3], texts("Madison")[:2]
    assert identify.rivals_summary() == [] and identify.load_rivals() == {}
    assert identify.add_rival_samples("  Jay  ", jay) == 3  # stored under the stripped name
    assert identify.add_rival_samples("Madison", madison) == 2
    assert identify.add_rival_samples("Jay", jay[:1]) == 1  # added to the same rival
    raw = identify.default_rivals_path().read_bytes()
    for text in jay + madison:
        words = text.split()
        assert " ".join(words[10:16]).encode() not in raw  # counts, not the text
    assert identify.default_rivals_path().parent == identify.default_samples_path().parent
    summary = identify.rivals_summary()
    assert [r["name"] for r in summary] == ["Jay", "Madison"]
    assert [r["chunks"] for r in summary] == [4, 2]
    expected_words = sum(identify.DocCounts.from_text(t).n_words for t in madison)
    assert summary[1]["words"] == expected_words > 400
    loaded = identify.load_rivals()
    assert loaded["Madison"][0].words == identify.DocCounts.from_text(madison[0]).words
    assert identify.clear_rivals("Madison") is True
    assert identify.clear_rivals("Madison") is False  # nothing left to clear
    assert [r["name"] for r in identify.rivals_summary()] == ["Jay"]
    assert identify.clear_rivals() is True and not identify.default_rivals_path().exists()
    assert identify.clear_rivals() is False


def test_empty_texts_add_nothing():
    assert identify.add_rival_samples("Nobody", ["", "   "]) == 0
    assert not identify.default_rivals_path().exists()


@pytest.mark.parametrize(
    "name",
    ["", "   ", "x" * (identify.RIVAL_NAME_MAX + 1), "two\nlines", "bell\x07", "tab\there", "line\u2028sep"],
)
def test_bad_names_are_refused_and_store_nothing(name):
    with pytest.raises(ValueError):
        identify.add_rival_samples(name, texts("Jay")[:1])
    assert not identify.default_rivals_path().exists()


def test_names_at_the_limit_and_with_any_script_are_fine():
    for name in ("x" * identify.RIVAL_NAME_MAX, "Zoë Brontë", "山田 太郎", "O'Brien (forum)"):
        assert identify.rival_name(f" {name} ") == name


def test_corrupt_rivals_file_falls_back_to_your_samples_with_a_message():
    identify.add_samples(texts("Hamilton")[:4])
    path = identify.default_rivals_path()
    path.write_bytes(b"\xc1\xc1 garbage")
    with pytest.raises(IdentifyError, match="corrupt"):
        identify.load_rivals()
    with pytest.raises(IdentifyError, match="corrupt"):
        identify.rivals_summary()
    ident = Identifiability.load(profile="stored")  # never an exception out of load()
    assert ident.mode == "profile" and ident.rivals == []
    assert "corrupt" in ident.message and str(path) in ident.message and "without rivals" in ident.message
    report = ident.score(texts("Hamilton", "test")[0])
    assert report.rivals == [] and report.message == ident.message
    # adding a rival never replaces the unreadable file (it holds other people's samples)
    with pytest.raises(IdentifyError, match="corrupt"):
        identify.add_rival_samples("Jay", texts("Jay")[:2])
    with pytest.raises(IdentifyError, match="corrupt"):
        identify.add_rival_samples("Jay", [""])
    assert path.read_bytes() == b"\xc1\xc1 garbage"
    with pytest.raises(IdentifyError):
        identify.clear_rivals("Jay")
    assert identify.clear_rivals() is True


def test_a_rivals_file_of_another_version_is_refused_with_a_clear_message():
    import msgpack

    from native_host import paths

    paths.write_private(identify.default_rivals_path(), msgpack.packb({"version": 99, "rivals": {}}))
    with pytest.raises(IdentifyError, match="different version"):
        identify.load_rivals()


def test_stored_profile_uses_stored_rivals_and_reports_them():
    identify.add_samples(texts("Hamilton")[:6])
    identify.add_rival_samples("Jay", texts("Jay")[:4])
    identify.add_rival_samples("Madison", texts("Madison")[:4])
    identify.add_rival_samples("Lonely", texts("Madison")[4:5])  # one chunk: no contrast of its own
    ident = Identifiability.load(profile="stored")
    assert ident.mode == "profile" and not ident.message
    assert ident.rivals == ["Jay", "Madison"]
    data = ident.score(texts("Hamilton", "test")[0]).to_json()
    assert data["rivals"] == ["Jay", "Madison"]
    # typicality compares with nobody
    assert Identifiability.load().score("Some words of mine.").to_json()["rivals"] == []


def test_samples_in_memory_never_read_the_stored_rivals():
    identify.add_rival_samples("Jay", texts("Jay")[:4])
    samples = identify.samples_from_texts(texts("Hamilton")[:6])
    assert Identifiability.load(samples).rivals == []
    assert Identifiability.from_texts(texts("Hamilton")[:6]).rivals == []


def test_cache_key_depends_on_the_rivals():
    pop = identify._population(None)
    samples = identify.samples_from_texts(texts("Hamilton")[:4])
    jay = identify.samples_from_texts(texts("Jay")[:3])
    madison = identify.samples_from_texts(texts("Madison")[:3])
    none = identify.profile_cache_key(pop, samples)
    assert identify.profile_cache_key(pop, samples, {}) == none
    with_jay = identify.profile_cache_key(pop, samples, {"Jay": jay})
    assert with_jay != none
    assert identify.profile_cache_key(pop, samples, {"Jay": madison}) != with_jay  # same name, other counts
    assert identify.profile_cache_key(pop, samples, {"Someone": jay}) != with_jay  # same counts, other name
    assert identify.profile_cache_key(pop, samples, {"Jay": jay, "Madison": madison}) == (
        identify.profile_cache_key(pop, samples, {"Madison": madison, "Jay": jay})
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

    identify.add_samples(texts("Hamilton")[:6])
    identify.add_rival_samples("Jay", texts("Jay")[:3])
    report, why_not = _identifiability.score(texts("Hamilton", "test")[0])
    assert report is not None and not why_not
    assert report["rivals"] == ["Jay"]
    assert _identifiability.describe(report).startswith(
        f"{report['score']:.2f} (profile vs rivals Jay; char3 "
    )
    plain, _ = _identifiability.score(texts("Hamilton", "test")[0], use_samples=False)
    assert plain is not None and "rivals" not in _identifiability.describe(plain)

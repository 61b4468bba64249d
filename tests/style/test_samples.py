"""Your samples and your rivals' stored as counts (native_host.style.samples): round trips that keep no
text, validated rival names, files of another version refused."""

from __future__ import annotations

import pytest

from native_host.style import samples
from native_host.style.counting import DocCounts
from native_host.style.samples import IdentifyError
from tests.style.test_identify_rivals import texts  # Federalist chunks by author


def test_round_trip_keeps_counts_only_and_lists_rivals_by_name():
    jay, madison = texts("Jay")[:3], texts("Madison")[:2]
    assert samples.rivals_summary() == [] and samples.load_rivals() == {}
    assert samples.add_rival_samples("  Jay  ", jay) == 3  # stored under the stripped name
    assert samples.add_rival_samples("Madison", madison) == 2
    assert samples.add_rival_samples("Jay", jay[:1]) == 1  # added to the same rival
    raw = samples.default_rivals_path().read_bytes()
    for text in jay + madison:
        words = text.split()
        assert " ".join(words[10:16]).encode() not in raw  # counts, not the text
    assert samples.default_rivals_path().parent == samples.default_samples_path().parent
    summary = samples.rivals_summary()
    assert [r["name"] for r in summary] == ["Jay", "Madison"]
    assert [r["chunks"] for r in summary] == [4, 2]
    expected_words = sum(DocCounts.from_text(t).n_words for t in madison)
    assert summary[1]["words"] == expected_words > 400
    loaded = samples.load_rivals()
    assert loaded["Madison"][0].words == DocCounts.from_text(madison[0]).words
    assert samples.clear_rivals("Madison") is True
    assert samples.clear_rivals("Madison") is False  # nothing left to clear
    assert [r["name"] for r in samples.rivals_summary()] == ["Jay"]
    assert samples.clear_rivals() is True and not samples.default_rivals_path().exists()
    assert samples.clear_rivals() is False


def test_empty_texts_add_nothing():
    assert samples.add_rival_samples("Nobody", ["", "   "]) == 0
    assert not samples.default_rivals_path().exists()


@pytest.mark.parametrize(
    "name",
    ["", "   ", "x" * (samples.RIVAL_NAME_MAX + 1), "two\nlines", "bell\x07", "tab\there", "line\u2028sep"],
)
def test_bad_names_are_refused_and_store_nothing(name):
    with pytest.raises(ValueError):
        samples.add_rival_samples(name, texts("Jay")[:1])
    assert not samples.default_rivals_path().exists()


def test_names_at_the_limit_and_with_any_script_are_fine():
    for name in ("x" * samples.RIVAL_NAME_MAX, "Zoë Brontë", "山田 太郎", "O'Brien (forum)"):
        assert samples.rival_name(f" {name} ") == name


def test_a_rivals_file_of_another_version_is_refused_with_a_clear_message():
    import msgpack

    from native_host import paths

    paths.write_private(samples.default_rivals_path(), msgpack.packb({"version": 99, "rivals": {}}))
    with pytest.raises(IdentifyError, match="different version"):
        samples.load_rivals()

"""`fantasma profile add --rival NAME FILE...`, `profile show` and `profile clear [--rival NAME]` as a user
runs them: real subprocesses, a real FANTASMA_HOME; bad names, unreadable files, an unknown rival and a
corrupt rivals file each get one clear line and exit status 2, and store or delete nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.style.samples import RIVAL_NAME_MAX, default_rivals_path, samples_from_texts
from tests.cli.test_identifiability_cli import fantasma


@pytest.fixture(scope="module")
def writing(tmp_path_factory) -> dict[str, list[Path]]:
    """Two files per Federalist author (each two ~250-word chunks): Hamilton is the user."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 1, 4)
    folder = tmp_path_factory.mktemp("federalist")
    files: dict[str, list[Path]] = {}
    for author in ("Hamilton", "Madison", "Jay"):
        texts = [c.text for c in split.train if c.author == author]
        for k in range(0, len(texts), 2):
            path = folder / f"{author}{k}.txt"
            path.write_text("\n\n".join(texts[k : k + 2]), encoding="utf-8")
            files.setdefault(author, []).append(path)
    return files


def summary(name: str, files: list[Path]) -> dict:
    docs = samples_from_texts(f.read_text(encoding="utf-8") for f in files)
    return {"name": name, "chunks": len(docs), "words": sum(d.n_words for d in docs)}


def shown_json(home: Path) -> dict:
    shown = fantasma("profile", "show", "--json", home=home)
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


def test_rivals_added_from_files_and_stdin_shown_and_cleared(isolated_home, writing):
    home = isolated_home
    madison, jay = writing["Madison"], writing["Jay"]
    added = fantasma("profile", "add", "--rival", "Madison", *map(str, madison), home=home)
    assert added.returncode == 0, added.stderr
    want = summary("Madison", madison)
    assert added.stdout.startswith(f"learned {want['chunks']} pieces of ~250 words of Madison's writing")
    assert not (home / "data" / "profile.msgpack").exists()  # a rival's writing is not your profile

    stdin = fantasma("profile", "add", "--rival", " Jay ", "-", home=home, stdin=jay[0].read_bytes())
    assert stdin.returncode == 0, stdin.stderr
    assert fantasma("profile", "add", *map(str, writing["Hamilton"]), home=home).returncode == 0

    as_json = shown_json(home)
    assert as_json["rivals"] == [summary("Jay", jay[:1]), want]
    assert as_json["documents"] == 2
    text = fantasma("profile", "show", home=home).stdout
    assert "People a reader might suspect (rivals): 2\n" in text
    assert f"  Madison: {want['chunks']} pieces of ~250 words, {want['words']} words\n" in text

    cleared = fantasma("profile", "clear", "--rival", "Madison", home=home)
    assert cleared.returncode == 0 and cleared.stdout == "Madison's samples deleted\n"
    assert shown_json(home)["rivals"] == [summary("Jay", jay[:1])]
    again = fantasma("profile", "clear", "--rival", "Madison", home=home)
    assert again.returncode == 2 and "no rival named 'Madison' (rivals: Jay)" in again.stderr
    assert shown_json(home)["documents"] == 2  # your profile is untouched by clearing a rival

    everything = fantasma("profile", "clear", home=home)
    assert everything.stdout == "profile deleted\nrivals' samples deleted\n"
    assert shown_json(home) == {
        "documents": 0,
        "words": 0,
        "habits": [],
        "phrases": [],
        "samples": 0,
        "rivals": [],
    }
    assert "No rivals named" in fantasma("profile", "show", home=home).stdout


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "must not be empty"),
        ("   ", "must not be empty"),
        ("x" * (RIVAL_NAME_MAX + 1), f"at most {RIVAL_NAME_MAX} characters"),
        ("Ann\tLee", "control characters"),
        ("Ann\u2028Lee", "line breaks"),
    ],
)
def test_a_bad_rival_name_is_refused_before_anything_is_stored(isolated_home, writing, name, why):
    for args in (("add", "--rival", name, str(writing["Jay"][0])), ("clear", "--rival", name)):
        result = fantasma("profile", *args, home=isolated_home)
        assert result.returncode == 2 and why in result.stderr, result
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert not default_rivals_path().exists()


def test_an_unreadable_file_stores_nothing_of_the_rival(isolated_home, writing, tmp_path):
    binary = tmp_path / "photo.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    for bad in (str(binary), str(tmp_path / "missing.txt")):
        result = fantasma("profile", "add", "--rival", "Jay", str(writing["Jay"][0]), bad, home=isolated_home)
        assert result.returncode == 2 and result.stderr.startswith("fantasma profile add: ")
    assert not default_rivals_path().exists()
    assert shown_json(isolated_home)["rivals"] == []


def test_a_corrupt_rivals_file_is_reported_and_kept(isolated_home, writing):
    path = default_rivals_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xc1 corrupt")
    added = fantasma("profile", "add", "--rival", "Jay", str(writing["Jay"][0]), home=isolated_home)
    assert added.returncode == 2 and "Traceback" not in added.stderr
    assert added.stderr.startswith("fantasma profile add: cannot read the rivals' samples: ")
    removed = fantasma("profile", "clear", "--rival", "Jay", home=isolated_home)
    assert removed.returncode == 2
    assert removed.stderr.startswith("fantasma profile clear: cannot read the rivals' samples: ")
    assert path.read_bytes() == b"\xc1 corrupt"

    assert shown_json(isolated_home)["rivals"] is None
    assert "Rivals' samples: unreadable (" in fantasma("profile", "show", home=isolated_home).stdout
    assert fantasma("profile", "clear", home=isolated_home).returncode == 0
    assert not path.exists()

"""Rivals through the host (PROTOCOL.md `profile.*`), over real pipes: other people's samples added with
`profile.add {"rival"}`, listed in `profile.show` / `profile.add`, removed one by one or all at once;
bad names are `invalid_params` and store nothing; a corrupt rivals file is `storage_error` and kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.host.errors import ErrorCode
from native_host.style.samples import RIVAL_NAME_MAX, default_rivals_path, samples_from_texts

PROTOCOL = Path(__file__).resolve().parents[2] / "PROTOCOL.md"


@pytest.fixture(scope="module")
def chunks() -> dict[str, list[str]]:
    """~250-word chunks of the three Federalist authors: the user is Hamilton, the rivals the others."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 1, 3)
    by_author: dict[str, list[str]] = {}
    for chunk in split.train:
        by_author.setdefault(chunk.author, []).append(chunk.text)
    return by_author


def expected(name: str, texts: list[str]) -> dict:
    """What the summary must say of a rival learned from `texts`: the storage's own chunking."""
    docs = samples_from_texts(texts)
    return {"name": name, "chunks": len(docs), "words": sum(d.n_words for d in docs)}


def error_code(reply: dict) -> int:
    assert reply["type"] == "error", reply
    return reply["error"]["code"]


def test_rivals_are_added_listed_and_removed_one_by_one(host, chunks):
    madison, jay, hamilton = chunks["Madison"], chunks["Jay"], chunks["Hamilton"]
    assert host.result("profile.show") == {"profile": None, "rivals": []}

    mine = host.result("profile.add", {"text": hamilton[0]}, timeout=60)
    assert mine["rivals"] == [] and mine["profile"]["documents"] == 1

    added = host.result("profile.add", {"text": "\n\n".join(madison[:2]), "rival": "Madison"}, timeout=60)
    assert added["rivals"] == [expected("Madison", ["\n\n".join(madison[:2])])]
    assert added["rivals"][0]["chunks"] >= 2
    assert added["profile"] == mine["profile"]  # a rival's writing never enters your profile

    # Names are stripped; the list is sorted by name; more of one rival's writing adds to it.
    host.result("profile.add", {"text": jay[0], "rival": "  Jay "}, timeout=60)
    shown = host.result("profile.add", {"text": madison[2], "rival": "Madison"}, timeout=60)
    assert shown["rivals"] == [
        expected("Jay", [jay[0]]),
        expected("Madison", ["\n\n".join(madison[:2]), madison[2]]),
    ]
    assert host.result("profile.show") == shown

    assert host.result("profile.clear", {"rival": "Madison"}) == {
        "cleared": True,
        "rivals": [expected("Jay", [jay[0]])],
    }
    assert host.result("profile.clear", {"rival": "Madison"})["cleared"] is False  # already gone
    assert host.result("profile.show")["profile"] == mine["profile"]  # yours is untouched

    assert host.result("profile.clear", {}) == {"cleared": True}  # everything: yours and every rival's
    assert host.result("profile.show") == {"profile": None, "rivals": []}
    assert not default_rivals_path().exists()


def test_a_rival_alone_needs_no_profile_of_yours(host, chunks):
    added = host.result("profile.add", {"text": chunks["Jay"][0], "rival": "J" * RIVAL_NAME_MAX}, timeout=60)
    assert added["profile"] is None and added["rivals"][0]["name"] == "J" * RIVAL_NAME_MAX
    assert host.result("profile.show")["profile"] is None
    # `rival: null` is the same as no rival: the sample is yours.
    mine = host.result("profile.add", {"text": chunks["Hamilton"][0], "rival": None}, timeout=60)
    assert mine["profile"]["documents"] == 1 and len(mine["rivals"]) == 1


def test_the_scores_compare_you_with_the_rivals_the_host_stores(host, chunks):
    """What the rivals are for: once stored, `analyze` and `rewrite` say whom the score compared you with."""
    hamilton, text = chunks["Hamilton"], chunks["Hamilton"][-1]
    host.result("profile.add", {"text": "\n\n".join(hamilton[:2])}, timeout=60)
    host.result("profile.add", {"text": "\n\n".join(chunks["Madison"][:2]), "rival": "Madison"}, timeout=60)
    host.result("profile.add", {"text": "\n\n".join(chunks["Jay"][:2]), "rival": "Jay"}, timeout=60)
    report = host.result("analyze", {"text": text}, timeout=60)["identifiability"]
    assert report["mode"] == "profile" and sorted(report["rivals"]) == ["Jay", "Madison"]
    rewrite = host.result("rewrite", {"text": text, "options": {"strength": "light"}}, timeout=90)
    assert sorted(rewrite["identifiability_after"]["rivals"]) == ["Jay", "Madison"]

    host.result("profile.clear", {"rival": "Jay"})
    assert host.result("analyze", {"text": text}, timeout=60)["identifiability"]["rivals"] == ["Madison"]


BAD_NAMES = [
    5,
    1.5,
    True,
    [],
    {"name": "x"},
    "",
    "   ",
    "x" * (RIVAL_NAME_MAX + 1),
    "a\nb",
    "a\tb",
    "nul\x00",
    "line\u2028break",
]


@pytest.mark.parametrize("kind", ["profile.add", "profile.clear"])
def test_a_bad_rival_name_is_invalid_params_and_stores_nothing(host, chunks, kind):
    host.result("profile.add", {"text": chunks["Jay"][0], "rival": "Jay"}, timeout=60)
    before = default_rivals_path().read_bytes()
    for bad in BAD_NAMES:
        reply = host.request(kind, {"text": chunks["Madison"][0], "rival": bad}, timeout=60)
        assert error_code(reply) == ErrorCode.invalid_params, (bad, reply)
        assert "params.rival" in reply["error"]["message"]
    assert default_rivals_path().read_bytes() == before
    assert host.result("profile.show") == {"profile": None, "rivals": [expected("Jay", [chunks["Jay"][0]])]}
    host.assert_alive()


def test_a_corrupt_rivals_file_is_a_storage_error_and_kept(host, chunks):
    path = default_rivals_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    garbage = b"\xc1 not the rivals"
    path.write_bytes(garbage)

    reply = host.request("profile.add", {"text": chunks["Jay"][0], "rival": "Jay"}, timeout=60)
    assert error_code(reply) == ErrorCode.storage_error and "rivals" in reply["error"]["message"]
    reply = host.request("profile.clear", {"rival": "Jay"})
    assert error_code(reply) == ErrorCode.storage_error
    assert path.read_bytes() == garbage  # nothing lost: other people's samples are not ours to drop

    # Your own profile still works; the rivals show as unreadable (null).
    mine = host.result("profile.add", {"text": chunks["Hamilton"][0]}, timeout=60)
    assert mine["profile"]["documents"] == 1 and mine["rivals"] is None
    assert host.result("profile.show")["rivals"] is None
    host.result("profile.add", {"text": chunks["Hamilton"][1]}, timeout=60)
    report = host.result("analyze", {"text": chunks["Hamilton"][2]}, timeout=60)["identifiability"]
    assert report["mode"] == "profile" and report["rivals"] == [] and "rival" in report["message"]

    assert host.result("profile.clear", {}) == {"cleared": True}
    assert not path.exists()
    assert host.result("profile.show") == {"profile": None, "rivals": []}


def test_protocol_documents_rivals_as_the_host_checks_them():
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("### `profile.show`, `profile.add`, `profile.clear`", 1)[1].split("\n### ", 1)[0]
    words = " ".join(section.split())
    assert f"A name is a string of 1–{RIVAL_NAME_MAX} characters" in words
    for field in (
        '"rival": "Ann"',
        '"rivals": [{"name": "Ann", "chunks": 3, "words": 760}]',
        '{"rival": "Ann"}',
    ):
        assert field in words, field

"""The writing profile built from the browser: the options page sends pasted and picked samples to the
real host (profile.add), shows what is distinctive (profile.show) and clears it (profile.clear); the
people a reader might suspect (rivals) are added, listed and removed the same way; the popup shows the
last rewrite's identifiability figure. Without the host, the page says so and keeps the user's input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.style.identify import MIN_RIVAL_CHUNKS

from .harness import EXTENSION_ID, SAMPLE, Browser, host_request
from .server import PageServer

OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"
POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"


@pytest.fixture(scope="module")
def writing() -> list[str]:
    """Real writing of one author (Hamilton's Federalist chunks, ~250 words each): the user's samples."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 2, 2, 6)
    return [c.text for c in split.train if c.author == "Hamilton"]


@pytest.fixture
def options(browser: Browser, host_home: Path):
    assert host_request(host_home, "profile.clear", {})["type"] == "result"
    page = browser.context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(OPTIONS)
    yield page
    page.close()
    host_request(host_home, "profile.clear", {})


@pytest.fixture(scope="module")
def others() -> dict[str, list[str]]:
    """Real writing of two other Federalist authors (~250-word chunks): the people a reader might suspect."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 1, 3)
    return {author: [c.text for c in split.train if c.author == author] for author in ("Madison", "Jay")}


def shown_rivals(host_home: Path) -> list[dict] | None:
    reply = host_request(host_home, "profile.show", {})
    assert reply["type"] == "result", reply
    return reply["result"]["rivals"]


def shown_profile(host_home: Path) -> dict | None:
    reply = host_request(host_home, "profile.show", {})
    assert reply["type"] == "result", reply
    return reply["result"]["profile"]


def test_profile_from_pasted_and_picked_samples_then_cleared(
    options: Page, host_home: Path, writing: list[str], tmp_path: Path, artifacts: Path
) -> None:
    page = options
    summary = page.locator("#profile-summary")
    expect(summary).to_contain_text("No profile yet", timeout=15_000)

    page.fill("#profile-sample", writing[0])
    page.click("#profile-add")
    expect(page.locator("#profile-status")).to_have_text("Learned from 1 sample.", timeout=30_000)
    expect(page.locator("#profile-sample")).to_have_value("")
    stored = shown_profile(host_home)
    assert stored is not None and stored["documents"] == 1 and stored["samples"] == 1
    expect(summary).to_contain_text(f"Learned from 1 text, {stored['words']} words.")
    expect(summary).to_contain_text("1 of the 2 pieces")  # the model needs more before it is used

    files = []
    for k, text in enumerate(writing[1:4]):
        files.append(tmp_path / f"essay{k}.txt")
        files[-1].write_text(text, encoding="utf-8")
    page.set_input_files("#profile-files", [str(f) for f in files])
    page.click("#profile-add")
    expect(page.locator("#profile-status")).to_have_text("Learned from 3 samples.", timeout=30_000)
    stored = shown_profile(host_home)
    assert stored["documents"] == 4 and stored["samples"] == 4
    expect(summary).to_contain_text(f"Learned from 4 texts, {stored['words']} words.")
    expect(summary).to_contain_text("4 pieces of about 250 words train the identifiability model.")
    if stored["habits"]:
        expect(page.locator("#profile-habits li")).to_have_count(len(stored["habits"]))
        expect(page.locator("#profile-habits li").first).to_contain_text(stored["habits"][0]["label"])
    page.screenshot(path=str(artifacts / "options-profile.png"), full_page=True)

    # What the host now scores against: the samples sent from the page.
    analyzed = host_request(host_home, "analyze", {"text": writing[4]})
    assert analyzed["result"]["identifiability"]["mode"] == "profile"

    # A reloaded page shows the stored profile.
    page.reload()
    expect(summary).to_contain_text(f"Learned from 4 texts, {stored['words']} words.", timeout=15_000)

    page.click("#profile-clear")
    expect(page.locator("#profile-status")).to_have_text("Profile cleared.", timeout=15_000)
    expect(summary).to_contain_text("No profile yet")
    assert shown_profile(host_home) is None


def test_a_file_that_is_not_text_is_refused_and_the_pasted_sample_kept(
    options: Page, host_home: Path, tmp_path: Path
) -> None:
    page = options
    expect(page.locator("#profile-summary")).to_contain_text("No profile yet", timeout=15_000)
    binary = tmp_path / "photo.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    page.fill("#profile-sample", SAMPLE)
    page.set_input_files("#profile-files", str(binary))
    page.click("#profile-add")
    expect(page.locator("#profile-status")).to_have_text(
        "photo.txt looks like a binary file; pick a .txt file."
    )
    expect(page.locator("#profile-status")).to_have_attribute("data-kind", "error")
    expect(page.locator("#profile-sample")).to_have_value(SAMPLE)
    assert shown_profile(host_home) is None  # nothing was sent

    page.set_input_files("#profile-files", [])
    page.fill("#profile-sample", "")
    page.click("#profile-add")
    expect(page.locator("#profile-status")).to_have_text("Paste a sample or pick a text file first.")


def test_popup_shows_the_last_rewrites_identifiability(
    browser: Browser, page: Page, server: PageServer, host_home: Path
) -> None:
    browser.set_settings(strength="light")
    oracle = host_request(host_home, "rewrite", {"text": SAMPLE, "options": {"strength": "light"}})["result"]
    before, after = oracle["identifiability_before"], oracle["identifiability_after"]
    page.goto(server.url("textarea.html"))
    page.fill("#field", SAMPLE)
    browser.menu(page, "#field", "fantasma-anonymize")
    expect(page.locator("#field")).to_have_value(oracle["text"], timeout=15_000)

    popup = browser.context.new_page()
    popup.goto(POPUP)
    figure = popup.locator("#last-rewrite-figure")
    expect(figure).to_have_text(oracle["summary"]["headline"], timeout=10_000)  # in words (tests/summary)
    # the number on demand: closed until the person opens it, then the digits `fantasma rewrite` prints
    number = popup.locator("#last-rewrite-number")
    assert number.get_attribute("open") is None
    number.locator("summary").click()
    expect(number).to_contain_text(f"identifiability {before['score']:.2f} → {after['score']:.2f}")
    popup.close()


def test_the_content_script_gets_the_figure_with_the_rewrite(browser: Browser, host_home: Path) -> None:
    """What the job port hands the page after a rewrite: the host's result plus its figure."""
    browser.set_settings(strength="light")
    oracle = host_request(host_home, "rewrite", {"text": SAMPLE, "options": {"strength": "light"}})["result"]
    result = browser.sw.evaluate("(text) => fantasmaBackground.runJob({ kind: 'rewrite', text }, {})", SAMPLE)
    assert result["text"] == oracle["text"]
    before, after = oracle["identifiability_before"], oracle["identifiability_after"]
    figure = result["identifiability"]
    assert {k: figure[k] for k in ("before", "after", "linkedBy", "mode")} == {
        "before": before["score"],
        "after": after["score"],
        "linkedBy": after["linked_by"],
        "mode": after["mode"],
    }
    assert figure["text"].startswith(f"identifiability {before['score']:.2f} → {after['score']:.2f} · ")


def test_unreadable_rivals_are_said_so_kept_on_add_and_cleared_with_the_profile(
    options: Page, host_home: Path, others: dict[str, list[str]]
) -> None:
    page = options
    stored = host_home / "data" / "identify_rivals.msgpack"  # where the host keeps them (FANTASMA_HOME)
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_bytes(b"\xc1 not the rivals")
    page.reload()
    note, status = page.locator("#rivals-note"), page.locator("#rivals-status")
    expect(note).to_have_text(
        "The rivals' samples cannot be read; “Clear my profile” deletes them.", timeout=15_000
    )

    page.fill("#rival-name", "Jay")
    page.fill("#rival-sample", others["Jay"][0])
    page.click("#rival-add")
    expect(status).to_contain_text(
        re.compile("^the pasted sample: cannot read the rivals' samples: "), timeout=30_000
    )
    expect(status).to_have_attribute("data-kind", "error")
    expect(page.locator("#rival-sample")).to_have_value(others["Jay"][0])  # kept for another try
    assert stored.read_bytes() == b"\xc1 not the rivals"  # other people's samples are not dropped

    page.click("#profile-clear")
    expect(page.locator("#profile-status")).to_have_text("Profile cleared.", timeout=15_000)
    expect(note).to_have_text("No one named yet: rewrites compare you with writers in general.")
    assert not stored.exists() and shown_rivals(host_home) == []


def test_the_figure_after_a_rewrite_says_how_many_people_it_compared_you_with(
    browser: Browser, host_home: Path, writing: list[str], others: dict[str, list[str]]
) -> None:
    browser.set_settings(strength="light")
    try:
        host_request(host_home, "profile.add", {"text": "\n\n".join(writing[:3])})
        for name, texts in others.items():
            host_request(host_home, "profile.add", {"text": "\n\n".join(texts[:2]), "rival": name})
        text = writing[4]
        oracle = host_request(host_home, "rewrite", {"text": text, "options": {"strength": "light"}})[
            "result"
        ]
        after = oracle["identifiability_after"]
        assert after["mode"] == "profile" and sorted(after["rivals"]) == ["Jay", "Madison"]
        result = browser.sw.evaluate(
            "(text) => fantasmaBackground.runJob({ kind: 'rewrite', text }, {})", text
        )
        figure = result["identifiability"]
        assert figure["rivals"] == after["rivals"]
        assert figure["text"].endswith(" · compared with 2 people you named")
    finally:
        host_request(host_home, "profile.clear", {})


def test_without_the_host_the_profile_section_says_how_to_install_it(browser_without_host: Browser) -> None:
    page = browser_without_host.context.new_page()
    page.goto(OPTIONS)
    status = page.locator("#profile-status")
    expect(status).to_contain_text(re.compile("not installed.*fantasma-host install"), timeout=15_000)
    page.fill("#profile-sample", SAMPLE)
    page.click("#profile-add")
    expect(status).to_contain_text(re.compile("the pasted sample: .*not installed"), timeout=15_000)
    expect(page.locator("#profile-sample")).to_have_value(SAMPLE)  # nothing the user typed is lost
    page.close()


def test_rivals_added_from_the_page_listed_removed_and_cleared_with_the_profile(
    options: Page,
    host_home: Path,
    writing: list[str],
    others: dict[str, list[str]],
    tmp_path: Path,
    artifacts: Path,
) -> None:
    page = options
    asked: list[str] = []
    page.on("dialog", lambda dialog: asked.append(dialog.message))  # the fixture accepts them
    section = page.locator("#rivals")
    note, status, rows = (
        page.locator("#rivals-note"),
        page.locator("#rivals-status"),
        page.locator("#rivals-list tbody tr"),
    )
    expect(note).to_have_text(
        "No one named yet: rewrites compare you with writers in general.", timeout=15_000
    )
    expect(section.locator("legend")).to_have_text("People a reader might suspect")
    expect(section.locator(".hint")).to_contain_text("never that it looks like one of them")
    expect(page.locator("#rivals-list")).to_be_hidden()

    # A name first; nothing is sent without one.
    page.fill("#rival-sample", others["Madison"][0])
    page.click("#rival-add")
    expect(status).to_have_text("Give the person's name first.")
    assert shown_rivals(host_home) == []

    page.fill("#rival-name", "Madison")
    page.click("#rival-add")
    expect(status).to_have_text("Learned from 1 sample of Madison's writing.", timeout=30_000)
    expect(page.locator("#rival-sample")).to_have_value("")
    expect(page.locator("#rival-name")).to_have_value("")

    files = []
    for k, text in enumerate(others["Jay"][:2]):
        files.append(tmp_path / f"jay{k}.txt")
        files[-1].write_text(text, encoding="utf-8")
    page.fill("#rival-name", "  Jay ")
    page.set_input_files("#rival-files", [str(f) for f in files])
    page.click("#rival-add")
    expect(status).to_have_text("Learned from 2 samples of Jay's writing.", timeout=30_000)

    stored = shown_rivals(host_home)
    assert stored is not None and [r["name"] for r in stored] == ["Jay", "Madison"]
    assert stored[0]["chunks"] >= MIN_RIVAL_CHUNKS and stored[1]["chunks"] == 1
    assert shown_profile(host_home) is None  # other people's writing never enters your profile
    expect(rows).to_have_count(2)
    for row, rival in zip([rows.nth(0), rows.nth(1)], stored, strict=True):
        few = rival["chunks"] < MIN_RIVAL_CHUNKS  # stored, but not compared with until it has two
        chunks = f"{rival['chunks']} (counts from {MIN_RIVAL_CHUNKS})" if few else str(rival["chunks"])
        expect(row.locator("td")).to_have_text([rival["name"], chunks, str(rival["words"]), "Remove"])
    expect(note).to_have_text("")
    page.screenshot(path=str(artifacts / "options-rivals.png"), full_page=True)

    page.reload()  # what the host holds, not what the page remembers
    expect(rows).to_have_count(2, timeout=15_000)

    page.locator('#rivals-list tr[data-rival="Madison"] button').click()
    expect(status).to_have_text("Madison removed.", timeout=15_000)
    assert asked[-1] == "Remove what Fantasma learned of Madison's writing?"
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-rival", "Jay")
    assert shown_rivals(host_home) == stored[:1]

    # Clear all: your profile and every rival, after one confirmation that says so.
    page.fill("#profile-sample", writing[0])
    page.click("#profile-add")
    expect(page.locator("#profile-status")).to_have_text("Learned from 1 sample.", timeout=30_000)
    expect(rows).to_have_count(1)  # the reply's rivals are shown again, still Jay
    page.click("#profile-clear")
    expect(page.locator("#profile-status")).to_have_text("Profile cleared.", timeout=15_000)
    assert asked[-1] == (
        "Delete everything Fantasma learned about your writing, and the writing of the people you named?"
    )
    expect(note).to_have_text("No one named yet: rewrites compare you with writers in general.")
    expect(page.locator("#rivals-list")).to_be_hidden()
    assert shown_rivals(host_home) == [] and shown_profile(host_home) is None

"""Other people's writing on a page as "people a reader might suspect": the page and selection menu items
collect only other people's prose (never the reply box, menus, forms or hidden parts) and the real host
stores it as one rival per site (counts only); a selection inside a field, or too little text, adds
nothing and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus

from .harness import Browser, host_request
from .server import PageServer

RIVAL = "Page: 127.0.0.1"


@pytest.fixture(scope="module")
def writing() -> dict[str, list[str]]:
    """Real ~250-word chunks: Madison's are the other posters', Hamilton's the user's own draft."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 2, 1, 4)
    return {a: [c.text for c in split.train if c.author == a] for a in ("Hamilton", "Madison")}


@pytest.fixture
def thread(browser: Browser, server: PageServer, host_home: Path, writing: dict[str, list[str]]):
    assert host_request(host_home, "profile.clear", {})["type"] == "result"
    page = browser.context.new_page()
    page.goto(server.url("thread.html"))
    posts = writing["Madison"][:3]
    page.evaluate(
        """([posts, draft]) => {
          posts.forEach((text, i) => { document.querySelector(`#post-${i} .body`).textContent = text; });
          // a reply that quotes the first post: the quote must not count twice
          document.querySelector("#post-2 blockquote").textContent = posts[0];
          document.querySelector("#body").value = draft;
        }""",
        [posts, " ".join(writing["Hamilton"][:2])],
    )
    yield page, posts
    page.close()
    host_request(host_home, "profile.clear", {})


def add_suspects(browser: Browser, scope: str) -> dict:
    return browser.sw.evaluate(
        """async (scope) => {
          const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
          return await fantasmaBackground.addSuspects(scope, { frameId: 0 }, tab);
        }""",
        scope,
    )


def rivals(host_home: Path) -> list[dict]:
    reply = host_request(host_home, "profile.show", {})
    assert reply["type"] == "result", reply
    return reply["result"]["rivals"]


def test_page_writing_is_added_without_the_reply_box_menus_or_hidden_parts(
    browser: Browser, thread: tuple[Page, list[str]], host_home: Path
) -> None:
    page, posts = thread
    page.bring_to_front()
    told = add_suspects(browser, "page")
    assert "error" not in told, told
    # exactly the three posts: no nav, form, footer, hidden note, author names, repeated quote or draft
    assert told["words"] == sum(len(p.split()) for p in posts), told
    assert told["name"] == RIVAL and told["chunks"] >= 2, told
    assert "Added" in told["message"] and RIVAL in told["message"]
    stored = [r for r in rivals(host_home) if r["name"] == RIVAL]
    assert len(stored) == 1 and stored[0]["chunks"] == told["chunks"], stored
    # the same page again adds to the same person, it does not make a second one
    again = add_suspects(browser, "page")
    assert again["chunks"] > told["chunks"] and [r["name"] for r in rivals(host_home)] == [RIVAL]


def test_a_selection_in_the_reply_box_or_too_short_adds_nothing(
    browser: Browser, thread: tuple[Page, list[str]], host_home: Path
) -> None:
    page, _ = thread
    page.bring_to_front()
    page.evaluate(
        "() => { const f = document.querySelector('#body'); f.focus(); f.setSelectionRange(0, 400); }"
    )
    told = add_suspects(browser, "selection")
    assert "text field" in told["message"], told
    assert rivals(host_home) == []

    # a rich editor's draft (contenteditable), selected from inside
    page.evaluate(
        """() => {
          const editor = Object.assign(document.createElement('div'), { contentEditable: 'true' });
          editor.textContent = document.querySelector('#body').value;
          document.querySelector('#reply').after(editor);
          editor.focus();
          const range = document.createRange();
          range.selectNodeContents(editor);
          getSelection().removeAllRanges();
          getSelection().addRange(range);
        }"""
    )
    told = add_suspects(browser, "selection")
    assert "text field" in told["message"], told
    assert rivals(host_home) == []

    page.evaluate(
        """() => {
          document.activeElement.blur();
          const range = document.createRange();
          range.selectNodeContents(document.querySelector('#post-1 .body'));
          getSelection().removeAllRanges();
          getSelection().addRange(range);
        }"""
    )
    told = add_suspects(browser, "selection")
    assert "Nothing was added" in told["message"] and "at least 500" in told["message"], told
    assert rivals(host_home) == []

    page.evaluate(
        """() => {
          const range = document.createRange();
          range.setStartBefore(document.querySelector('#post-0'));
          range.setEndAfter(document.querySelector('#post-1'));
          getSelection().removeAllRanges();
          getSelection().addRange(range);
        }"""
    )
    told = add_suspects(browser, "selection")
    assert told.get("name") == RIVAL and told["chunks"] >= 2, told

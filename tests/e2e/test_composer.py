"""The private composer: an extension window where the user writes; the page sees nothing of it until
Insert, and then only the text in the composer's box. What it says of its target and of Insert, and that
it fits the window it opens in."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .harness import EXTENSION_DIR, EXTENSION_ID, SAMPLE, Browser, host_request
from .server import PageServer


@pytest.fixture(scope="module", autouse=True)
def default_settings_afterwards(browser: Browser) -> Iterator[None]:
    """Later modules expect a fresh profile's settings (auto-rewrite off)."""
    yield
    browser.set_settings()


# Everything a page can observe of its own field and document: events, the field's value, DOM changes.
SPY = """() => {
  window.seen = [];
  const field = document.getElementById("field");
  for (const type of ["keydown", "keypress", "keyup", "beforeinput", "input", "paste", "compositionstart",
                      "compositionupdate", "change", "select", "focus", "blur"]) {
    document.addEventListener(type, (e) => seen.push(type + ":" + (e.data ?? e.key ?? "")), true);
  }
  new MutationObserver((records) => seen.push("mutation:" + records.length))
    .observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true });
  window.values = new Set();
  setInterval(() => values.add(field.value), 5);
}"""


def open_composer(browser: Browser, page: Page) -> Page:
    """The context menu's "Write privately…" on the field (right-click, then the menu's handler)."""
    with browser.context.expect_page() as opened:
        browser.menu(page, "#field", "fantasma-compose")
    composer = opened.value
    composer.wait_for_load_state()
    assert composer.url.startswith(f"chrome-extension://{EXTENSION_ID}/composer/composer.html")
    return composer


def test_text_typed_in_the_composer_never_reaches_the_page_before_insert(
    browser: Browser, page: Page, server: PageServer, light: str, host_home: Path
) -> None:
    browser.set_settings(strength="light")
    oracle = host_request(host_home, "rewrite", {"text": SAMPLE, "options": {"strength": "light"}})["result"]
    page.goto(server.url("textarea.html"))
    composer = open_composer(browser, page)
    page.evaluate(SPY)

    composer.locator("#draft").press_sequentially(SAMPLE, delay=2)  # real keys, in the extension's window
    composer.click("#rewrite")
    expect(composer.locator("#rewritten")).to_have_text(light, timeout=15_000)
    expect(composer.locator("#rewrite-headline")).to_have_text(
        oracle["summary"]["headline"]
    )  # the card's words
    before, after = oracle["identifiability_before"]["score"], oracle["identifiability_after"]["score"]
    expect(composer.locator("#identifiability")).to_contain_text(
        f"identifiability {before:.2f} → {after:.2f}"
    )

    # Up to here the page has seen nothing: no event, no value, no change to its document.
    page.wait_for_timeout(200)
    assert page.evaluate("window.seen") == []
    assert page.evaluate("[...window.values]") == [""]

    # Insert puts in the text in the box: the rewrite only once it is put there.
    composer.click("#use-rewrite")
    expect(composer.locator("#draft")).to_have_value(light)
    expect(composer.locator("#insert")).to_be_enabled()
    with composer.expect_event("close"):
        composer.click("#insert")
    expect(page.locator("#field")).to_have_value(light)
    values = page.evaluate("[...window.values]")
    assert values in ([""], ["", light]), values  # the original never was in the field, not for 5 ms
    assert SAMPLE not in "".join(page.evaluate("window.seen"))


def test_composer_from_the_keyboard_shortcut_inserts_into_the_focused_field_with_auto_rewrite_on(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    """Opened with the shortcut on the focused field; with auto-rewrite on, the inserted rewrite is posted
    as it is (it is already the extension's rewrite: no second rewrite, exactly once)."""
    page.goto(server.url("form.html"))
    page.focus("#field")
    with auto.context.expect_page() as opened:
        auto.command("open-composer")
    composer = opened.value
    composer.locator("#draft").fill(SAMPLE)
    composer.click("#rewrite")
    composer.click("#use-rewrite", timeout=15_000)
    expect(composer.locator("#draft")).to_have_value(light)
    # The meter's last request (after a pause in typing) has answered: no job starts after this.
    expect(composer.locator("body")).to_have_attribute("data-guide", "done", timeout=30_000)
    jobs = auto.sw.evaluate("fantasmaBackground.stats.jobs")
    with composer.expect_event("close"):
        composer.click("#insert")
    expect(page.locator("#field")).to_have_value(light)
    page.bring_to_front()
    with page.expect_navigation(timeout=15_000):
        page.locator("#field").press("Enter")
    assert server.posts == [{"message": light}]
    assert auto.sw.evaluate("fantasmaBackground.stats.jobs") == jobs  # nothing rewritten twice


def composer_window_size() -> tuple[int, int]:
    """The width and height background.js opens the composer's window with."""
    source = (EXTENSION_DIR / "background.js").read_text(encoding="utf-8")
    match = re.search(r"composer/composer\.html.*?width: (\d+),\s*height: (\d+)", source, re.S)
    assert match, "the composer's window size is not found in background.js"
    return int(match.group(1)), int(match.group(2))


def fits(composer: Page) -> dict:
    """The page's content size against the window's inner size (no scroll bar needed when it fits)."""
    return composer.evaluate(
        """() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth,
                   scrollHeight: document.documentElement.scrollHeight, innerHeight,
                   insertBottom: document.querySelector('#insert').getBoundingClientRect().bottom })"""
    )


def assert_fits(composer: Page) -> None:
    size = fits(composer)
    assert size["scrollWidth"] <= size["innerWidth"], size
    assert size["scrollHeight"] <= size["innerHeight"], size
    assert size["insertBottom"] <= size["innerHeight"], size  # Insert is in sight without scrolling


@pytest.mark.parametrize(
    ("page_name", "selector", "target"),
    [
        ("form.html", "#field", "the text box on chat form"),  # name="message": not a name for a person
        ("thread.html", "#body", "“Your reply” on a forum thread"),  # the field's own <label>
    ],
)
def test_the_composer_names_its_target_as_a_person_would_and_fits_its_window(
    browser: Browser, page: Page, server: PageServer, page_name: str, selector: str, target: str
) -> None:
    page.goto(server.url(page_name))
    with browser.context.expect_page() as opened:
        browser.menu(page, selector, "fantasma-compose")
    composer = opened.value
    composer.wait_for_load_state()
    expect(composer.locator("#target")).to_have_text(target)
    assert "127.0.0.1" not in composer.locator("#privacy").inner_text()
    expect(composer.locator("#insert")).to_be_disabled()  # nothing typed yet, and it says so
    expect(composer.locator("#insert-why")).to_have_text("Insert is off until there is text in the box.")
    composer.locator("#draft").press_sequentially("Hello there.")
    expect(composer.locator("#insert")).to_be_enabled()
    expect(composer.locator("#insert-why")).to_have_text("")
    # Headless, Playwright gives every page its own viewport: the test sets the size of the window the
    # background opens (its outer size, read from background.js; the inner one is smaller still) and a
    # smaller one. The content fits both without a scroll bar (Firefox measures its real window).
    opened_w, opened_h = composer_window_size()
    for width, height in ((opened_w, opened_h), (opened_w - 80, opened_h - 100)):
        composer.set_viewport_size({"width": width, "height": height})
        assert_fits(composer)
    composer.close()


def test_a_composer_opened_without_a_field_does_not_offer_insert_and_says_why(browser: Browser) -> None:
    composer = browser.context.new_page()
    composer.goto(f"chrome-extension://{EXTENSION_ID}/composer/composer.html")
    composer.locator("#draft").fill("Some text to go nowhere.")
    expect(composer.locator("#insert")).to_be_disabled()
    expect(composer.locator("#insert-why")).to_contain_text("not opened from a text field")
    expect(composer.locator("#privacy")).to_contain_text(
        "not opened from a text field, so it has nowhere to insert"
    )
    composer.close()

"""The private composer: an extension window where the user writes; the page sees nothing of it until
Insert, and then only the rewrite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .harness import EXTENSION_ID, SAMPLE, Browser, host_request
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
    expect(composer.locator("#insert")).to_be_disabled()  # nothing to insert before a rewrite
    composer.click("#show-markers")
    expect(composer.locator("#marked mark").first).to_be_visible(timeout=15_000)
    composer.click("#rewrite")
    expect(composer.locator("#rewritten")).to_have_text(light, timeout=15_000)
    before, after = oracle["identifiability_before"]["score"], oracle["identifiability_after"]["score"]
    expect(composer.locator("#identifiability")).to_contain_text(
        f"identifiability {before:.2f} → {after:.2f}"
    )

    # Up to here the page has seen nothing: no event, no value, no change to its document.
    page.wait_for_timeout(200)
    assert page.evaluate("window.seen") == []
    assert page.evaluate("[...window.values]") == [""]

    # Editing the draft makes the rewrite stale: Insert is off until the next rewrite.
    composer.locator("#draft").press("End")
    composer.locator("#draft").press_sequentially(" :)")
    expect(composer.locator("#insert")).to_be_disabled()
    composer.locator("#draft").press("Backspace")
    composer.locator("#draft").press("Backspace")
    composer.locator("#draft").press("Backspace")
    composer.click("#rewrite")
    expect(composer.locator("#insert")).to_be_enabled(timeout=15_000)

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
    expect(composer.locator("#insert")).to_be_enabled(timeout=15_000)
    jobs = auto.sw.evaluate("fantasmaBackground.stats.jobs")
    with composer.expect_event("close"):
        composer.click("#insert")
    expect(page.locator("#field")).to_have_value(light)
    page.bring_to_front()
    with page.expect_navigation(timeout=15_000):
        page.locator("#field").press("Enter")
    assert server.posts == [{"message": light}]
    assert auto.sw.evaluate("fantasmaBackground.stats.jobs") == jobs  # nothing rewritten twice

"""After a rewrite, the card beside the field and the popup say what happened in plain words: the host's
`summary` (PROTOCOL.md `rewrite`) — what changed, whether the text is harder to link to you and by how
much, the one next step — and never a family code ("char3", "delta", "function_words"). The card lives in
a closed shadow root; PageUi reads it as the browser's inspector does."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from tests.summary.test_words import assert_no_code

from .harness import EXTENSION_ID, Browser, PageUi, host_request
from .server import PageServer

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"
# Many habits (slang, shouting, emoji, !!!, British spelling): the summary has something to report.
TEXT = "OMG the colour of the new logo is SO gorgeous!!! :) tbh I'd ship it tmrw, innit... Cheers, mate."


def test_the_card_and_the_popup_show_the_summary_and_no_family_code(
    browser: Browser, page: Page, server: PageServer, host_home: Path, artifacts: Path
) -> None:
    browser.set_settings(strength="light")
    oracle = host_request(host_home, "rewrite", {"text": TEXT, "options": {"strength": "light"}})["result"]
    words = oracle["summary"]
    assert words["next_step"] and words["details"], words  # light, no samples: there is advice to show

    page.goto(server.url("textarea.html"))
    page.fill("#field", TEXT)
    browser.menu(page, "#field", "fantasma-anonymize")
    expect(page.locator("#field")).to_have_value(oracle["text"], timeout=15_000)
    card = PageUi(page).wait_for("figure", words["headline"])

    def shown(text: str) -> str:  # `a command` is shown as code: the same characters, without the marks
        return text.replace("`", "")

    for detail in words["details"]:
        assert shown(detail) in card, (detail, card)
    assert shown(f"Next: {words['next_step']}") in card
    assert words["identifiability"]["text"] in card  # the digits `fantasma rewrite` prints
    assert_no_code(card)
    page.screenshot(path=str(artifacts / "summary-card.png"))

    popup = browser.context.new_page()
    popup.goto(POPUP)
    expect(popup.locator("#last-rewrite-figure")).to_have_text(words["headline"], timeout=10_000)
    expect(popup.locator("#last-rewrite-next")).to_have_text(shown(f"Next: {words['next_step']}"))
    assert_no_code(popup.locator("#last-rewrite").inner_text())
    popup.screenshot(path=str(artifacts / "popup-summary.png"))
    popup.close()

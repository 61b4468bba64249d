"""Without the host registered: nothing is edited, nothing is posted, the user is told why."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .harness import EXTENSION_ID, Browser, PageUi
from .server import PageServer

ORIGINAL = "Honestly, I realise this colour is gorgeous!!! :)"


def test_popup_says_not_installed_with_the_install_command(browser_without_host: Browser, artifacts) -> None:
    page = browser_without_host.context.new_page()
    page.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
    status = page.locator("#status")
    expect(status).to_have_attribute("data-state", "not_installed", timeout=10_000)
    expect(page.locator("#install-command")).to_have_text("fantasma-host install")
    page.screenshot(path=str(artifacts / "popup-not-installed.png"))
    page.close()


def test_anonymize_leaves_field_untouched_and_shows_error(
    browser_without_host: Browser, server: PageServer
) -> None:
    browser_without_host.set_settings()
    page = browser_without_host.context.new_page()
    page.goto(server.url("textarea.html"))
    page.fill("#field", ORIGINAL)
    browser_without_host.menu(page, "#field", "fantasma-anonymize")
    text = PageUi(page).wait_for("message", "", timeout=10)
    assert re.search("not installed", text, re.I), text
    expect(page.locator("#field")).to_have_value(ORIGINAL)
    # ... and as a browser notification.
    notifications = browser_without_host.sw.evaluate("chrome.notifications.getAll()")
    assert len(notifications) >= 1
    page.close()


def test_auto_rewrite_blocks_the_post_and_can_send_original(
    browser_without_host: Browser, server: PageServer
) -> None:
    browser_without_host.set_settings(autoRewrite=True)
    server.clear()
    page = browser_without_host.context.new_page()
    page.goto(server.url("form.html"))
    page.fill("#field", ORIGINAL)
    page.locator("#field").press("Enter")
    ui = PageUi(page)
    text = ui.wait_for("message", "Not sent", timeout=10)
    assert re.search("not installed", text, re.I), text
    expect(page.locator("#field")).to_have_value(ORIGINAL)
    page.wait_for_timeout(300)
    assert server.posts == [], "the post must be blocked when the host is missing"

    # The send button is blocked too (form submit interception).
    ui.click("message", "Dismiss")
    ui.wait_gone("message")
    page.click("#send")
    ui.wait_for("message", "Not sent", timeout=10)
    page.wait_for_timeout(300)
    assert server.posts == []

    # The user can still send the original deliberately.
    with page.expect_navigation():
        ui.click("message", "Send original")
    assert server.posts == [{"message": ORIGINAL}]
    page.close()

"""The options page and the popup show the keyboard shortcuts the browser has in effect
(`commands.getAll()`), in Chromium and Firefox ESR; a missing key, or one Firefox keeps for itself (the
old Alt+Shift+F opens its File menu), comes with how to set another, and "Change shortcuts…" opens the
browser's own shortcut page. Firefox lets the test change a binding (`commands.update`), so there the
pages are shown to follow the binding, not the manifest."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from .harness import EXTENSION_DIR, EXTENSION_ID, GECKO_ID, Browser
from .test_firefox import FirefoxSession, firefox  # noqa: F401  (the module's Firefox fixture)

pytestmark = pytest.mark.e2e

MANIFEST = json.loads((EXTENSION_DIR / "manifest.json").read_text())


def linux_key(command: str) -> str:
    keys = MANIFEST["commands"][command]["suggested_key"]
    return keys.get("linux", keys["default"])


def readable(shortcut: str) -> str:
    return shortcut.removesuffix("Period").removesuffix("Comma") + (
        "." if shortcut.endswith("Period") else "," if shortcut.endswith("Comma") else ""
    )


# ---- Chromium ---------------------------------------------------------------------------------------


def test_chromium_options_and_popup_show_the_bound_keys(browser: Browser, page: Page) -> None:
    bound = {c["name"]: c["shortcut"] for c in browser.sw.evaluate("chrome.commands.getAll()")}
    assert bound["anonymize-field"] == linux_key("anonymize-field")
    for url in ("options/options.html", "popup/popup.html"):
        page.goto(f"chrome-extension://{EXTENSION_ID}/{url}")
        box = page.locator("[data-shortcuts]")
        expect(box).to_have_attribute("data-state", "ok")
        for name in ("anonymize-field", "show-markers", "open-composer"):
            expect(box.locator(f'li[data-command="{name}"] kbd')).to_have_text(readable(bound[name]))
    page.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
    expect(page.locator("#shortcuts")).to_contain_text("chrome://extensions/shortcuts")
    with browser.context.expect_page() as opened:
        page.get_by_role("button", name="Change shortcuts…").click()
    expect(opened.value).to_have_url("chrome://extensions/shortcuts")
    opened.value.close()


# ---- Firefox ESR ------------------------------------------------------------------------------------


@pytest.fixture
def ff(firefox: FirefoxSession) -> Iterator[FirefoxSession]:  # noqa: F811
    yield firefox
    firefox.extension_eval('browser.commands.reset("anonymize-field").then(() => true)')


def shown(ff: FirefoxSession, context: str) -> dict:
    """What the page's shortcuts box says, rendered again from commands.getAll()."""
    return ff.bidi.evaluate(
        context,
        """import("/options/shortcuts.js").then(async (m) => {
             const box = document.querySelector("[data-shortcuts]");
             await m.renderShortcuts(box);
             const line = box.querySelector('li[data-command="anonymize-field"]');
             return { state: box.dataset.state, line: line.textContent, problem: line.dataset.problem ?? null,
                      text: box.textContent, button: !!box.querySelector("button") };
           })""",
    )


def test_firefox_options_and_popup_follow_the_binding(ff: FirefoxSession) -> None:
    options = ff.extension_page
    said = shown(ff, options)
    assert said["state"] == "ok" and said["line"].startswith(linux_key("anonymize-field")), said

    ff.extension_eval(
        'browser.commands.update({ name: "anonymize-field", shortcut: "Ctrl+Shift+U" }).then(() => true)'
    )
    said = shown(ff, options)
    assert said["line"].startswith("Ctrl+Shift+U") and said["state"] == "ok", said

    ff.extension_eval('browser.commands.update({ name: "anonymize-field", shortcut: "" }).then(() => true)')
    said = shown(ff, options)
    assert said["problem"] == "unset" and "not set" in said["line"], said
    assert "Manage Extension Shortcuts" in said["text"] and said["button"], said

    ff.extension_eval(
        'browser.commands.update({ name: "anonymize-field", shortcut: "Alt+Shift+F" }).then(() => true)'
    )
    said = shown(ff, options)
    assert said["problem"] == "taken" and "Firefox keeps Alt+Shift+F for itself" in said["line"], said

    # The popup (opened as a tab: BiDi cannot open the toolbar popup) says the same, with how to fix it.
    url = ff.chrome_eval(f"WebExtensionPolicy.getByID({json.dumps(GECKO_ID)}).getURL('popup/popup.html')")
    ff.chrome_eval(
        f"""gBrowser.addTab({json.dumps(url)},
             {{ triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal() }}) && true"""
    )
    popup = wait_for_context(ff, url)
    said = shown(ff, popup)
    assert said["state"] == "trouble" and said["problem"] == "taken", said
    assert "Manage Extension Shortcuts" in said["text"] and said["button"], said

    # "Change shortcuts…" opens about:addons (its shortcuts view).
    ff.bidi.evaluate(popup, "document.querySelector('[data-shortcuts] button').click() ?? true")
    addons = "gBrowser.tabs.some((tab) => tab.linkedBrowser.currentURI.spec.startsWith('about:addons'))"
    ff.bidi.wait_for(ff.chrome, addons, timeout=15)


def wait_for_context(ff: FirefoxSession, url: str, timeout: float = 15.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        for ctx in ff.bidi.send("browsingContext.getTree", {})["contexts"]:
            if ctx["url"] == url:
                ready = 'typeof browser !== "undefined" && document.readyState === "complete"'
                try:
                    if ff.bidi.evaluate(ctx["context"], ready):
                        return ctx["context"]
                except Exception:  # the document is being replaced
                    pass
        assert time.monotonic() < deadline, f"no tab with {url}"
        time.sleep(0.1)

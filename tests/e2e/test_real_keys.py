"""The default shortcuts and the context menu with real input, in headed Chromium and Firefox ESR under
Xvfb. Keys and clicks are X events (xdotool, XTEST): the browser handles them as a keyboard's and a
mouse's, so its own shortcut handling, menubar access keys and native context menu are in the path —
BiDi and the DevTools protocol reach only the page. Each test reads the binding the manifest suggests
for Linux, checks the browser put exactly that binding in effect (`commands.getAll()`: a browser that
refuses a key leaves it empty), presses it, and checks the rewrite lands (the host's own answer is the
oracle). The context menu is opened with a real right click and its item chosen with real keys."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, Worker, expect

from .bidi import Firefox
from .harness import EXTENSION_DIR, SAMPLE, PageUi, launch, register_host, service_worker
from .server import PageServer
from .test_firefox import FIREFOX, FirefoxSession
from .xdisplay import XDisplay, xdotool_keys

pytestmark = pytest.mark.e2e

COMMANDS = ("anonymize-field", "show-markers", "open-composer")
COMPOSER_PAGE = (
    "/composer/composer.html?"  # the composer window's page (extension/background.js openComposer)
)


def manifest_binding(command: str) -> str:
    """The key the manifest suggests for `command` on Linux."""
    manifest = json.loads((EXTENSION_DIR / "manifest.json").read_text())
    keys = manifest["commands"][command]["suggested_key"]
    return keys.get("linux", keys["default"])


def assert_bound_as_the_manifest_says(bound: dict[str, str]) -> None:
    want = {name: manifest_binding(name) for name in COMMANDS}
    assert {name: bound.get(name) for name in COMMANDS} == want, (
        "the browser did not take the manifest's keys"
    )


# ---- Chromium ---------------------------------------------------------------------------------------


class HeadedChromium:
    def __init__(self, display: XDisplay, context: BrowserContext) -> None:
        self.display = display
        self.context = context
        self.sw: Worker = service_worker(context)
        self.page: Page = context.pages[0] if context.pages else context.new_page()
        self.window = display.windows()[0]

    def bound(self) -> dict[str, str]:
        return {c["name"]: c["shortcut"] for c in self.sw.evaluate("chrome.commands.getAll()")}

    def screen_point(self, selector: str) -> tuple[float, float]:
        """A point inside the element, in screen coordinates (no window manager: no frame around the window)."""
        return tuple(
            self.page.evaluate(
                """(selector) => { const r = document.querySelector(selector).getBoundingClientRect();
                  return [screenX + (outerWidth - innerWidth) / 2 + r.x + 20,
                          screenY + (outerHeight - innerHeight) + r.y + 20]; }""",
                selector,
            )
        )

    def click_into(self, selector: str, button: int = 1) -> None:
        """The window gets the X focus, then a real click on the element (as a user clicks into the field)."""
        self.display.focus(self.window)
        self.display.click(*self.screen_point(selector), button=button)


@pytest.fixture(scope="module")
def chromium(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory, host_home: Path
) -> Iterator[HeadedChromium]:
    display = XDisplay()
    try:
        user_data_dir = tmp_path_factory.mktemp("chromium_headed_profile")
        register_host(user_data_dir / "NativeMessagingHosts", "chromium", host_home)
        context = launch(playwright_instance, user_data_dir, headless=False, env=display.env)
        try:
            browser = HeadedChromium(display, context)
            browser.sw.evaluate(
                "chrome.storage.local.clear().then(() => chrome.storage.local.set({ strength: 'light' }))"
            )
            yield browser
        finally:
            context.close()
    finally:
        display.close()


def test_chromium_default_shortcuts_with_real_keys(
    chromium: HeadedChromium, server: PageServer, light: str
) -> None:
    assert_bound_as_the_manifest_says(chromium.bound())
    page = chromium.page
    page.goto(server.url("textarea.html"))
    page.fill("#field", SAMPLE)
    chromium.click_into("#field")
    expect(page.locator("#field")).to_be_focused()

    chromium.display.key(xdotool_keys(manifest_binding("anonymize-field")))
    expect(page.locator("#field")).to_have_value(light, timeout=30_000)
    # The job ends with its figure, after the edit's read-back: a field refilled before that would read as
    # "the editor ignored the edit", and that job's late message would replace the markers panel.
    PageUi(page).wait_for("figure", timeout=30)

    page.fill("#field", SAMPLE)
    chromium.display.key(xdotool_keys(manifest_binding("show-markers")))
    PageUi(page).wait_for("markers", "British", timeout=30)

    chromium.display.key(xdotool_keys(manifest_binding("open-composer")))
    # The composer's own page, loaded in a window of its own, for a tab's field: not a counter in the
    # background bumped before `windows.create` (that would pass with no window at all).
    deadline = time.monotonic() + 30
    while not (composers := [p for p in chromium.context.pages if COMPOSER_PAGE in p.url]):
        assert time.monotonic() < deadline, "the composer shortcut opened no composer window"
        page.wait_for_timeout(100)  # lets Playwright take in the new page (time.sleep would not)
    (composer,) = composers
    expect(composer.locator("#draft")).to_be_visible(timeout=10_000)
    assert re.search(r"[?&]tab=\d+&frame=\d+", composer.url), composer.url  # for a field in a tab
    popups = chromium.sw.evaluate(
        """chrome.windows.getAll({ populate: true, windowTypes: ["popup"] })
             .then((all) => all.flatMap((w) => w.tabs.map((t) => t.url)))"""
    )
    assert [url for url in popups if COMPOSER_PAGE in url] == [composer.url]
    chromium.sw.evaluate(
        """chrome.windows.getAll({ windowTypes: ["popup"] }).then((all) =>
             Promise.all(all.map((w) => chrome.windows.remove(w.id))))"""
    )


def test_chromium_context_menu_with_real_mouse_and_keys(
    chromium: HeadedChromium, server: PageServer, light: str
) -> None:
    page = chromium.page
    page.goto(server.url("textarea.html"))
    page.evaluate("window.menus = 0; addEventListener('contextmenu', () => menus++)")
    # Chromium's menu takes a letter as the first item starting with it: "F" is our submenu ("Fantasma —
    # writing-style anonymizer"), Right opens it on its first item, "Anonymize writing style". The page
    # cannot see the native menu open: when the "f" lands in the field instead, the menu was not open yet,
    # and the right click is tried again.
    for attempt in range(3):
        page.fill("#field", SAMPLE)
        chromium.click_into("#field", button=3)
        page.wait_for_function(f"menus > {attempt}", timeout=10_000)
        page.wait_for_timeout(500 * (attempt + 1))
        chromium.display.key("f")
        page.wait_for_timeout(300)
        if page.input_value("#field") == SAMPLE:
            break
        chromium.display.key("Escape")
    else:
        raise AssertionError("Chromium's context menu never took the keys")
    chromium.display.key("Right")
    page.wait_for_timeout(200)
    chromium.display.key("Return")
    expect(page.locator("#field")).to_have_value(light, timeout=30_000)


# ---- Firefox ESR ------------------------------------------------------------------------------------


class HeadedFirefox(FirefoxSession):
    def __init__(self, display: XDisplay, firefox: Firefox) -> None:
        super().__init__(firefox)
        self.display = display
        self.window = display.windows()[0]

    def bound(self) -> dict[str, str]:
        return {c["name"]: c["shortcut"] for c in self.extension_eval("browser.commands.getAll()")}

    def screen_point(self, selector: str) -> tuple[float, float]:
        return tuple(
            self.bidi.evaluate(
                self.page,
                f"""(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();
                  return [mozInnerScreenX + r.x + 20, mozInnerScreenY + r.y + 20]; }})()""",
            )
        )

    def click_into(self, selector: str, button: int = 1) -> None:
        # A menu a failed test left open (the File menu, say) would take the click.
        self.chrome_eval(
            """[...document.querySelectorAll("menupopup")].filter((p) => p.state === "open")
                 .forEach((p) => p.hidePopup()) ?? true"""
        )
        self.display.focus(self.window)
        self.display.click(*self.screen_point(selector), button=button)

    def fill(self, text: str) -> None:
        self.bidi.evaluate(
            self.page, f"(document.querySelector('#field').value = {json.dumps(text)}) && true"
        )

    def wait_value(self, text: str, timeout: float = 30) -> None:
        self.bidi.wait_for(
            self.page, f"document.querySelector('#field').value === {json.dumps(text)}", timeout
        )

    def active_menu_item(self) -> tuple[str, str]:
        """(tag, id) of the highlighted item of the open context menu (read only)."""
        return tuple(
            self.chrome_eval(
                """(() => { const item = document.querySelector("#contentAreaContextMenu > [_moz-menuactive]");
                     return item ? [item.localName, item.id] : ["", ""]; })()"""
            )
        )


@pytest.fixture(scope="module")
def firefox_headed(tmp_path_factory: pytest.TempPathFactory, host_home: Path) -> Iterator[HeadedFirefox]:
    if not Path(FIREFOX).exists():
        pytest.fail("firefox-esr is missing: run scripts/install-system-deps.sh (make test-install does)")
    display = XDisplay()
    try:
        home = tmp_path_factory.mktemp("firefox_headed_home")
        register_host(home / ".mozilla" / "native-messaging-hosts", "firefox", host_home)
        profile = tmp_path_factory.mktemp("firefox_headed_profile")
        browser = Firefox(FIREFOX, profile, home, {}, headless=False, env=display.env)
        try:
            session = HeadedFirefox(display, browser)
            session.extension_eval(
                'browser.storage.local.clear().then(() => browser.storage.local.set({ strength: "light" })).then(() => true)'
            )
            session.bidi.send("browsingContext.activate", {"context": session.page})
            yield session
        finally:
            browser.close()
    finally:
        display.close()


def test_firefox_default_shortcuts_with_real_keys(
    firefox_headed: HeadedFirefox, server: PageServer, light: str
) -> None:
    ff = firefox_headed
    assert_bound_as_the_manifest_says(ff.bound())
    ff.bidi.navigate(ff.page, server.url("textarea.html"))
    ff.fill(SAMPLE)
    ff.click_into("#field")
    ff.bidi.wait_for(ff.page, "document.hasFocus() && document.activeElement.id === 'field'", timeout=10)

    ff.display.key(xdotool_keys(manifest_binding("anonymize-field")))
    try:
        ff.wait_value(light)
    except Exception as error:
        menus = ff.chrome_eval(
            "[...document.querySelectorAll('#main-menubar > menu')].filter((m) => m.open).map((m) => m.id)"
        )
        raise AssertionError(
            f"the shortcut did not rewrite the field; Firefox menus opened: {menus}"
        ) from error
    ff.wait_ui("", "figure", timeout=30)  # the job is over (see the Chromium test)

    ff.fill(SAMPLE)
    ff.display.key(xdotool_keys(manifest_binding("show-markers")))
    ff.wait_ui("British", "markers", timeout=30)

    ff.display.key(xdotool_keys(manifest_binding("open-composer")))
    # The composer's own page loaded in a popup window (see the Chromium test): not a counter.
    deadline = time.monotonic() + 30
    while not (
        composers := [
            c["context"]
            for c in ff.bidi.send("browsingContext.getTree", {})["contexts"]
            if COMPOSER_PAGE in c["url"]
        ]
    ):
        assert time.monotonic() < deadline, "the composer shortcut opened no composer window"
        time.sleep(0.1)
    assert len(composers) == 1, composers
    ff.bidi.wait_for(
        composers[0], "document.readyState === 'complete' && document.activeElement?.id === 'draft'"
    )
    popups = ff.extension_eval(
        """browser.windows.getAll({ populate: true, windowTypes: ["popup"] })
             .then((all) => all.flatMap((w) => w.tabs.map((t) => t.url)))"""
    )
    assert len([url for url in popups if COMPOSER_PAGE in url]) == 1, popups
    ff.extension_eval(
        """browser.windows.getAll({ windowTypes: ["popup"] }).then((all) =>
             Promise.all(all.map((w) => browser.windows.remove(w.id)))).then(() => true)"""
    )


def test_firefox_context_menu_with_real_mouse_and_keys(
    firefox_headed: HeadedFirefox, server: PageServer, light: str
) -> None:
    ff = firefox_headed
    ff.bidi.navigate(ff.page, server.url("textarea.html"))
    ff.fill(SAMPLE)
    ff.click_into("#field", button=3)
    ff.bidi.wait_for(
        ff.chrome, 'document.getElementById("contentAreaContextMenu").state === "open"', timeout=10
    )
    # Down through Firefox's menu to our submenu, Right into it, Enter on "Anonymize writing style"; the
    # menu's state is only read between the real key presses.
    for _ in range(40):
        ff.display.key("Down")
        active = ff.active_menu_item()
        if active[0] == "menu" and active[1].startswith("fantasma_fantasma-project_org-menuitem-"):
            break
    else:
        raise AssertionError(f"our submenu was never reached in Firefox's context menu (last: {active!r})")
    ff.display.key("Right")
    ff.bidi.wait_for(
        ff.chrome,
        """(() => { const active = [...document.querySelectorAll("#contentAreaContextMenu [_moz-menuactive]")];
             return active.length > 1 && active[active.length - 1].id.endsWith("_fantasma-anonymize"); })()""",
        timeout=10,
    )
    ff.display.key("Return")
    ff.wait_value(light)

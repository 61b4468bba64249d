"""Tabs that were open before the extension was updated (issues 36 and 45), in Chromium and Firefox ESR.
An update cuts off the content scripts in open tabs: Chromium keeps the old copy running without a
background and puts no new one in; Firefox stops the old copy and puts a new one in by itself, leaving
the old copy's boxes in the page. Each browser loads the extension from a build folder of its own; an
update writes the next build there (a new version and changed content-script code: each build's scripts
say their version, `BUILD_MARK`) and reloads it the way an update reaches it (`chrome.runtime.reload()`
from the service worker; `browser.runtime.reload()` from the options page). The tests check: a rewrite
cut off mid-job leaves the field as typed and says why; the shortcut and the menu rewrite the field in
the same tab afterwards, with the new build's scripts (Chromium: real keys and the real menu under Xvfb,
since only a real gesture lends the tab to the extension, `activeTab`); a send in such a tab never posts
the original, whether "Rewrite before posting" was on before the update or switched on after it, by
the Send button or by Enter, in every tab open before it; a message the background sends runs once in
the tab. A job is kept in flight by a host launcher that waits while a flag file exists (the browser
starts the host anew after each reload). That the page sent nothing is read from the page's own
`fetch` calls, recorded as the page makes them (a send the page saw would have called it at once)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Playwright, expect

from .bidi import Firefox
from .harness import (
    EXTENSION_DIR,
    EXTENSION_ID,
    GECKO_ID,
    SAMPLE,
    PageUi,
    launch,
    register_host,
    service_worker,
)
from .server import PageServer
from .test_firefox import FIREFOX, FirefoxSession
from .test_real_keys import HeadedChromium, manifest_binding
from .xdisplay import XDisplay, xdotool_keys

pytestmark = pytest.mark.e2e

HOST_WAIT_S = 40  # how long the slow launcher keeps a job in flight (the test reloads long before)
CUT_OFF_WORDS = "updated or restarted while it worked"  # extensionReloaded (extension/_locales)
CLOSED_WORDS = "browsers keep extensions out of their own pages"  # pageClosedToExtensions
HELD_WORDS = "still runs its old copy"  # extensionReloadedSend


def slow_host(manifest: Path) -> Path:
    """Points the registered host manifest at a launcher that, while the returned flag file exists,
    waits before starting the real host: a rewrite then stays in flight until the test reloads."""
    data = json.loads(manifest.read_text())
    flag = manifest.parent / "slow"
    wrapper = manifest.parent / "slow-launcher.sh"
    wrapper.write_text(f'#!/bin/sh\n[ -e "{flag}" ] && sleep {HOST_WAIT_S}\nexec "{data["path"]}" "$@"\n')
    wrapper.chmod(0o755)
    manifest.write_text(json.dumps({**data, "path": str(wrapper)}))
    return flag


BUILD_MARK = "globalThis.fantasmaBuild"  # what each build's content scripts set: their version


def write_build(folder: Path, version: str) -> None:
    """The extension as it would ship at `version`: the manifest's version, and content-script code that
    differs from every other build's (main.js ends by setting `BUILD_MARK` to the version)."""
    shutil.copytree(EXTENSION_DIR, folder, dirs_exist_ok=True)
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "version": version}, indent=2))
    main = (EXTENSION_DIR / "content" / "main.js").read_text()
    (folder / "content" / "main.js").write_text(f"{main}\n{BUILD_MARK} = {json.dumps(version)};\n")


RECORD_FETCH_JS = """() => { window.sentBodies = []; const pageFetch = window.fetch;
  window.fetch = (url, init) => { sentBodies.push(String(init?.body ?? "")); return pageFetch(url, init); };
  return true; }"""


def build_marks(page) -> list[object]:
    """`BUILD_MARK` in each isolated world of the page's top frame (over CDP): which builds' scripts are in."""
    cdp = page.context.new_cdp_session(page)
    try:
        contexts: list[dict] = []
        cdp.on("Runtime.executionContextCreated", lambda event: contexts.append(event["context"]))
        cdp.send("Runtime.enable")
        marks = []
        for context in contexts:
            if context.get("auxData", {}).get("type") != "isolated":
                continue
            value = cdp.send(
                "Runtime.evaluate",
                {"expression": BUILD_MARK, "contextId": context["id"], "returnByValue": True},
            )
            marks.append(value["result"].get("value"))
        return marks
    finally:
        cdp.detach()


def wait_posts(server: PageServer, count: int, timeout: float) -> list[dict[str, str]]:
    deadline = time.monotonic() + timeout
    with server.posted:
        while len(server.posts) < count and time.monotonic() < deadline:
            server.posted.wait(deadline - time.monotonic())
        return list(server.posts)


# ---- Chromium ---------------------------------------------------------------------------------------


class Updates:
    """An update with tabs open: the next build written into the folder the browser loaded, then reloaded
    the way an update reaches it (`reload_extension`), and the browser runs the new version."""

    build: Path
    release = 0

    def reload_extension(self) -> None:
        raise NotImplementedError

    def running_version(self) -> str:
        raise NotImplementedError

    def update(self) -> str:
        self.release += 1
        version = f"0.1.{self.release}"
        write_build(self.build, version)
        self.reload_extension()
        assert self.running_version() == version
        return version


class UpdatedChromium(Updates, HeadedChromium):
    def __init__(self, display: XDisplay, context, build: Path) -> None:
        super().__init__(display, context)
        self.build = build

    def running_version(self) -> str:
        return self.sw.evaluate("chrome.runtime.getManifest().version")

    def reload_extension(self) -> None:
        """`chrome.runtime.reload()`: what an update does to open tabs; returns once the new background runs."""
        ours = f"chrome-extension://{EXTENSION_ID}/"
        with self.context.expect_event("serviceworker", predicate=lambda w: w.url.startswith(ours)) as event:
            self.sw.evaluate("chrome.runtime.reload()")
        self.sw = event.value
        deadline = time.monotonic() + 15
        while not self.sw.evaluate("!!globalThis.fantasmaBackground"):
            assert time.monotonic() < deadline, "the reloaded background never ran"
            time.sleep(0.1)

    def set_settings(self, **settings: object) -> None:
        self.sw.evaluate(
            "(s) => chrome.storage.local.clear().then(() => chrome.storage.local.set(s))", settings
        )

    def jobs(self) -> int:
        return int(self.sw.evaluate("fantasmaBackground.stats.jobs"))

    def menu_anonymize(self, selector: str) -> None:
        """The real context menu: a right click, then "f" (our submenu), Right, Return (test_real_keys)."""
        page = self.page
        page.evaluate("window.menus = 0; addEventListener('contextmenu', () => menus++)")
        for attempt in range(3):
            self.click_into(selector, button=3)
            page.wait_for_function(f"menus > {attempt}", timeout=10_000)
            page.wait_for_timeout(500 * (attempt + 1))
            before = page.evaluate(f"document.querySelector({json.dumps(selector)}).value")
            self.display.key("f")
            page.wait_for_timeout(300)
            if page.evaluate(f"document.querySelector({json.dumps(selector)}).value") == before:
                break
            self.display.key("Escape")
            page.fill(selector, before)
        else:
            raise AssertionError("Chromium's context menu never took the keys")
        self.display.key("Right")
        page.wait_for_timeout(200)
        self.display.key("Return")


@pytest.fixture(scope="module")
def chromium(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory, host_home: Path
) -> Iterator[tuple[UpdatedChromium, Path]]:
    display = XDisplay()
    try:
        user_data_dir = tmp_path_factory.mktemp("chromium_update_profile")
        manifest = register_host(user_data_dir / "NativeMessagingHosts", "chromium", host_home)
        flag = slow_host(manifest)
        build = tmp_path_factory.mktemp("chromium_build")
        write_build(build, "0.1.0")
        context = launch(playwright_instance, user_data_dir, headless=False, env=display.env, extension=build)
        try:
            # Chromium disables a reloaded unpacked extension unless developer mode is on (as it is for
            # anyone who reloads one by hand); an update from the store needs no such thing.
            settings = context.new_page()
            settings.goto("chrome://extensions")
            settings.evaluate("chrome.developerPrivate.updateProfileConfiguration({ inDeveloperMode: true })")
            settings.close()
            service_worker(context)
            browser = UpdatedChromium(display, context, build)
            browser.set_settings(strength="light")
            yield browser, flag
        finally:
            context.close()
    finally:
        display.close()


def test_chromium_reload_mid_job_leaves_the_field_as_typed_and_says_why(
    chromium: tuple[UpdatedChromium, Path], server: PageServer
) -> None:
    browser, flag = chromium
    page = browser.page
    flag.touch()
    try:
        browser.update()  # a background with no host yet: the next job starts the slow launcher
        page.goto(server.url("textarea.html"))
        page.fill("#field", SAMPLE)
        page.focus("#field")
        browser.sw.evaluate(
            """async () => { const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
                 await fantasmaBackground.handleCommand("anonymize-field", tab); }"""
        )
        ui = PageUi(page)
        ui.wait_for("indicator")
        browser.update()
        assert CUT_OFF_WORDS in ui.wait_for("message", CUT_OFF_WORDS)
        assert ui.boxes("indicator") == []
        expect(page.locator("#field")).to_have_value(SAMPLE)
    finally:
        flag.unlink()


def test_chromium_shortcut_and_menu_work_in_a_tab_open_before_the_reload(
    chromium: tuple[UpdatedChromium, Path], server: PageServer, light: str
) -> None:
    browser, _ = chromium
    page = browser.page
    page.goto(server.url("textarea.html"))
    page.fill("#field", SAMPLE)
    old = browser.sw.evaluate("chrome.runtime.getManifest().version")
    assert old in build_marks(page)
    new = browser.update()
    browser.click_into("#field")
    expect(page.locator("#field")).to_be_focused()
    jobs = browser.jobs()
    browser.display.key(xdotool_keys(manifest_binding("anonymize-field")))
    expect(page.locator("#field")).to_have_value(light, timeout=30_000)
    PageUi(page).wait_for("figure", timeout=30)
    assert browser.jobs() == jobs + 1
    assert new in build_marks(page)  # the new build's scripts did it, next to the cut-off old ones
    # The scripts are in once: a second injection into the tab (lent to the extension by the shortcut)
    # finds every frame claimed and adds nothing; one more rewrite is one more job.
    injected = browser.sw.evaluate(
        """async () => { const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
             return fantasmaBackground.injectContentScripts(tab.id); }"""
    )
    assert injected == 0
    page.fill("#field", SAMPLE)
    browser.click_into("#field")
    browser.display.key(xdotool_keys(manifest_binding("anonymize-field")))
    expect(page.locator("#field")).to_have_value(light, timeout=30_000)
    PageUi(page).wait_for("figure", timeout=30)
    assert browser.jobs() == jobs + 2

    browser.update()
    page.fill("#field", SAMPLE)
    browser.menu_anonymize("#field")
    expect(page.locator("#field")).to_have_value(light, timeout=30_000)


def test_chromium_composer_inserts_into_a_tab_open_before_the_reload(
    chromium: tuple[UpdatedChromium, Path], server: PageServer, light: str
) -> None:
    """The composer's shortcut puts the scripts in; its Insert reaches the field through them."""
    browser, _ = chromium
    page = browser.page
    page.goto(server.url("textarea.html"))
    browser.update()
    browser.click_into("#field")
    expect(page.locator("#field")).to_be_focused()
    with browser.context.expect_page(timeout=30_000) as opened:
        browser.display.key(xdotool_keys(manifest_binding("open-composer")))
    composer = opened.value
    composer.wait_for_load_state()
    assert composer.url.startswith(f"chrome-extension://{EXTENSION_ID}/composer/composer.html")
    composer.locator("#draft").fill(SAMPLE)
    composer.click("#rewrite")
    expect(composer.locator("#rewritten")).to_have_text(light, timeout=30_000)
    composer.click("#use-rewrite")  # Insert puts in the box's text: the rewrite goes in the box first
    expect(composer.locator("#draft")).to_have_value(light)
    with composer.expect_event("close"):
        composer.click("#insert")
    expect(page.locator("#field")).to_have_value(light)


def test_chromium_send_in_a_tab_open_before_the_reload_is_held_never_the_original(
    chromium: tuple[UpdatedChromium, Path], server: PageServer, light: str
) -> None:
    browser, _ = chromium
    page = browser.page
    browser.set_settings(strength="light", autoRewrite=True)
    server.clear()
    try:
        page.goto(server.url("chat.html"))
        page.evaluate(RECORD_FETCH_JS)
        page.locator("#field").click()
        page.keyboard.insert_text(SAMPLE)
        browser.update()
        browser.set_settings(strength="light", autoRewrite=True)
        page.click("#send")
        ui = PageUi(page)
        ui.wait_for("message", HELD_WORDS)
        assert page.evaluate("sentBodies") == []
        assert page.locator("#field").inner_text().strip() == SAMPLE
        # What the message says to do: the shortcut rewrites the field (a new copy of the scripts takes
        # over, the old one's message goes), and the next send posts the rewrite.
        browser.click_into("#field")
        browser.display.key(xdotool_keys(manifest_binding("anonymize-field")))
        expect(page.locator("#field")).to_have_text(light, timeout=30_000)
        assert ui.boxes("message") == []
        page.click("#send")
        assert wait_posts(server, 1, timeout=30) == [{"message": light}]
        assert len(page.evaluate("sentBodies")) == 1 and server.posts == [{"message": light}]
    finally:
        browser.set_settings(strength="light")


def test_chromium_auto_rewrite_switched_on_after_the_update_never_posts_the_original(
    chromium: tuple[UpdatedChromium, Path], server: PageServer, light: str
) -> None:
    """ "Rewrite before posting" was off when the update came and is switched on after it: the copy cut off
    in each tab open before the update cannot know it, so it holds the Send button and Enter there."""
    browser, _ = chromium
    browser.set_settings(strength="light")
    server.clear()
    first, second = browser.page, browser.context.new_page()
    try:
        for page in (first, second):
            page.goto(server.url("chat.html"))
            page.evaluate(RECORD_FETCH_JS)
            page.locator("#field").click()
            page.keyboard.insert_text(SAMPLE)
        browser.update()
        # Switched on after the update, as a user does it: the options page, which says what open tabs need.
        options = browser.context.new_page()
        options.goto(f"chrome-extension://{EXTENSION_ID}/options/options.html")
        options.check("#auto-global")
        expect(options.locator("#old-tabs")).to_contain_text("still run its old copy")
        assert browser.sw.evaluate("chrome.storage.local.get('autoRewrite')") == {"autoRewrite": True}
        options.close()
        for page in (first, second):
            page.bring_to_front()
            ui = PageUi(page)
            page.click("#send")
            ui.wait_for("message", HELD_WORDS)
            assert page.evaluate("sentBodies") == []
            page.locator("#field").focus()
            page.keyboard.press("Enter")
            page.wait_for_function("document.querySelector('#field') && true")
            ui.wait_for("message", HELD_WORDS)
            assert page.evaluate("sentBodies") == [], "Enter posted the text as typed"
            assert page.locator("#field").inner_text().strip() == SAMPLE
        # In the first tab the shortcut rewrites (the new build's scripts come in) and Send posts the rewrite.
        first.bring_to_front()
        browser.window = browser.display.windows()[0]
        browser.page = first
        browser.click_into("#field")
        browser.display.key(xdotool_keys(manifest_binding("anonymize-field")))
        expect(first.locator("#field")).to_have_text(light, timeout=30_000)
        first.click("#send")
        assert wait_posts(server, 1, timeout=30) == [{"message": light}]
        assert [page.evaluate("sentBodies.length") for page in (first, second)] == [1, 0]
        assert server.posts == [{"message": light}]
    finally:
        second.close()
        browser.page = first
        browser.set_settings(strength="light")


FAILING_LISTENER = """(() => {
  globalThis.probeRuns = 0;
  chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
    if (message?.kind !== "probe") return false;
    probeRuns += 1;
    // Taken (an answer is promised), then the work fails and no answer comes: the channel closes.
    Promise.reject(new Error("failed in the tab")).then(sendResponse, () => {});
    return true;
  });
  return true;
})()"""


def test_chromium_a_message_taken_and_failed_in_the_tab_runs_once(
    chromium: tuple[UpdatedChromium, Path], server: PageServer, light: str
) -> None:
    """messageTab injects the scripts and sends again only where nothing received the message. The tab is
    lent to the extension first (the shortcut), so an injection there would succeed; a listener beside
    the scripts' own, in their isolated world, takes the message and fails."""
    browser, _ = chromium
    page = browser.page
    page.goto(server.url("textarea.html"))
    page.fill("#field", SAMPLE)
    browser.click_into("#field")
    browser.display.key(xdotool_keys(manifest_binding("anonymize-field")))
    expect(page.locator("#field")).to_have_value(light, timeout=30_000)
    cdp = page.context.new_cdp_session(page)
    contexts: list[dict] = []
    cdp.on("Runtime.executionContextCreated", lambda event: contexts.append(event["context"]))
    cdp.send("Runtime.enable")
    alive = [
        c["id"]
        for c in contexts
        if c.get("origin", "").startswith(f"chrome-extension://{EXTENSION_ID}")
        and cdp.send("Runtime.evaluate", {"expression": "!!chrome.runtime?.id", "contextId": c["id"]})[
            "result"
        ].get("value")
    ]
    assert len(alive) == 1, contexts  # one live copy of the scripts (cut-off ones from earlier updates aside)
    world = alive[0]
    added = cdp.send(
        "Runtime.evaluate", {"expression": FAILING_LISTENER, "contextId": world, "returnByValue": True}
    )
    assert added["result"].get("value") is True, added
    outcome = browser.sw.evaluate(
        """async () => { const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
             try { await fantasmaBackground.messageTab(tab.id, { kind: "probe" }, { frameId: 0 });
                   return "answered"; } catch (error) { return String(error?.message ?? error); } }"""
    )
    runs = cdp.send(
        "Runtime.evaluate", {"expression": "probeRuns", "contextId": world, "returnByValue": True}
    )
    assert runs["result"]["value"] == 1, outcome
    assert "Receiving end does not exist" not in outcome


def test_chromium_shortcut_on_a_browser_page_says_no_extension_may_work_there(
    chromium: tuple[UpdatedChromium, Path],
) -> None:
    browser, _ = chromium
    page = browser.page
    page.goto("chrome://version")
    browser.sw.evaluate("fantasmaBackground.stats.lastNotification = null")
    browser.display.focus(browser.window)
    browser.display.key(xdotool_keys(manifest_binding("anonymize-field")))
    deadline = time.monotonic() + 15
    while not (notice := browser.sw.evaluate("fantasmaBackground.stats.lastNotification")):
        assert time.monotonic() < deadline, "the shortcut on a browser page said nothing"
        time.sleep(0.1)
    assert CLOSED_WORDS in notice["message"], notice


# ---- Firefox ESR ------------------------------------------------------------------------------------


class UpdatedFirefox(Updates, FirefoxSession):
    def __init__(self, firefox: Firefox, build: Path) -> None:
        super().__init__(firefox, build)
        self.build = build

    def running_version(self) -> str:
        return self.extension_eval("browser.runtime.getManifest().version")

    def reload_extension(self) -> None:
        """`browser.runtime.reload()` from the options page (which closes), then the options page again."""
        self.bidi.send(
            "script.evaluate",
            {
                "expression": "browser.runtime.reload()",
                "target": {"context": self.extension_page},
                "awaitPromise": False,
            },
        )
        deadline = time.monotonic() + 15
        while any(
            c["context"] == self.extension_page
            for c in self.bidi.send("browsingContext.getTree", {})["contexts"]
        ):
            assert time.monotonic() < deadline, "the options page stayed open: the add-on did not reload"
            time.sleep(0.1)
        policy = f"WebExtensionPolicy.getByID({json.dumps(GECKO_ID)})"
        while not self.chrome_eval(f"!!{policy}?.active"):
            assert time.monotonic() < deadline, "the add-on did not come back after its reload"
            time.sleep(0.1)
        self.chrome_eval(
            f"""gBrowser.addTab(WebExtensionPolicy.getByID({json.dumps(GECKO_ID)}).getURL("options/options.html"),
                 {{ triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal() }}) && true"""
        )
        self.extension_page = self._wait_for_context("moz-extension://")
        self._wait_for_extension_api(self.extension_page)
        self.bidi.send("browsingContext.activate", {"context": self.page})
        # The page's tab in front and its document focused, as the user's own tab would be (the shortcut
        # acts in the frame whose document has the focus).
        self.chrome_eval("gBrowser.selectedBrowser.focus() ?? true")

    def set_settings(self, **settings: object) -> None:
        self.extension_eval(
            f"browser.storage.local.clear().then(() => browser.storage.local.set({json.dumps(settings)})).then(() => true)"
        )

    def shortcut(self, command: str) -> None:
        """Fires the command's key as Firefox bound it in the window (a XUL <key> in the add-on's keyset,
        which a real key press fires): BiDi's keys reach only the page, never the browser's shortcuts."""
        letter = manifest_binding(command).split("+")[-1]
        assert len(letter) == 1, f"{command}: a letter key is expected, not {letter!r}"
        fired = self.chrome_eval(
            f"""(() => {{ const key = [...document.querySelectorAll('keyset[id*="fantasma"] key')]
                   .find((k) => k.getAttribute("key") === {json.dumps(letter)});
                 if (!key) return false; key.doCommand(); return true; }})()"""
        )
        assert fired, f"Firefox bound no key for {command}"

    def value(self) -> str:
        return self.bidi.evaluate(self.page, "document.querySelector('#field').value")

    def fill(self, text: str) -> None:
        self.bidi.evaluate(
            self.page,
            f"(() => {{ const f = document.querySelector('#field'); f.value = {json.dumps(text)}; f.focus(); return true; }})()",
        )


@pytest.fixture(scope="module")
def firefox(
    tmp_path_factory: pytest.TempPathFactory, host_home: Path
) -> Iterator[tuple[UpdatedFirefox, Path]]:
    if not Path(FIREFOX).exists():
        pytest.fail("firefox-esr is missing: run scripts/install-system-deps.sh (make test-install does)")
    home = tmp_path_factory.mktemp("firefox_update_home")
    manifest = register_host(home / ".mozilla" / "native-messaging-hosts", "firefox", host_home)
    flag = slow_host(manifest)
    build = tmp_path_factory.mktemp("firefox_build")
    write_build(build, "0.1.0")
    browser = Firefox(FIREFOX, tmp_path_factory.mktemp("firefox_update_profile"), home, {})
    try:
        session = UpdatedFirefox(browser, build)
        session.set_settings(strength="light")
        session.bidi.send("browsingContext.activate", {"context": session.page})
        yield session, flag
    finally:
        browser.close()


def test_firefox_reload_mid_job_leaves_the_field_as_typed_and_says_why(
    firefox: tuple[UpdatedFirefox, Path], server: PageServer
) -> None:
    ff, flag = firefox
    flag.touch()
    try:
        ff.update()
        ff.bidi.navigate(ff.page, server.url("textarea.html"))
        ff.fill(SAMPLE)
        ff.context_menu_item("#field", "fantasma-anonymize")
        ff.wait_ui("", "indicator")
        ff.update()
        ff.wait_ui(CUT_OFF_WORDS, "message")
        assert ff.ui_texts("indicator") == []
        assert ff.value() == SAMPLE
    finally:
        flag.unlink()


def test_firefox_shortcut_and_menu_work_in_a_tab_open_before_the_reload(
    firefox: tuple[UpdatedFirefox, Path], server: PageServer, light: str
) -> None:
    ff, _ = firefox
    ff.bidi.navigate(ff.page, server.url("textarea.html"))
    ff.fill(SAMPLE)
    ff.update()
    ff.fill(SAMPLE)
    ff.shortcut("anonymize-field")
    ff.bidi.wait_for(ff.page, f"document.querySelector('#field').value === {json.dumps(light)}", timeout=30)
    ff.wait_ui("", "figure", timeout=30)
    ff.update()
    ff.fill(SAMPLE)
    ff.context_menu_item("#field", "fantasma-anonymize")
    ff.bidi.wait_for(ff.page, f"document.querySelector('#field').value === {json.dumps(light)}", timeout=30)


def test_firefox_send_in_a_tab_open_before_the_reload_posts_only_the_rewrite(
    firefox: tuple[UpdatedFirefox, Path], server: PageServer, light: str
) -> None:
    ff, _ = firefox
    ff.set_settings(strength="light", autoRewrite=True)
    server.clear()
    try:
        ff.bidi.navigate(ff.page, server.url("chat.html"))
        ff.bidi.evaluate(ff.page, f"({RECORD_FETCH_JS})()")
        x, y = ff.bidi.evaluate(
            ff.page,
            "(() => { const r = document.querySelector('#field').getBoundingClientRect(); return [r.x + 10, r.y + 10]; })()",
        )
        ff.click_at(x, y)
        ff.type_text(SAMPLE)
        ff.update()
        x, y = ff.bidi.evaluate(
            ff.page,
            "(() => { const r = document.querySelector('#send').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()",
        )
        ff.click_at(x, y)
        assert wait_posts(server, 1, timeout=30) == [{"message": light}]
        assert ff.bidi.evaluate(ff.page, "window.sentBodies.length") == 1
        assert server.posts == [{"message": light}]
    finally:
        ff.set_settings(strength="light")


def test_firefox_auto_rewrite_switched_on_after_the_update_never_posts_the_original(
    firefox: tuple[UpdatedFirefox, Path], server: PageServer, light: str
) -> None:
    """Off when the update came, switched on after it: Firefox's new copy in the open tab reads the settings
    as they are now, so Send and Enter post only the rewrite, and the new build's scripts are the ones in."""
    ff, _ = firefox
    ff.set_settings(strength="light")
    server.clear()
    try:
        ff.bidi.navigate(ff.page, server.url("chat.html"))
        ff.bidi.evaluate(ff.page, f"({RECORD_FETCH_JS})()")
        field = "(() => { const r = document.querySelector('#field').getBoundingClientRect(); return [r.x + 10, r.y + 10]; })()"
        ff.click_at(*ff.bidi.evaluate(ff.page, field))
        ff.type_text(SAMPLE)
        ff.update()
        ff.set_settings(strength="light", autoRewrite=True)  # switched on after the update
        ff.click_at(*ff.bidi.evaluate(ff.page, field))
        ff.press("\ue007")  # Enter
        assert wait_posts(server, 1, timeout=30) == [{"message": light}]
        assert ff.bidi.evaluate(ff.page, "window.sentBodies.length") == 1
        assert server.posts == [{"message": light}]
    finally:
        ff.set_settings(strength="light")


def test_firefox_shortcut_on_an_about_page_says_no_extension_may_work_there(
    firefox: tuple[UpdatedFirefox, Path],
) -> None:
    ff, _ = firefox
    last = "browser.runtime.getBackgroundPage().then((bg) => bg.fantasmaBackground.stats.lastNotification)"
    ff.extension_eval(
        "browser.runtime.getBackgroundPage().then((bg) => (bg.fantasmaBackground.stats.lastNotification = null) ?? true)"
    )
    ff.bidi.navigate(ff.page, "about:robots")
    ff.chrome_eval("gBrowser.selectedBrowser.focus() ?? true")
    ff.shortcut("anonymize-field")
    deadline = time.monotonic() + 15
    while not (notice := ff.extension_eval(last)):
        assert time.monotonic() < deadline, "the shortcut on an about: page said nothing"
        time.sleep(0.1)
    assert CLOSED_WORDS in notice["message"], notice

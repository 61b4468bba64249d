"""The real editors in Firefox ESR (Debian's stock build), driven over WebDriver BiDi (tests/e2e/bidi.py)
with the add-on installed temporarily and the real host. The same checks as in Chromium, through real
input: keys typed key by key, the real context menu, the add-on's real shortcut (its <key> element in
Firefox's own UI), a real click on Send. What BiDi cannot drive is in docs/extension.md."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..bidi import BiDiError, Firefox
from ..harness import register_host
from ..server import PageServer
from ..test_firefox import FIREFOX, FirefoxSession
from .cases import EDITORS, EMAIL, MARKERS, ORIGINAL, UNDO_GROUP_MS, URL, Editor

CONTROL = "\ue009"


class EditorFirefox(FirefoxSession):
    def __init__(self, firefox: Firefox) -> None:
        super().__init__(firefox)
        # The options tab is found by its URL, which can be there before its scripts have `browser`.
        self.bidi.wait_for(
            self.extension_page, "typeof browser !== 'undefined' && !!browser.storage", timeout=15
        )

    def set_settings(self, **settings: object) -> None:
        self.extension_eval(
            f"browser.storage.local.clear().then(() => browser.storage.local.set({json.dumps(settings)})).then(() => true)"
        )

    def open(self, server: PageServer, editor: Editor) -> None:
        self.editor = editor
        self.bidi.send("browsingContext.activate", {"context": self.page})
        # Headless, Firefox's window does not hold focus by itself (and the context menu leaves it in the
        # browser UI): focus the window and its page, as a window the user types in is.
        self.chrome_eval("(() => { window.focus(); gBrowser.selectedBrowser.focus(); return true; })()")
        self.bidi.navigate(self.page, f"{server.base}/editors/pages/{editor.name}.html")
        self.bidi.send("input.releaseActions", {"context": self.page})  # no key state from the last page
        self.bidi.wait_for(self.page, "window.editorPage !== undefined", timeout=15)
        assert self.bidi.evaluate(self.page, "editorPage.ready", timeout=30) is True
        self.bidi.wait_for(self.page, f"({self._field_js()}) !== null", timeout=15)

    def _field_js(self) -> str:
        field = json.dumps(self.editor.field)
        if self.editor.frame:
            frame = json.dumps(self.editor.frame)
            return f"document.querySelector({frame})?.contentDocument?.querySelector({field}) ?? null"
        return f"document.querySelector({field})"

    def point(self, selector_js: str) -> tuple[int, int]:
        """A point inside the element (viewport coordinates of the top document, iframes accounted for)."""
        return tuple(
            self.bidi.evaluate(
                self.page,
                f"""(() => {{ const el = {selector_js}; const r = el.getBoundingClientRect();
                  const frame = el.ownerDocument.defaultView.frameElement;
                  const o = frame ? frame.getBoundingClientRect() : {{ x: 0, y: 0 }};
                  return [Math.round(o.x + r.x + 12), Math.round(o.y + r.y + 12)]; }})()""",
            )
        )

    def click(self, selector_js: str, button: int = 0) -> None:
        self.click_at(*self.point(selector_js), button=button)

    def model(self) -> str:
        return self.bidi.evaluate(self.page, "editorPage.text()")

    def wait_model(self, want: str, timeout: float = 20) -> None:
        try:
            self.bidi.wait_for(self.page, f"editorPage.text() === {json.dumps(want)}", timeout=timeout)
        except Exception as error:
            assert self.model() == want, error

    def type_original(self) -> None:
        self.click(self._field_js())
        focused = f"""(() => {{ const f = {self._field_js()};
            return f.ownerDocument.hasFocus() && f.contains(f.ownerDocument.activeElement); }})()"""
        self.bidi.wait_for(self.page, focused, timeout=15)
        # The first keys sent right after focusing TinyMCE's iframe can be lost in Firefox: the first
        # character is typed until the editor has it (2 s apart, so a late one would have arrived).
        first = f"editorPage.text() === {json.dumps(ORIGINAL[0])}"
        for _ in range(3):
            self.type_text(ORIGINAL[0])
            try:
                self.bidi.wait_for(self.page, first, timeout=2)
                break
            except BiDiError:
                assert self.model() == "", self.model()
        self.type_text(ORIGINAL[1:])
        self.wait_model(ORIGINAL, timeout=10)
        time.sleep(UNDO_GROUP_MS / 1000)

    def menu(self, item: str = "fantasma-anonymize") -> None:
        """Right-click on the field for real, then activate our item in Firefox's own context menu."""
        self.click(self._field_js(), button=2)
        self.activate_menu_item(item)

    def shortcut(self) -> None:
        """The add-on's anonymize shortcut: the <key> element Firefox made for the command, run by its UI. Keys sent
        over BiDi reach only the page, never Firefox's shortcut handling, hence the element."""
        self.chrome_eval(
            """(() => { const keyset = document.getElementById("ext-keyset-id-fantasma_fantasma-project_org");
                 const key = [...keyset.children].find((k) => k.getAttribute("key") === "F");
                 key.doCommand(); return true; })()"""
        )

    def messages(self) -> list[str]:
        """Texts of the extension's message bars in the page and its frames."""
        return self.ui_texts("message", frames=True)

    def wait_message(self, part: str, timeout: float = 20.0) -> str:
        return self.wait_ui(part, "message", frames=True, timeout=timeout)


@pytest.fixture(scope="module")
def firefox(tmp_path_factory: pytest.TempPathFactory, host_home: Path) -> Iterator[EditorFirefox]:
    if not Path(FIREFOX).exists():
        pytest.fail("firefox-esr is missing: run scripts/install-system-deps.sh (make test-install does)")
    home = tmp_path_factory.mktemp("firefox_editors_home")
    register_host(home / ".mozilla" / "native-messaging-hosts", "firefox", host_home)
    browser = Firefox(FIREFOX, tmp_path_factory.mktemp("firefox_editors_profile"), home, {})
    try:
        yield EditorFirefox(browser)
    finally:
        browser.close()


@pytest.fixture(params=EDITORS, ids=[e.name for e in EDITORS])
def editor(request: pytest.FixtureRequest) -> Editor:
    return request.param


def test_firefox_menu_rewrite_once_and_one_ctrl_z_restores(
    firefox: EditorFirefox, server: PageServer, editor: Editor, light: str
) -> None:
    firefox.set_settings(strength="light")
    firefox.open(server, editor)
    firefox.type_original()
    firefox.menu()
    firefox.wait_model(light)
    time.sleep(0.3)
    model = firefox.model()
    assert model == light
    assert model.count(URL) == 1 and model.count(EMAIL) == 1
    assert not any(marker in model.replace(URL, "") for marker in MARKERS), model
    assert firefox.messages() == []
    firefox.press(CONTROL, "z")
    firefox.wait_model(ORIGINAL)


def test_firefox_shortcut_rewrites_the_focused_editor(
    firefox: EditorFirefox, server: PageServer, editor: Editor, light: str
) -> None:
    firefox.set_settings(strength="light")
    firefox.open(server, editor)
    firefox.type_original()
    firefox.shortcut()
    firefox.wait_model(light)


def test_firefox_auto_rewrite_posts_once_and_failing_host_blocks(
    firefox: EditorFirefox, server: PageServer, editor: Editor, light: str
) -> None:
    firefox.set_settings(strength="light", autoRewrite=True)
    server.clear()
    firefox.open(server, editor)
    firefox.type_original()
    firefox.click("document.querySelector('#send')")
    with server.posted:
        server.posted.wait_for(lambda: len(server.posts) >= 1, timeout=20)
    time.sleep(0.5)
    assert [post["message"] for post in server.posts] == [light]

    firefox.set_settings(strength="extreme", autoRewrite=True)  # the host answers invalid_params
    server.clear()
    firefox.open(server, editor)
    firefox.type_original()
    firefox.click("document.querySelector('#send')")
    firefox.wait_message("Not sent")
    assert server.posts == []
    assert firefox.model() == ORIGINAL

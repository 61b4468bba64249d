"""Real third-party editors (tests/e2e/editors/package.json, bundled by build.mjs) with the extension and
the real host, in Chromium. Every check reads the editor's OWN model (what the page would post), not the
DOM: the rewrite lands exactly once, markers go, the URL and e-mail stay verbatim, one real Ctrl+Z gives
the original back, the keyboard command works, auto-rewrite posts the rewrite exactly once, and with a
failing host nothing is posted, an error is shown and the original stays."""

from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import FrameLocator, Locator, Page, expect

from ..harness import Browser, PageUi, host_request
from ..server import PageServer

URL = "https://example.org/colour-guide?id=42"
EMAIL = "jo.bloggs@example.co.uk"
# Markers the light (rule-based) rewrite removes, around a URL and an e-mail that must not change.
ORIGINAL = (
    "Honestly, I realise this colour is gorgeous!!! :) Cheers, mate. "
    f"The guide is at {URL} or write to {EMAIL}, innit."
)
MARKERS = ("realise", "!!!", ":)", "innit")
# Undo grouping windows of the editors (Quill merges edits within 1000 ms, ProseMirror and CodeMirror
# within 500 ms): a user's typing and the later rewrite are separate steps only if this much time passes.
# A person takes at least that long to reach the menu or the shortcut.
UNDO_GROUP_MS = 1100


@dataclass(frozen=True)
class Editor:
    name: str
    field: str  # the editable the user clicks (inside `frame` when set)
    frame: str | None = None  # the iframe holding the editable (TinyMCE)
    html_body: bool = False  # the editor itself copies HTML into <textarea name=body> on submit


EDITORS = [
    Editor("ckeditor", ".ck-editor__editable", html_body=True),
    Editor("tinymce", "#tinymce", frame="iframe.tox-edit-area__iframe", html_body=True),
    Editor("lexical", "#field"),
    Editor("slate", "#field"),
    Editor("draft", ".public-DraftEditor-content"),
    Editor("quill", ".ql-editor"),
    Editor("tiptap", ".ProseMirror"),
    Editor("codemirror", ".cm-content"),
    Editor("react-textarea", "#field"),
]


@pytest.fixture(scope="module")
def light(host_home: Path) -> str:
    reply = host_request(host_home, "rewrite", {"text": ORIGINAL, "options": {"strength": "light"}})
    assert reply["type"] == "result", reply
    text = reply["result"]["text"]
    assert URL in text and EMAIL in text, text
    assert not any(marker in text.replace(URL, "") for marker in MARKERS), text
    return text


class EditorPage:
    def __init__(self, page: Page, editor: Editor, server: PageServer) -> None:
        self.page = page
        self.editor = editor
        page.goto(f"{server.base}/editors/pages/{editor.name}.html")
        page.wait_for_function("window.editorPage && editorPage.ready", timeout=15_000)
        self.scope: Page | FrameLocator = page.frame_locator(editor.frame) if editor.frame else page
        self.field: Locator = self.scope.locator(editor.field)
        expect(self.field).to_be_visible(timeout=15_000)

    def model(self) -> str:
        return self.page.evaluate("editorPage.text()")

    def wait_model(self, want: str, timeout: float = 15_000) -> None:
        try:
            self.page.wait_for_function("(want) => editorPage.text() === want", arg=want, timeout=timeout)
        except Exception as error:  # the assertion shows both texts
            assert self.model() == want, error

    def type(self, text: str) -> None:
        """Types like a user, key by key (editors record undo steps from key events), then pauses."""
        self.field.click()
        self.page.keyboard.type(text)
        self.wait_model(text, timeout=5_000)
        self.page.wait_for_timeout(UNDO_GROUP_MS)

    def menu(self, browser: Browser, item: str = "fantasma-anonymize") -> None:
        if self.editor.frame:
            browser.menu_in_frame(self.page.frame_locator(self.editor.frame), self.editor.field, item)
        else:
            browser.menu(self.page, self.editor.field, item)

    def messages(self) -> list[str]:
        """Texts of the extension's message bars, in the top document and in the editor's frame (a
        closed shadow root: read through the inspector, see harness.PageUi)."""
        if not hasattr(self, "ui"):
            self.ui = PageUi(self.page)
        return self.ui.texts("message")

    def wait_message(self, part: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for text in self.messages():
                if part in text:
                    return text
            self.page.wait_for_timeout(100)
        raise AssertionError(f"no message with {part!r}; shown: {self.messages()}")


def auto_rewrite_params() -> list[object]:
    # TinyMCE included: auto-rewrite finds the editable in the editor's iframe (issue 13 item 7).
    return [pytest.param(e, id=e.name) for e in EDITORS]


@pytest.fixture(params=EDITORS, ids=[e.name for e in EDITORS])
def editor(request: pytest.FixtureRequest) -> Editor:
    return request.param


def html_text(body: str) -> str:
    """Text of the HTML an editor posts: one line per paragraph."""
    text = re.sub(r"</p>\s*<p[^>]*>", "\n", body)
    return html.unescape(re.sub(r"<[^>]+>", "", text)).replace("\u00a0", " ").strip()


def test_menu_rewrite_lands_once_and_one_ctrl_z_restores(
    browser: Browser, page: Page, server: PageServer, editor: Editor, light: str
) -> None:
    browser.set_settings(strength="light")
    ed = EditorPage(page, editor, server)
    ed.type(ORIGINAL)
    ed.menu(browser)
    ed.wait_model(light)
    page.wait_for_timeout(300)  # a late second insertion (an editor applying the edit again) shows here
    model = ed.model()
    assert model == light
    assert model.count(URL) == 1 and model.count(EMAIL) == 1
    assert not any(marker in model.replace(URL, "") for marker in MARKERS), model
    assert ed.messages() == []  # no error shown on success
    ed.field.press("Control+z")  # one real key press
    ed.wait_model(ORIGINAL, timeout=5_000)


def test_keyboard_command_rewrites_the_focused_editor(
    browser: Browser, page: Page, server: PageServer, editor: Editor, light: str
) -> None:
    browser.set_settings(strength="light")
    ed = EditorPage(page, editor, server)
    ed.type(ORIGINAL)
    browser.command("anonymize-field")  # what Alt+Shift+F runs
    ed.wait_model(light)
    page.wait_for_timeout(300)
    assert ed.model() == light


@pytest.mark.parametrize("editor", auto_rewrite_params())
def test_auto_rewrite_posts_the_rewrite_once(
    browser: Browser, page: Page, server: PageServer, editor: Editor, light: str
) -> None:
    browser.set_settings(strength="light", autoRewrite=True)
    server.clear()
    ed = EditorPage(page, editor, server)
    ed.type(ORIGINAL)
    with page.expect_navigation(timeout=20_000):
        page.click("#send")
    assert len(server.posts) == 1, server.posts
    post = server.posts[0]
    assert post["message"] == light, post
    if editor.html_body:  # the editor's own copy into its form field holds the rewrite too
        assert html_text(post["body"]) == light, post


@pytest.mark.parametrize("editor", auto_rewrite_params())
def test_failing_host_blocks_the_post_and_keeps_the_original(
    browser: Browser, page: Page, server: PageServer, editor: Editor
) -> None:
    """The host answers with an error (a strength it does not know): nothing posted, message, text intact."""
    browser.set_settings(strength="extreme", autoRewrite=True)
    server.clear()
    ed = EditorPage(page, editor, server)
    ed.type(ORIGINAL)
    page.click("#send")
    ed.wait_message("Not sent")
    page.wait_for_timeout(300)
    assert server.posts == []
    assert ed.model() == ORIGINAL

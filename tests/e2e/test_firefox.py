"""Firefox ESR (Debian's stock build) with the add-on installed temporarily over WebDriver BiDi and the
real host registered in $HOME/.mozilla/native-messaging-hosts. The menu item is clicked for real: a
right click opens Firefox's context menu and the test activates our item in it (BiDi with system
access can reach the browser's own UI)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus

from .bidi import BiDi, BiDiError, Firefox
from .harness import GECKO_ID, ROOT, SAMPLE, host_request, register_host
from .server import PageServer

pytestmark = pytest.mark.e2e
FIREFOX = shutil.which("firefox-esr") or "/usr/bin/firefox-esr"


class FirefoxSession:
    def __init__(self, firefox: Firefox, extension: Path = ROOT / "extension") -> None:
        self.firefox = firefox
        self.bidi: BiDi = firefox.bidi
        self.bidi.send("webExtension.install", {"extensionData": {"type": "path", "path": str(extension)}})
        self.chrome = self.bidi.send("browsingContext.getTree", {"moz:scope": "chrome"})["contexts"][0][
            "context"
        ]
        self.page = self.bidi.send("browsingContext.getTree", {})["contexts"][0]["context"]
        # BiDi may not navigate to moz-extension: pages, so the browser UI opens the options page in a tab.
        self.chrome_eval(
            f"""gBrowser.addTab(WebExtensionPolicy.getByID({json.dumps(GECKO_ID)}).getURL("options/options.html"),
                 {{ triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal() }}) && true"""
        )
        self.extension_page = self._wait_for_context("moz-extension://")
        self._wait_for_extension_api(self.extension_page)

    def _wait_for_extension_api(self, context: str) -> None:
        """The tab shows its moz-extension: URL before the page's document (and its `browser` global)
        exists; under load an evaluation in between met "browser is not defined" (clean clone,
        2026-12-02, load 5)."""
        deadline = time.monotonic() + 30
        ready = 'typeof browser !== "undefined" && !!browser.storage && document.readyState === "complete"'
        while True:
            try:
                if self.bidi.evaluate(context, ready):
                    return
            except BiDiError:  # the document is being replaced
                pass
            assert time.monotonic() < deadline, "the extension page never got its browser API"
            time.sleep(0.1)

    def _wait_for_context(self, prefix: str) -> str:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            for ctx in self.bidi.send("browsingContext.getTree", {})["contexts"]:
                if ctx["url"].startswith(prefix):
                    return ctx["context"]
            time.sleep(0.1)
        raise AssertionError(f"no tab with {prefix}")

    def chrome_eval(self, expression: str):
        return self.bidi.evaluate(self.chrome, expression)

    def extension_eval(self, expression: str):
        return self.bidi.evaluate(self.extension_page, expression)

    def type_text(self, text: str, context: str | None = None) -> None:
        """Types `text` key by key into the page (or another browsing context, e.g. the composer)."""
        keys = []
        for ch in text:
            keys += [{"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch}]
        self.bidi.send(
            "input.performActions",
            {"context": context or self.page, "actions": [{"type": "key", "id": "kb", "actions": keys}]},
        )

    def press(self, *keys: str) -> None:
        """Presses keys together (WebDriver key values: "\\ue009" is Control)."""
        actions = [{"type": "keyDown", "value": k} for k in keys] + [
            {"type": "keyUp", "value": k} for k in reversed(keys)
        ]
        self.bidi.send(
            "input.performActions",
            {"context": self.page, "actions": [{"type": "key", "id": "kb", "actions": actions}]},
        )

    def click_at(self, x: float, y: float, button: int = 0) -> None:
        """A real (trusted) mouse click at the page's viewport point (x, y); button 2 is the right one."""
        mouse = [
            {"type": "pointerMove", "x": int(x), "y": int(y)},
            {"type": "pointerDown", "button": button},
            {"type": "pointerUp", "button": button},
        ]
        pointer = {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": mouse}
        self.bidi.send("input.performActions", {"context": self.page, "actions": [pointer]})

    def context_menu_item(self, selector: str, item_id: str) -> None:
        """Right-clicks the element, then activates our item in Firefox's own context menu."""
        x, y = self.bidi.evaluate(
            self.page,
            f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect(); return [r.x + 10, r.y + 10]; }})()",
        )
        self.click_at(x, y, button=2)
        self.activate_menu_item(item_id)

    def activate_menu_item(self, item_id: str) -> None:
        """Once a right click has opened Firefox's context menu: runs our item and waits for the menu to
        close (an open menu would swallow the next click into the page)."""
        menu_id = "fantasma_fantasma-project_org-menuitem-_" + item_id
        deadline = time.monotonic() + 15
        opened = f"""(() => {{ const menu = document.getElementById("contentAreaContextMenu");
            const item = document.getElementById({json.dumps(menu_id)});
            return menu.state === "open" && !!item && !item.hidden; }})()"""
        while not self.chrome_eval(opened):
            assert time.monotonic() < deadline, "our item did not appear in the context menu"
            time.sleep(0.05)
        self.chrome_eval(
            f"""(() => {{ const menu = document.getElementById("contentAreaContextMenu");
                 const item = document.getElementById({json.dumps(menu_id)});
                 item.doCommand(); menu.hidePopup(); return true; }})()"""
        )
        closed = 'document.getElementById("contentAreaContextMenu").state === "closed"'
        while not self.chrome_eval(closed):
            assert time.monotonic() < deadline + 15, "the context menu did not close"
            time.sleep(0.05)

    def ui_texts(self, kind: str | None = None, frames: bool = False) -> list[str]:
        """Texts of the extension's in-page boxes (only those of `kind`, e.g. "message"; all when None), in
        the page and, with `frames`, in its frames. The UI lives in a closed shadow root, read through
        BiDi's node serialization (`includeShadowTree: "all"`), which sees closed roots."""
        contexts = [self.page]
        if frames:
            contexts, todo = [], self.bidi.send("browsingContext.getTree", {"root": self.page})["contexts"]
            while todo:
                ctx = todo.pop()
                contexts.append(ctx["context"])
                todo += ctx.get("children") or []
        texts: list[str] = []
        for context in contexts:
            result = self.bidi.send(
                "script.evaluate",
                {
                    "expression": "document.documentElement",
                    "target": {"context": context},
                    "awaitPromise": False,
                    "serializationOptions": {"maxDomDepth": 14, "includeShadowTree": "all"},
                },
            )["result"]
            _collect_boxes(result, False, kind, texts)
        return texts

    def wait_ui(self, part: str, kind: str | None = None, frames: bool = False, timeout: float = 20.0) -> str:
        """The first of ui_texts(kind, frames) that contains `part`, once one does."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for text in self.ui_texts(kind, frames):
                if part in text:
                    return text
            time.sleep(0.1)
        raise AssertionError(f"no {kind or 'box'} with {part!r}; shown: {self.ui_texts(kind, frames)}")


def composer_context(firefox: FirefoxSession, timeout: float = 15) -> str:
    """The composer's window (a moz-extension: page the background opened), once its script has run
    (an input event sent before its listeners are attached would never be guided)."""
    deadline = time.monotonic() + timeout
    while True:
        for ctx in firefox.bidi.send("browsingContext.getTree", {})["contexts"]:
            if "/composer/composer.html" in ctx["url"]:
                firefox.bidi.wait_for(ctx["context"], "document.body?.dataset.ready === 'yes'", timeout=15)
                return ctx["context"]
        assert time.monotonic() < deadline, "the composer did not open"
        time.sleep(0.1)


def _text_of(node: dict) -> str:
    value = node.get("value", {})
    if value.get("nodeType") == 3:
        return value.get("nodeValue", "")
    if value.get("localName") in ("style", "script"):
        return ""
    return "".join(_text_of(c) for c in value.get("children", []) or [])


def _collect_boxes(node: dict, closed: bool, kind: str | None, out: list[str]) -> None:
    """Texts of the [data-fantasma] elements inside closed shadow roots of a serialized node tree."""
    value = node.get("value", {})
    box = (value.get("attributes") or {}).get("data-fantasma")
    if closed and box is not None and kind in (None, box):
        out.append(_text_of(node))
        return
    shadow = value.get("shadowRoot")
    if shadow:
        _collect_boxes(shadow, closed or shadow.get("value", {}).get("mode") == "closed", kind, out)
    for child in value.get("children", []) or []:
        _collect_boxes(child, closed, kind, out)


@pytest.fixture(scope="module")
def firefox(tmp_path_factory: pytest.TempPathFactory, host_home: Path) -> Iterator[FirefoxSession]:
    if not Path(FIREFOX).exists():
        pytest.fail("firefox-esr is missing: run scripts/install-system-deps.sh (make test-install does)")
    home = tmp_path_factory.mktemp("firefox_home")
    register_host(
        home / ".mozilla" / "native-messaging-hosts", "firefox", host_home
    )  # Firefox's user-level dir
    browser = Firefox(FIREFOX, tmp_path_factory.mktemp("firefox_profile"), home, {})
    try:
        yield FirefoxSession(browser)
    finally:
        browser.close()


def test_firefox_textarea_anonymized_in_place_and_undo(
    firefox: FirefoxSession, server: PageServer, light: str
) -> None:
    firefox.extension_eval('browser.storage.local.set({ strength: "light" }).then(() => true)')
    firefox.bidi.send("browsingContext.activate", {"context": firefox.page})
    firefox.bidi.navigate(firefox.page, server.url("textarea.html"))
    firefox.bidi.evaluate(firefox.page, "document.querySelector('#field').focus() ?? true")
    firefox.type_text(SAMPLE)
    assert firefox.bidi.evaluate(firefox.page, "document.querySelector('#field').value") == SAMPLE
    firefox.context_menu_item("#field", "fantasma-anonymize")
    firefox.bidi.wait_for(
        firefox.page, f"document.querySelector('#field').value === {json.dumps(light)}", timeout=30
    )
    firefox.press("\ue009", "z")  # Ctrl+Z
    firefox.bidi.wait_for(
        firefox.page, f"document.querySelector('#field').value === {json.dumps(SAMPLE)}", timeout=5
    )


def test_firefox_page_writing_added_to_suspects_from_the_real_context_menu(
    firefox: FirefoxSession, server: PageServer, host_home: Path
) -> None:
    """Firefox's own context menu on a thread page: "Add this page's writing to people a reader might
    suspect" stores the other posters' prose (not the reply box) as one rival for the site."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 2, 1, 4)
    posts = [c.text for c in split.train if c.author == "Madison"][:3]
    draft = " ".join(c.text for c in split.train if c.author == "Hamilton")
    assert host_request(host_home, "profile.clear", {})["type"] == "result"
    try:
        firefox.bidi.send("browsingContext.activate", {"context": firefox.page})
        firefox.bidi.navigate(firefox.page, server.url("thread.html"))
        firefox.bidi.evaluate(
            firefox.page,
            f"""(() => {{ const posts = {json.dumps(posts)};
                posts.forEach((text, i) => {{ document.querySelector(`#post-${{i}} .body`).textContent = text; }});
                document.querySelector("#body").value = {json.dumps(draft)}; return true; }})()""",
        )
        firefox.context_menu_item("#post-1 .body", "fantasma-suspects-page")
        deadline = time.monotonic() + 60
        while True:
            rivals = host_request(host_home, "profile.show", {})["result"]["rivals"]
            if rivals:
                break
            assert time.monotonic() < deadline, "nothing reached the host"
            time.sleep(0.5)
        assert [r["name"] for r in rivals] == ["Page: 127.0.0.1"], rivals
        # the three posts, not the ~1,000-word draft in the reply box (the host counts words its own way)
        words = sum(len(p.split()) for p in posts)
        assert 0.9 * words <= rivals[0]["words"] <= 1.1 * words and rivals[0]["chunks"] >= 2, rivals
    finally:
        host_request(host_home, "profile.clear", {})

"""A long rewrite in Chromium and in Firefox: the pill says how many parts are done of how many (the host's
progress frames), and its Cancel leaves the field exactly as typed, with a message that says so.

The host is real and loads the embedded model and embedder; it writes LLM windows because
FANTASMA_DEBUG_LLM_WINDOWS=1 asks for them, and FANTASMA_DEBUG_TOKEN_DELAY_S slows every generated token
(test-only switches, honoured only with FANTASMA_HOST_DEBUG=1: native_host/models/cache.py), so a
rewrite of a few sentences takes long enough to watch and cancel. The browsers pass their environment on
to the host they start.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright, expect

from .bidi import Firefox
from .harness import Browser, PageUi, launch, register_host
from .server import PageServer
from .test_firefox import FIREFOX, FirefoxSession

pytestmark = pytest.mark.slow

TEXT = (
    "To be fair, the new bus timetable is a right mess and nobody asked us. "
    "The number 12 bus now leaves the station every forty minutes instead of every twenty. "
    "At the end of the day, most people will just drive to work and the buses will run empty."
)
SLOW_HOST = {
    "FANTASMA_HOST_DEBUG": "1",
    "FANTASMA_DEBUG_LLM_WINDOWS": "1",
    "FANTASMA_DEBUG_TOKEN_DELAY_S": "0.05",
}
CANCELLED = "Cancelled: your text is as you typed it."


@contextlib.contextmanager
def fantasma_home(home: Path) -> Iterator[None]:
    """native_host.paths answers for `home` while inside."""
    before = os.environ.get("FANTASMA_HOME")
    os.environ["FANTASMA_HOME"] = str(home)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("FANTASMA_HOME", None)
        else:
            os.environ["FANTASMA_HOME"] = before


@pytest.fixture(scope="module")
def slow_home(
    tmp_path_factory: pytest.TempPathFactory, default_model_dir: Path, embedder_model_dir: Path
) -> Path:
    """A home with the embedded model and the embedder installed (symlinks, as tests/host does)."""
    from native_host import paths

    home = tmp_path_factory.mktemp("slow_host_home")
    with fantasma_home(home):
        paths.default_model_dir().parent.mkdir(parents=True, exist_ok=True)
        paths.default_model_dir().symlink_to(default_model_dir, target_is_directory=True)
        paths.embedder_dir().symlink_to(embedder_model_dir, target_is_directory=True)
    return home


@pytest.fixture(scope="module")
def slow_chromium(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory, slow_home: Path
) -> Iterator[Browser]:
    user_data_dir = tmp_path_factory.mktemp("chromium_profile_slow")
    register_host(user_data_dir / "NativeMessagingHosts", "chromium", slow_home)
    context = launch(playwright_instance, user_data_dir, env=SLOW_HOST)
    try:
        yield Browser(context)
    finally:
        context.close()


def test_chromium_a_long_rewrite_shows_its_parts_and_cancel_leaves_the_field_as_typed(
    slow_chromium: Browser, server: PageServer
) -> None:
    slow_chromium.set_settings(strength="strong", autoRewrite=False)
    page: Page = slow_chromium.context.new_page()
    try:
        page.goto(server.url("textarea.html"))
        page.fill("#field", TEXT)
        slow_chromium.menu(page, "#field", "fantasma-anonymize")
        ui = PageUi(page)
        shown = ui.wait_for("indicator", "parts done", timeout=90)
        assert "Anonymizing" in shown and " of " in shown, shown
        ui.click("indicator", "Cancel")
        ui.wait_for("message", CANCELLED, timeout=10)
        ui.wait_gone("indicator", timeout=10)
        expect(page.locator("#field")).to_have_value(TEXT)
        page.wait_for_timeout(2000)  # nothing lands later either
        expect(page.locator("#field")).to_have_value(TEXT)
    finally:
        page.close()


@pytest.fixture(scope="module")
def slow_firefox(tmp_path_factory: pytest.TempPathFactory, slow_home: Path) -> Iterator[FirefoxSession]:
    if not Path(FIREFOX).exists():
        pytest.fail("firefox-esr is missing: run scripts/install-system-deps.sh (make test-install does)")
    home = tmp_path_factory.mktemp("firefox_home_slow")
    register_host(home / ".mozilla" / "native-messaging-hosts", "firefox", slow_home)
    browser = Firefox(FIREFOX, tmp_path_factory.mktemp("firefox_profile_slow"), home, {}, env=SLOW_HOST)
    try:
        yield FirefoxSession(browser)
    finally:
        browser.close()


def ui_button(node: dict, kind: str, label: str, inside: bool = False, closed: bool = False) -> str | None:
    """The BiDi shared id of the button labelled `label` in the [data-fantasma=kind] box of a serialized
    tree (the UI sits in a closed shadow root, which only BiDi's serializer shows)."""
    value = node.get("value", {})
    attributes = value.get("attributes") or {}
    inside = inside or (closed and attributes.get("data-fantasma") == kind)
    if inside and value.get("localName") == "button":
        text = "".join(c.get("value", {}).get("nodeValue", "") for c in value.get("children", []) or [])
        if text == label:
            return node.get("sharedId")
    shadow = value.get("shadowRoot")
    if shadow:
        found = ui_button(
            shadow, kind, label, inside, closed or shadow.get("value", {}).get("mode") == "closed"
        )
        if found:
            return found
    for child in value.get("children", []) or []:
        found = ui_button(child, kind, label, inside, closed)
        if found:
            return found
    return None


def click_ui(firefox: FirefoxSession, kind: str, label: str) -> None:
    """A real (trusted) click on a button of the extension's UI, aimed at the element by BiDi."""
    tree = firefox.bidi.send(
        "script.evaluate",
        {
            "expression": "document.documentElement",
            "target": {"context": firefox.page},
            "awaitPromise": False,
            "serializationOptions": {"maxDomDepth": 14, "includeShadowTree": "all"},
        },
    )["result"]
    shared_id = ui_button(tree, kind, label)
    assert shared_id, f"no {label!r} button in a {kind!r} box: {firefox.ui_texts(kind)}"
    origin = {"type": "element", "element": {"sharedId": shared_id}}
    mouse = [
        {"type": "pointerMove", "x": 0, "y": 0, "origin": origin},
        {"type": "pointerDown", "button": 0},
        {"type": "pointerUp", "button": 0},
    ]
    pointer = {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": mouse}
    firefox.bidi.send("input.performActions", {"context": firefox.page, "actions": [pointer]})


def test_firefox_a_long_rewrite_shows_its_parts_and_cancel_leaves_the_field_as_typed(
    slow_firefox: FirefoxSession, server: PageServer
) -> None:
    firefox = slow_firefox
    firefox.extension_eval('browser.storage.local.set({ strength: "strong" }).then(() => true)')
    firefox.bidi.send("browsingContext.activate", {"context": firefox.page})
    firefox.bidi.navigate(firefox.page, server.url("textarea.html"))
    field = "document.querySelector('#field')"
    firefox.bidi.evaluate(firefox.page, f"(() => {{ {field}.value = {json.dumps(TEXT)}; return true; }})()")
    firefox.context_menu_item("#field", "fantasma-anonymize")
    shown = firefox.wait_ui("parts done", "indicator", timeout=90)
    assert "Anonymizing" in shown and " of " in shown, shown
    click_ui(firefox, "indicator", "Cancel")
    firefox.wait_ui(CANCELLED, "message", timeout=10)
    assert firefox.bidi.evaluate(firefox.page, f"{field}.value") == TEXT
    time.sleep(2)  # nothing lands later either
    assert firefox.bidi.evaluate(firefox.page, f"{field}.value") == TEXT
    assert not firefox.ui_texts("indicator")

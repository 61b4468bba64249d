"""The in-page boxes stay true and out of the way, in Chromium and in Firefox ESR, on a reply form whose
controls sit right under the field (`pages/reply.html`): after a rewrite the markers panel shown before is
gone (its markers described the old text), one box at most is shown, and the field, the send button and
the other controls are each still the element under their own centre (`document.elementFromPoint`).
Escape, a click outside, Dismiss and typing into the field close the boxes; a click on a box keeps it. The rewrite runs from the shortcut's
command (the field focused, no click that would close the panel by itself)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from .harness import SAMPLE, Browser, PageUi
from .server import PageServer
from .test_firefox import FirefoxSession, firefox  # noqa: F401  (the module's Firefox fixture)

pytestmark = pytest.mark.e2e

CONTROLS = ["field", "notify", "preview", "send"]
# The ids whose element is not the one under its own centre (something of ours covers it).
COVERED_JS = """(ids) => ids.filter((id) => {
    const el = document.getElementById(id);
    const r = el.getBoundingClientRect();
    return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) !== el;
})"""


def covered(evaluate) -> list[str]:
    return evaluate(f"({COVERED_JS})({json.dumps(CONTROLS)})")


# ---- Chromium ---------------------------------------------------------------------------------------


def test_chromium_markers_panel_goes_and_the_send_button_stays_uncovered(
    browser: Browser, page: Page, server: PageServer, light: str
) -> None:
    browser.set_settings(strength="light")
    page.goto(server.url("reply.html"))
    page.fill("#field", SAMPLE)
    page.focus("#field")
    ui = PageUi(page)
    evaluate = page.evaluate

    browser.command("show-markers")
    ui.wait_for("markers", "British")
    assert covered(evaluate) == [], "the markers panel covers the form"
    ui.click_inside("markers")  # a press inside the box is not one outside it
    assert ui.boxes("markers"), "a click inside the markers panel closed it"
    page.focus("#field")

    browser.command("anonymize-field")
    expect(page.locator("#field")).to_have_value(light, timeout=15_000)
    ui.wait_for("figure", "identifiability")
    assert [box["kind"] for box in ui._boxes()] == ["figure"], "a stale markers panel, or boxes stacked"
    assert covered(evaluate) == [], "the identifiability card covers the form"

    page.keyboard.press("Escape")
    ui.wait_gone("figure")

    # Typing into the field: the panel described the text before the keystroke.
    page.fill("#field", SAMPLE)
    page.focus("#field")
    browser.command("show-markers")
    ui.wait_for("markers", "British")
    page.keyboard.type("!")
    ui.wait_gone("markers")

    # A click outside any box.
    browser.command("show-markers")
    ui.wait_for("markers", "British")
    page.click("#outside")
    ui.wait_gone("markers")


# ---- Firefox ESR ------------------------------------------------------------------------------------


@pytest.fixture
def ff(firefox: FirefoxSession) -> Iterator[FirefoxSession]:  # noqa: F811
    firefox.extension_eval(
        'browser.storage.local.clear().then(() => browser.storage.local.set({ strength: "light" })).then(() => true)'
    )
    firefox.bidi.send("browsingContext.activate", {"context": firefox.page})
    yield firefox
    firefox.extension_eval("browser.storage.local.clear().then(() => true)")


def command(ff: FirefoxSession, name: str) -> None:
    """What the shortcut runs (the background's handler, reached from the options tab). Headless, the
    window is focused from the browser UI first, as a window the user types in is."""
    ff.chrome_eval("(() => { window.focus(); gBrowser.selectedBrowser.focus(); return true; })()")
    ff.bidi.wait_for(ff.page, "document.hasFocus() && document.activeElement.id === 'field'", timeout=10)
    ff.extension_eval(
        f"browser.runtime.getBackgroundPage().then((bg) => bg.fantasmaBackground.handleCommand({json.dumps(name)})).then(() => true)"
    )


def fill(ff: FirefoxSession, text: str) -> None:
    ff.bidi.evaluate(
        ff.page,
        f"(() => {{ const f = document.querySelector('#field'); f.value = {json.dumps(text)}; f.focus(); return true; }})()",
    )


def test_firefox_markers_panel_goes_and_the_send_button_stays_uncovered(
    ff: FirefoxSession, server: PageServer, light: str
) -> None:
    ff.bidi.navigate(ff.page, server.url("reply.html"))
    fill(ff, SAMPLE)

    def evaluate(expression: str):
        return ff.bidi.evaluate(ff.page, expression)

    command(ff, "show-markers")
    panel = ff.wait_ui("British", "markers")
    assert covered(evaluate) == [], "the markers panel covers the form"
    # The same panel as in Chromium: titled by what it shows, sentences shaded with their share in words.
    assert "Style habits in this text: " in panel and "(!!)" not in panel, panel
    assert re.search(r"of what the sentences add|the only sentence that makes", panel), panel
    assert "The sentences that give most away:" in panel and "100%" not in panel, panel

    command(ff, "anonymize-field")
    ff.bidi.wait_for(ff.page, f"document.querySelector('#field').value === {json.dumps(light)}", timeout=30)
    card = ff.wait_ui("identifiability", "figure")
    assert "What changed (" in card and "Undo" in card, card
    assert ff.ui_texts("markers") == [], "the markers panel still lists the old text's markers"
    assert len(ff.ui_texts()) == 1, f"boxes stacked: {ff.ui_texts()}"
    assert covered(evaluate) == [], "the identifiability card covers the form"

    ff.press("\ue00c")  # Escape
    wait_gone(ff, "figure")

    fill(ff, SAMPLE)
    command(ff, "show-markers")
    ff.wait_ui("British", "markers")
    ff.type_text("!")
    wait_gone(ff, "markers")

    command(ff, "show-markers")
    ff.wait_ui("British", "markers")
    ff.click_at(*ui_point(ff, "markers"))  # a press inside the box is not one outside it
    assert ff.ui_texts("markers"), "a click inside the markers panel closed it"
    ff.click_at(*ui_point(ff, "markers", "Dismiss"))
    wait_gone(ff, "markers")

    fill(ff, SAMPLE)
    command(ff, "show-markers")
    ff.wait_ui("British", "markers")
    x, y = evaluate(
        "(() => { const r = document.querySelector('#outside').getBoundingClientRect(); return [r.x + 10, r.y + r.height / 2]; })()"
    )
    ff.click_at(x, y)
    wait_gone(ff, "markers")


def wait_gone(ff: FirefoxSession, kind: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while ff.ui_texts(kind):
        assert time.monotonic() < deadline, f"the {kind!r} box is still shown: {ff.ui_texts(kind)}"
        time.sleep(0.1)


def ui_point(ff: FirefoxSession, kind: str, label: str | None = None) -> tuple[float, float]:
    """A point on our box of `kind`: the centre of its button `label`, or (no label) 12 px inside its
    top-left corner. Found in BiDi's serialization of the page (which sees closed shadow roots) and
    measured through the node's shared reference."""
    tree = ff.bidi.send(
        "script.evaluate",
        {
            "expression": "document.documentElement",
            "target": {"context": ff.page},
            "awaitPromise": False,
            "serializationOptions": {"maxDomDepth": 14, "includeShadowTree": "all"},
        },
    )["result"]

    def text_of(node: dict) -> str:
        value = node.get("value", {})
        if value.get("nodeType") == 3:
            return value.get("nodeValue", "")
        return "".join(text_of(c) for c in value.get("children", []) or [])

    def find(node: dict, inside: bool) -> str | None:
        value = node.get("value", {})
        if (value.get("attributes") or {}).get("data-fantasma") == kind:
            if label is None:
                return node["sharedId"]
            inside = True
        if inside and value.get("localName") == "button" and text_of(node).strip() == label:
            return node["sharedId"]
        for child in [value.get("shadowRoot") or {}, *(value.get("children") or [])]:
            if child and (found := find(child, inside)):
                return found
        return None

    shared = find(tree, False)
    assert shared, f"no {label or 'box'!r} in a {kind!r} box"
    result = ff.bidi.send(
        "script.callFunction",
        {
            "functionDeclaration": "(el, centre) => { const r = el.getBoundingClientRect(); return centre ? [r.x + r.width / 2, r.y + r.height / 2] : [r.x + 12, r.y + 12]; }",
            "arguments": [{"sharedId": shared}, {"type": "boolean", "value": label is not None}],
            "target": {"context": ff.page},
            "awaitPromise": False,
        },
    )["result"]
    x, y = (item["value"] for item in result["value"])
    return x, y

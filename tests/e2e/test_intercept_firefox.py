"""Auto-rewrite before posting in Firefox ESR (Debian's stock build, driven over WebDriver BiDi by bidi.py),
the cases the driver can play with real input: a click on a chat's send button, a title + body form with a
hidden captcha field, Enter in a Discord-style composer, a page that submits by itself, a failing host.
The extension's closed shadow root is read through BiDi's node serialization (`includeShadowTree: "all"`),
which, like the inspector in Chromium, sees closed roots."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import SAMPLE, background_work_js, host_request, wait_until_settled
from .server import PageServer
from .test_firefox import FirefoxSession, firefox  # noqa: F401  (the module's Firefox fixture)

pytestmark = pytest.mark.e2e
TITLE = "Colour me surprised!!! :) innit"


@pytest.fixture(scope="module")
def rewrite_of(host_home: Path):
    cache: dict[str, str] = {}

    def rewrite(text: str) -> str:
        if text not in cache:
            reply = host_request(host_home, "rewrite", {"text": text, "options": {"strength": "light"}})
            assert reply["type"] == "result", reply
            cache[text] = reply["result"]["text"]
        return cache[text]

    return rewrite


def set_settings(ff: FirefoxSession, **settings: object) -> None:
    ff.extension_eval(
        f"browser.storage.local.clear().then(() => browser.storage.local.set({json.dumps(settings)})).then(() => true)"
    )


def jobs(ff: FirefoxSession) -> int:
    """Host jobs the background started (its event page, reached from the options tab)."""
    return int(
        ff.extension_eval(
            "browser.runtime.getBackgroundPage().then((bg) => bg.fantasmaBackground.stats.jobs)"
        )
    )


@pytest.fixture
def ff(firefox: FirefoxSession, server: PageServer) -> Iterator[FirefoxSession]:  # noqa: F811
    set_settings(firefox, strength="light", autoRewrite=True)
    firefox.bidi.send("browsingContext.activate", {"context": firefox.page})
    server.clear()
    yield firefox
    set_settings(firefox)


def go(ff: FirefoxSession, url: str) -> None:
    ff.bidi.navigate(ff.page, url)


def js(ff: FirefoxSession, expression: str):
    return ff.bidi.evaluate(ff.page, expression)


def click(ff: FirefoxSession, selector: str) -> None:
    """A real (trusted) mouse click at the element's centre."""
    click_element(ff, f"document.querySelector({json.dumps(selector)})")


def click_element(ff: FirefoxSession, element_js: str) -> None:
    """A real mouse click at the centre of the element that the JavaScript expression names."""
    x, y = js(
        ff,
        f"(() => {{ const r = ({element_js}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
    )
    ff.click_at(x, y)


def focus_and_type(ff: FirefoxSession, selector: str, text: str) -> None:
    click(ff, selector)
    ff.type_text(text)


def wait_posts(server: PageServer, count: int, timeout: float = 20.0) -> list[dict[str, str]]:
    deadline = time.monotonic() + timeout
    with server.posted:
        while len(server.posts) < count and time.monotonic() < deadline:
            server.posted.wait(deadline - time.monotonic())
        return list(server.posts)


def settle(ff: FirefoxSession) -> None:
    """Until a wrongly released send would have reached the server (harness.wait_until_settled: the
    extension's rewrite deadline and settle bounds, read from its code)."""
    wait_until_settled(
        lambda: ff.extension_eval(
            f"browser.runtime.getBackgroundPage().then((bg) => {background_work_js('bg')})"
        ),
        time.sleep,
    )


def posted_once(ff: FirefoxSession, server: PageServer) -> list[dict[str, str]]:
    """The posts once one has arrived and the extension has settled: a second send would be there by then."""
    wait_posts(server, 1)
    settle(ff)
    return list(server.posts)


def test_firefox_1_send_button_of_a_formless_chat(ff: FirefoxSession, server: PageServer, light: str) -> None:
    go(ff, server.url("chat.html"))
    focus_and_type(ff, "#field", SAMPLE)
    click(ff, "#send")
    assert posted_once(ff, server) == [{"message": light}]


def test_firefox_3_enter_in_a_discord_style_composer(
    ff: FirefoxSession, server: PageServer, light: str
) -> None:
    go(ff, server.url("discord.html"))
    focus_and_type(ff, "#field", SAMPLE)
    ff.press("\ue007")  # Enter
    assert posted_once(ff, server) == [{"message": light}]


def test_firefox_4_5_title_and_body_rewritten_hidden_fields_untouched(
    ff: FirefoxSession, server: PageServer, light: str, rewrite_of
) -> None:
    go(ff, server.url("post.html"))
    focus_and_type(ff, "#title", TITLE)
    focus_and_type(ff, "#body", SAMPLE)
    click(ff, "#send")
    assert wait_posts(server, 1) == [
        {
            "title": rewrite_of(TITLE),
            "body": light,
            "rating": "5",
            "email": "",
            "captcha": "03AFcWeA6 Colour!!! token :) innit",
            "csrf": "a1b2c3 realise",
        }
    ]


def test_firefox_page_submit_starts_no_host_work(ff: FirefoxSession, server: PageServer) -> None:
    go(ff, server.url("autosubmit.html"))
    before = jobs(ff)
    focus_and_type(ff, "#field", SAMPLE)
    js(ff, "window.submitNow() ?? true")
    ff.wait_ui("tried to send your text by itself")
    time.sleep(1.0)  # the page's own timer submits again meanwhile
    settle(ff)
    assert server.posts == []
    assert jobs(ff) == before
    assert js(ff, "document.querySelector('#field').value") == SAMPLE


def test_firefox_8_failing_host_and_send_button(ff: FirefoxSession, server: PageServer) -> None:
    set_settings(ff, strength="extreme", autoRewrite=True)
    go(ff, server.url("chat.html"))
    focus_and_type(ff, "#field", SAMPLE)
    click(ff, "#send")
    ff.wait_ui("Not sent")
    settle(ff)
    assert server.posts == []
    assert js(ff, "document.querySelector('#field').innerText.trim()") == SAMPLE


def test_firefox_7_iframe_editor_synced_into_a_hidden_textarea(
    ff: FirefoxSession, server: PageServer, light: str, rewrite_of
) -> None:
    go(ff, server.url("editor-frame.html"))
    focus_and_type(ff, "#title", TITLE)
    focus_and_type(ff, "#editor", SAMPLE)  # a click into the frame's editable body, then real keys
    assert js(ff, "document.querySelector('#editor').contentDocument.body.innerText.trim()") == SAMPLE
    click(ff, "#send")
    assert wait_posts(server, 1) == [{"title": rewrite_of(TITLE), "body": light}]


def test_firefox_1_send_button_in_an_open_shadow_root(
    ff: FirefoxSession, server: PageServer, light: str
) -> None:
    go(ff, server.url("shadow.html"))
    js(ff, "document.querySelector('#box').shadowRoot.querySelector('#field').focus() ?? true")
    ff.type_text(SAMPLE)
    click_element(ff, "document.querySelector('#box').shadowRoot.querySelector('#send')")
    assert posted_once(ff, server) == [{"message": light}]


def test_firefox_private_composer_text_reaches_the_page_only_at_insert(
    ff: FirefoxSession, server: PageServer, light: str
) -> None:
    set_settings(ff, strength="light")
    go(ff, server.url("textarea.html"))
    js(
        ff,
        """(() => { window.seen = []; window.values = new Set();
             for (const t of ["keydown", "input", "beforeinput", "paste"]) document.addEventListener(t, () => seen.push(t), true);
             setInterval(() => values.add(document.querySelector('#field').value), 5); return true; })()""",
    )
    ff.context_menu_item("#field", "fantasma-compose")
    deadline = time.monotonic() + 15
    composer = None
    while composer is None and time.monotonic() < deadline:
        for ctx in ff.bidi.send("browsingContext.getTree", {})["contexts"]:
            if "/composer/composer.html" in ctx["url"]:
                composer = ctx["context"]
        time.sleep(0.1)
    assert composer, "the composer window did not open"
    ff.bidi.wait_for(composer, "document.readyState === 'complete' && document.activeElement?.id === 'draft'")
    ff.type_text(SAMPLE, context=composer)
    assert ff.bidi.evaluate(composer, "document.getElementById('draft').value") == SAMPLE
    ff.bidi.evaluate(composer, "document.getElementById('rewrite').click() ?? true")
    ff.bidi.wait_for(composer, f"document.getElementById('rewritten').textContent === {json.dumps(light)}")
    assert js(ff, "window.seen") == []
    assert js(ff, "[...window.values]") == [""]
    # Insert puts in the text in the composer's box: the rewrite once it is put there.
    ff.bidi.evaluate(composer, "document.getElementById('use-rewrite').click() ?? true")
    ff.bidi.wait_for(composer, f"document.getElementById('draft').value === {json.dumps(light)}")
    ff.bidi.evaluate(composer, "document.getElementById('insert').click() ?? true")
    ff.bidi.wait_for(ff.page, f"document.querySelector('#field').value === {json.dumps(light)}")
    assert js(ff, "[...window.values]") in ([""], ["", light])

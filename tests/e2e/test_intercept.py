"""Auto-rewrite before posting, case by case (issue 13), on pages that behave like real ones, with the
real host. Every test asserts what the server received: the rewritten text exactly once, or nothing plus
a visible message with the text intact. The rewrite oracle is the real host over pipes (strength light:
the neutralizer, deterministic)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, Playwright, expect

from .harness import SAMPLE, Browser, PageUi, background_work_js, host_request, launch, wait_until_settled
from .server import PageServer

ORIGINAL = SAMPLE
TITLE = "Colour me surprised!!! :) innit"


@pytest.fixture(scope="module", autouse=True)
def default_settings_afterwards(browser: Browser) -> Iterator[None]:
    """Later modules expect a fresh profile's settings (auto-rewrite off)."""
    yield
    browser.set_settings()


@pytest.fixture(scope="module")
def rewrite_of(host_home: Path):
    """What the host returns for a text at strength light."""

    @functools.cache
    def rewrite(text: str) -> str:
        reply = host_request(host_home, "rewrite", {"text": text, "options": {"strength": "light"}})
        assert reply["type"] == "result", reply
        assert reply["result"]["text"] != text, "the text must contain markers the neutralizer changes"
        return reply["result"]["text"]

    return rewrite


def jobs(browser: Browser) -> int:
    """Host jobs the extension has started (requests from content scripts and the composer)."""
    return int(browser.sw.evaluate("fantasmaBackground.stats.jobs"))


def settle(browser: Browser, page: Page) -> None:
    """Until a wrongly released send would have reached the server (harness.wait_until_settled: the
    extension's rewrite deadline and settle bounds, read from its code)."""
    wait_until_settled(
        lambda: browser.sw.evaluate(background_work_js()), lambda s: page.wait_for_timeout(s * 1000)
    )


def type_rich(page: Page, selector: str, text: str) -> None:
    page.locator(selector).click()
    page.keyboard.insert_text(text)


# ---- 1. a click on the send button of a chat box with no form -----------------------------------


def test_1_send_button_of_a_formless_chat_posts_the_rewrite_once(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    page.goto(server.url("chat.html"))
    type_rich(page, "#field", ORIGINAL)
    page.click("#send")
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    settle(auto, page)
    assert server.posts == [{"message": light}]


def test_1_unlabelled_icon_button_that_sends_on_pointerdown(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    """The whole press is held (the page sends on pointerdown); a labelled formatting button is not a send."""
    page.goto(server.url("icon-send.html"))
    page.fill("#field", ORIGINAL)
    page.click("#bold")
    assert page.evaluate("window.boldClicks") == 1  # not held: "Bold" says what it does
    expect(page.locator("#field")).to_have_value(ORIGINAL)
    page.click("#send")
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    settle(auto, page)
    assert server.posts == [{"message": light}]


def test_1_keyboard_press_on_a_send_button(auto: Browser, page: Page, server: PageServer, light: str) -> None:
    """Enter on a focused role=button send control (the page sends on its keydown) is a send too."""
    page.goto(server.url("icon-send.html"))
    page.fill("#field", ORIGINAL)
    page.focus("#send")
    page.keyboard.press("Enter")
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    settle(auto, page)
    assert server.posts == [{"message": light}]


def test_1_send_button_in_an_open_shadow_root(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    page.goto(server.url("shadow.html"))
    page.locator("#box #field").fill(ORIGINAL)
    page.locator("#box #send").click()
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    settle(auto, page)
    assert server.posts == [{"message": light}]


def test_1_send_button_that_cannot_be_tied_to_the_text_is_held_and_asked(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    page.goto(server.url("far-send.html"))
    page.locator("#field").press_sequentially("x")  # the user types here…
    page.fill("#field", ORIGINAL)
    page.click("#send")  # … and presses a Send button far from the box, in another part of the page
    ui = PageUi(page)
    ui.wait_for("message", "cannot tell which text")
    settle(auto, page)
    assert server.posts == []
    expect(page.locator("#field")).to_have_value(ORIGINAL)
    ui.click("message", "Rewrite and send")
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    settle(auto, page)
    assert server.posts == [{"message": light}]


# ---- 2. a send during a rewrite -------------------------------------------------------------------


def test_2_send_clicked_while_the_rewrite_runs_is_held(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    page.goto(server.url("chat.html"))
    type_rich(page, "#field", ORIGINAL)
    page.keyboard.press("Enter")  # starts the rewrite …
    page.click("#send")  # … and the user clicks Send right away
    page.keyboard.press("Enter")
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    settle(auto, page)
    assert server.posts == [{"message": light}]


def test_2_sends_while_the_preview_is_open_are_held_until_apply(
    browser: Browser, page: Page, server: PageServer, light: str
) -> None:
    """With preview-before-apply the rewrite is still running while the dialog waits: a deterministic
    window in which the user clicks Send and presses Enter again."""
    browser.set_settings(strength="light", autoRewrite=True, previewBeforeApply=True)
    server.clear()
    page.goto(server.url("chat.html"))
    type_rich(page, "#field", ORIGINAL)
    page.keyboard.press("Enter")
    ui = PageUi(page)
    ui.wait_for("preview", light)
    page.locator("#field").press("Enter")
    page.focus("#send")  # the dialog covers the button: the user reaches it with Tab and presses Enter
    page.keyboard.press("Enter")
    settle(browser, page)
    assert server.posts == []
    expect(page.locator("#field")).to_have_text(ORIGINAL)
    ui.click("preview", "Apply")
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    settle(browser, page)
    assert server.posts == [{"message": light}]


# ---- 3. Enter in a multi-line composer (Discord/Slack style) ------------------------------------


def test_3_enter_in_a_discord_style_multiline_composer(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    page.goto(server.url("discord.html"))
    type_rich(page, "#field", "first line")
    page.keyboard.press("Shift+Enter")  # a new line, not a send
    settle(auto, page)
    assert server.posts == []
    page.locator("#field").evaluate("(el) => { el.textContent = ''; }")
    type_rich(page, "#field", ORIGINAL)
    assert page.locator("#field").evaluate("(el) => el.getBoundingClientRect().height") >= 60
    page.keyboard.press("Enter")
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    settle(auto, page)
    assert server.posts == [{"message": light}]


def test_3_discord_style_composer_wrapped_in_a_form_that_never_submits(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    page.goto(server.url("discord.html?form=1"))
    type_rich(page, "#form #field", ORIGINAL)
    page.keyboard.press("Enter")
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    settle(auto, page)
    assert server.posts == [{"message": light}]


def test_3_multiline_composer_that_gives_no_hint_asks_once_per_site(
    auto: Browser, page: Page, server: PageServer, light: str, rewrite_of
) -> None:
    page.goto(server.url("discord.html?label=0"))
    type_rich(page, "#field", ORIGINAL)
    page.keyboard.press("Enter")
    ui = PageUi(page)
    ui.wait_for("message", "Does Enter send")
    settle(auto, page)
    assert server.posts == []
    ui.click("message", "Yes: rewrite, then send")
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    # Remembered for the site: the next Enter sends without asking.
    second = "Gorgeous colour!!! :)"
    type_rich(page, "#field", second)
    page.keyboard.press("Enter")
    expect(page.locator("#sent li")).to_have_text([light, rewrite_of(second)], timeout=15_000)
    settle(auto, page)
    assert server.posts == [{"message": light}, {"message": rewrite_of(second)}]


def test_3_answer_no_types_the_new_line_and_is_remembered(
    auto: Browser, page: Page, server: PageServer
) -> None:
    page.goto(server.url("textarea.html"))  # a plain comment box: Enter is a new line here
    page.fill("#field", ORIGINAL)
    page.locator("#field").press("End")
    page.keyboard.press("Enter")
    ui = PageUi(page)
    ui.wait_for("message", "Does Enter send")
    ui.click("message", "No, Enter starts a new line")
    expect(page.locator("#field")).to_have_value(ORIGINAL + "\n")
    page.locator("#field").press("Enter")  # remembered: not asked again, a plain new line
    expect(page.locator("#field")).to_have_value(ORIGINAL + "\n\n")
    assert ui.texts("message") == []
    assert auto.sw.evaluate("chrome.storage.local.get('enterSends')") == {"enterSends": {"127.0.0.1": False}}


def test_3_ctrl_enter_in_a_plain_textarea_without_form(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    page.goto(server.url("far-send.html"))
    page.fill("#field", ORIGINAL)
    page.evaluate(
        """() => document.getElementById("field").addEventListener("keydown", (e) => {
             if (e.key === "Enter" && e.ctrlKey) { e.preventDefault(); document.getElementById("send").click(); }
           })"""
    )
    page.locator("#field").press("Control+Enter")
    expect(page.locator("#sent li")).to_have_text([light], timeout=15_000)
    settle(auto, page)
    assert server.posts == [{"message": light}]


# ---- 4 and 5. title + body form with a hidden captcha field -------------------------------------


def test_4_5_title_and_body_rewritten_hidden_and_non_text_fields_untouched(
    auto: Browser, page: Page, server: PageServer, light: str, rewrite_of
) -> None:
    before = jobs(auto)
    page.goto(server.url("post.html"))
    page.fill("#title", TITLE)
    page.fill("#body", ORIGINAL)
    page.fill("#email", "colour.fan@example.org")
    with page.expect_navigation(timeout=15_000):
        page.click("#send")
    assert server.posts == [
        {
            "title": rewrite_of(TITLE),
            "body": light,
            "rating": "5",
            "email": "colour.fan@example.org",
            "captcha": "03AFcWeA6 Colour!!! token :) innit",
            "csrf": "a1b2c3 realise",
        }
    ]
    assert jobs(auto) - before == 2  # the title and the body; nothing hidden went to the host


def test_4_enter_in_the_title_submits_with_both_fields_rewritten(
    auto: Browser, page: Page, server: PageServer, light: str, rewrite_of
) -> None:
    page.goto(server.url("post.html"))
    page.fill("#body", ORIGINAL)
    page.fill("#title", TITLE)
    with page.expect_navigation(timeout=15_000):
        page.locator("#title").press("Enter")  # implicit submission
    assert len(server.posts) == 1
    assert server.posts[0]["title"] == rewrite_of(TITLE)
    assert server.posts[0]["body"] == light
    assert server.posts[0]["captcha"] == "03AFcWeA6 Colour!!! token :) innit"


# ---- 6. the first send after page load ----------------------------------------------------------


def test_6_send_before_settings_are_loaded_is_held_until_they_are(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    """The first send after page load: a heavy page keeps the main thread busy while it loads (its draft
    restored in the field) and the user presses Enter meanwhile. The settings reply from storage waits in
    the same queue, and the renderer runs input before it, so the key is handled while the content script
    has no settings yet. What reaches the server is the rewrite."""
    # A large value stored ahead of the settings makes the storage read slow, as on a loaded profile.
    auto.sw.evaluate("chrome.storage.local.set({ ballast: 'x'.repeat(8_000_000) })")
    cdp = page.context.new_cdp_session(page)
    with page.expect_request("**/started.txt*"):
        page.goto(server.url(f"early.html?text={quote(ORIGINAL)}"), wait_until="commit")
    # The page is busy now: the key waits in the renderer's queue with the storage reply.
    for kind in ("keyDown", "keyUp"):
        cdp.send(
            "Input.dispatchKeyEvent",
            {"type": kind, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"},
        )
    page.wait_for_url("**/post", timeout=20_000)
    auto.sw.evaluate("chrome.storage.local.remove('ballast')")
    assert server.posts == [{"message": light}]


# ---- 7. iframe editors and editors that sync a hidden textarea at submit ---------------------------


def test_7_iframe_editor_synced_into_a_hidden_textarea(
    auto: Browser, page: Page, server: PageServer, light: str, rewrite_of
) -> None:
    page.goto(server.url("editor-frame.html"))
    page.fill("#title", TITLE)
    page.frame_locator("#editor").locator("body").click()
    page.keyboard.insert_text(ORIGINAL)
    with page.expect_navigation(timeout=15_000):
        page.click("#send")
    assert server.posts == [{"title": rewrite_of(TITLE), "body": light}]


def test_7_send_next_to_a_frame_from_another_origin_is_held_and_asked(
    auto: Browser, page: Page, server: PageServer
) -> None:
    """Text typed in a frame the extension cannot read: the send cannot be tied to a field it understands."""
    before = jobs(auto)
    page.goto(server.url("xframe.html"))
    frame = page.frame_locator("#editor")
    frame.locator("#field").click()
    page.keyboard.insert_text(ORIGINAL)
    page.click("#send")
    ui = PageUi(page)
    ui.wait_for("message", "from a frame Fantasma cannot read")
    settle(auto, page)
    assert server.posts == []
    assert jobs(auto) == before
    expect(frame.locator("#field")).to_have_text(ORIGINAL)
    with page.expect_navigation(timeout=15_000):
        ui.click("message", "Send as it is")  # the user's explicit choice
    assert server.posts == [{"body": ""}]


# ---- 8. a broken host and a send-button click -----------------------------------------------------


def test_8_host_error_and_send_button_nothing_posted_text_intact(
    browser: Browser, page: Page, server: PageServer, host_home: Path
) -> None:
    browser.set_settings(strength="extreme", autoRewrite=True)
    oracle = host_request(host_home, "rewrite", {"text": ORIGINAL, "options": {"strength": "extreme"}})
    assert oracle["type"] == "error"
    server.clear()
    page.goto(server.url("chat.html"))
    type_rich(page, "#field", ORIGINAL)
    page.click("#send")
    text = PageUi(page).wait_for("message", "Not sent")
    assert oracle["error"]["message"] in text
    settle(browser, page)
    assert server.posts == []
    expect(page.locator("#field")).to_have_text(ORIGINAL)  # the page never saw the click: not emptied
    expect(page.locator("#sent li")).to_have_count(0)


@pytest.fixture(scope="module")
def browser_with_crashing_host(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Browser]:
    """A host that is registered but dies at start (a broken install: its interpreter is gone)."""
    from native_host.install.installer import write_host_manifest

    user_data_dir = tmp_path_factory.mktemp("chromium_profile_crashing_host")
    launcher = user_data_dir / "launcher" / "fantasma-host"
    launcher.parent.mkdir()
    launcher.write_text("#!/bin/sh\necho 'python3: No module named native_host' >&2\nexit 1\n")
    launcher.chmod(0o755)
    write_host_manifest(user_data_dir / "NativeMessagingHosts", "chromium", launcher)
    context = launch(playwright_instance, user_data_dir)
    yield Browser(context)
    context.close()


@pytest.mark.parametrize("page_name", ["chat.html", "icon-send.html"])
def test_8_crashing_host_and_send_button_nothing_posted_text_intact(
    browser_with_crashing_host: Browser, server: PageServer, page_name: str
) -> None:
    browser_with_crashing_host.set_settings(autoRewrite=True)
    server.clear()
    page = browser_with_crashing_host.context.new_page()
    page.goto(server.url(page_name))
    if page_name == "chat.html":
        type_rich(page, "#field", ORIGINAL)
    else:
        page.fill("#field", ORIGINAL)
    page.click("#send")
    text = PageUi(page).wait_for("message", "Not sent")
    assert "host stopped" in text, text  # the reason, in words
    settle(browser_with_crashing_host, page)
    assert server.posts == []
    field = page.locator("#field")
    if page_name == "chat.html":
        expect(field).to_have_text(ORIGINAL)
    else:
        expect(field).to_have_value(ORIGINAL)
    expect(page.locator("#sent li")).to_have_count(0)
    page.close()


# ---- the other direction: the page must not drive the extension ---------------------------------


def test_page_requestsubmit_starts_no_host_work_and_is_held(
    auto: Browser, page: Page, server: PageServer, light: str
) -> None:
    page.goto(server.url("autosubmit.html"))
    before = jobs(auto)
    page.locator("#field").press_sequentially("Colour!!!", delay=20)  # real keys: user activation is active
    page.fill("#field", ORIGINAL)
    page.evaluate("() => window.submitNow()")  # and the page submits at once, by itself
    ui = PageUi(page)
    ui.wait_for("message", "tried to send your text by itself")
    page.wait_for_timeout(800)  # the page's own timer submits again meanwhile
    settle(auto, page)
    assert server.posts == []
    assert jobs(auto) == before, "a page's own submit must not start host work"
    expect(page.locator("#field")).to_have_value(ORIGINAL)
    # The user decides: rewrite and send.
    with page.expect_navigation(timeout=15_000):
        ui.click("message", "Rewrite and send")
    assert server.posts == [{"message": light}]
    assert jobs(auto) == before + 1


def test_page_cannot_read_plant_or_press_the_in_page_ui(
    browser: Browser, page: Page, server: PageServer, host_home: Path
) -> None:
    browser.set_settings(strength="extreme", autoRewrite=True)
    server.clear()
    page.goto(server.url("plant.html"))
    page.fill("#field", ORIGINAL)
    page.click("#send")  # the host fails: "Not sent" with a "Send original" button
    ui = PageUi(page)
    ui.wait_for("message", "Not sent")
    readable = page.evaluate("window.readable()")
    assert "Not sent" not in readable and "Send original" not in readable
    assert page.evaluate("document.getElementById('planted').shadowRoot.childNodes.length") == 0
    assert page.evaluate("window.stolen") == []  # the page's attachShadow hook never saw ours
    assert page.evaluate("window.pressEverything()") > 0
    settle(browser, page)
    assert server.posts == []
    ui.wait_for("message", "Not sent")  # still there: the synthetic clicks reached nothing of ours

    # The marker panel (findings from the user's profile) is not readable by the page either.
    browser.set_settings(strength="light")
    report = host_request(host_home, "analyze", {"text": ORIGINAL})
    evidence = [f.get("evidence") or f.get("reason") for f in report["result"]["findings"]]
    browser.menu(page, "#field", "fantasma-markers")
    ui.wait_for("markers")
    readable = page.evaluate("window.readable()")
    assert not any(e and e in readable for e in evidence)
    assert "Style habits" not in readable


def test_identifiability_figure_is_shown_next_to_the_field_after_a_rewrite(
    browser: Browser, page: Page, server: PageServer, host_home: Path, light: str
) -> None:
    browser.set_settings(strength="light")
    oracle = host_request(host_home, "rewrite", {"text": ORIGINAL, "options": {"strength": "light"}})
    before = oracle["result"]["identifiability_before"]["score"]
    after = oracle["result"]["identifiability_after"]["score"]
    page.goto(server.url("textarea.html"))
    page.fill("#field", ORIGINAL)
    browser.menu(page, "#field", "fantasma-anonymize")
    expect(page.locator("#field")).to_have_value(light, timeout=15_000)
    PageUi(page).wait_for("figure", f"identifiability {before:.2f} → {after:.2f}")

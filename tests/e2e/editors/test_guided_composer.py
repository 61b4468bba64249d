"""The composer as a guide, in real Chromium and real Firefox with the real host (PROTOCOL.md `guide`,
`guide.alternatives`): typing updates the meter and the shading of the sentences; the top sentence offers
alternatives; accepting one changes only that sentence; Insert puts the composer's text into a real
editor (TipTap/ProseMirror) and one Ctrl+Z restores what the field held. The host over pipes, in the
same home, is the oracle for every figure shown. The flow runs in typicality mode (no writing samples:
the shading and alternatives work the same way); the last test stores samples, for the meter's words in
profile mode."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright, expect

from native_host import wording
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus

from ..bidi import Firefox
from ..harness import Browser, chromium_with_host, home_with_models, host_request, register_host
from ..server import PageServer
from ..test_composer import assert_fits, composer_window_size
from ..test_firefox import FIREFOX, composer_context
from .cases import EDITORS, UNDO_GROUP_MS
from .test_firefox_editors import CONTROL, EditorFirefox
from .test_real_editors import EditorPage

TIPTAP = next(e for e in EDITORS if e.name == "tiptap")
PRIOR = "A first draft."  # what the field holds before Insert: one undo gives it back
# The emoji lies outside the BMP: one code point for the host, two UTF-16 units for the page's strings, so
# every offset after it is right only if the background converts it (both ways). "0.5" is one sentence's.
# FIRST reads as quoted verse, which the guide never names first (nor says that no sentence stands out:
# it has a share and its own reason); the sentence SECOND adds gives most away and has a rule alternative
# ("Whilst" → "While"), as the oracle checks.
FIRST = "Cheers, mate 😍, And sing with me, Of the 0.5 inches of rain, And of the wind."
SECOND = " Whilst I am upon the matter, the report is due."  # typed after the meter has answered for FIRST
TEXT = FIRST + SECOND

# The composer's sentences: [their text, their --share shading, their rank mark] in reading order.
SENTENCES_JS = """() => [...document.querySelectorAll('#sentences .sentence')].map((s) =>
  [s.firstChild.textContent, Number(s.style.getPropertyValue('--share')), s.querySelector('sup')?.textContent ?? ''])"""


@pytest.fixture(scope="module")
def guide_home(tmp_path_factory: pytest.TempPathFactory, embedder_model_dir: Path) -> Path:
    """A FANTASMA_HOME with the meaning embedder and no language model: the alternatives are the search's
    rule edits."""
    return home_with_models(tmp_path_factory.mktemp("e2e_guide_home"), embedder_model_dir)


@pytest.fixture(scope="module")
def oracle(guide_home: Path) -> dict:
    """The host's own guide for FIRST and TEXT, and its alternatives for TEXT's top sentence."""
    guides = {}
    for text in (FIRST, TEXT):
        reply = host_request(guide_home, "guide", {"text": text})
        assert reply["type"] == "result", reply
        guides[text] = reply["result"]
    top = guides[TEXT]["sentences"][guides[TEXT]["top"][0]]
    reply = host_request(
        guide_home, "guide.alternatives", {"text": TEXT, "start": top["start"], "end": top["end"]}
    )
    assert reply["type"] == "result", reply
    alternatives = reply["result"]["alternatives"]
    assert alternatives, f"the test text's top sentence must have an alternative: {reply['result']}"
    return {"guide": guides, "top": top, "alternatives": alternatives}


def meter_sentence(level_words: str) -> str:
    """What the meter says for a level (extension/composer/composer.js meterSentence)."""
    verb = "is " if level_words.split()[0] in ("likely", "possibly", "unlikely") else ""
    return f"This text {verb}{level_words}."


def expected_sentences(text: str, report: dict) -> list[list]:
    """The sentences as the composer must show them: text, shading (share / the largest share), rank."""
    most = max(s["share"] for s in report["sentences"])
    ranks = {index: str(n + 1) for n, index in enumerate(report["top"])}
    return [
        [text[s["start"] : s["end"]], s["share"] / most if most else 0.0, ranks.get(i, "")]
        for i, s in enumerate(report["sentences"])
    ]


def assert_sentences(shown: list[list], text: str, report: dict) -> None:
    want = expected_sentences(text, report)
    assert [s[0] for s in shown] == [w[0] for w in want], shown
    assert [s[2] for s in shown] == [w[2] for w in want], shown
    assert [round(s[1], 3) for s in shown] == [round(w[1], 3) for w in want], shown


def replaced(text: str, sentence: dict, new: str) -> str:
    return text[: sentence["start"]] + new + text[sentence["end"] :]


# ---- Chromium ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guide_browser(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory, guide_home: Path
) -> Iterator[Browser]:
    with chromium_with_host(
        playwright_instance, tmp_path_factory.mktemp("chromium_profile_guide"), guide_home
    ) as b:
        yield b


def wait_guide(composer: Page, text: str, report: dict) -> None:
    """Waits until the composer shows the guide for `text`, then checks it against the oracle's report."""
    composer.wait_for_function(
        f"() => !document.querySelector('#sentences').classList.contains('stale') && "
        f"({SENTENCES_JS})().map((s) => s[0]).join('|') === {json.dumps('|'.join(e[0] for e in expected_sentences(text, report)))}",
        timeout=30_000,
    )
    expect(composer.locator("#meter")).to_have_text(meter_sentence(report["level_words"]))
    expect(composer.locator("#meter-figure")).to_have_text(f"score {report['score']:.2f} of 1")
    assert_sentences(composer.evaluate(SENTENCES_JS), text, report)


def test_chromium_typing_guides_the_top_sentence_offers_alternatives_and_insert_lands_once(
    guide_browser: Browser, server: PageServer, oracle: dict
) -> None:
    guide_browser.set_settings()
    page = guide_browser.context.new_page()
    ed = EditorPage(page, TIPTAP, server)
    ed.type(PRIOR)
    with guide_browser.context.expect_page() as opened:
        ed.menu(guide_browser, "fantasma-compose")
    composer = opened.value
    composer.wait_for_load_state()
    width, height = composer_window_size()
    composer.set_viewport_size({"width": width, "height": height})
    composer.check("#show-figures")  # the figures on demand: the oracle's digits are compared too

    draft = composer.locator("#draft")
    draft.press_sequentially(FIRST)  # real keys: the meter answers after a pause in typing
    wait_guide(composer, FIRST, oracle["guide"][FIRST])
    verse = oracle["guide"][FIRST]
    assert verse["top"] == [] and verse["sentences"][0]["reasons"] == [wording.REASON_VERSE]  # as chosen
    expect(composer.locator("#top-none")).to_be_hidden()
    expect(composer.locator("#top .reasons li")).to_have_text([wording.REASON_VERSE])
    # Typicality mode: the composer says where samples are added (the options), never a terminal command.
    expect(composer.locator("#guide-status")).to_contain_text("in the options")
    assert "fantasma " not in composer.locator("#guide-status").inner_text()
    jobs = guide_browser.sw.evaluate("fantasmaBackground.stats.jobs")
    draft.press("End")
    draft.press_sequentially(SECOND)
    report = oracle["guide"][TEXT]
    wait_guide(composer, TEXT, report)
    expect(composer.locator("#top-none")).to_be_hidden()
    # Debounced: a request after a pause in typing, not one per key.
    assert guide_browser.sw.evaluate("fantasmaBackground.stats.jobs") - jobs < len(SECOND) / 3
    top = oracle["top"]
    expect(composer.locator("#top .top-sentence").first).to_contain_text(
        TEXT[top["start"] : top["end"]].strip()
    )
    # Its reasons in the host's words, one line each (a reason holds a ";" of its own); the composer sent
    # the text of its last reply as `previous`, so a reason may say what the new wording brought in.
    want = report["sentences"][report["top"][0]]["reasons"]
    assert want and "'whilst'" in want[0] and "others write 'while'" in want[0], want
    reasons = composer.locator("#top > li").first.locator(".reasons li")
    expect(reasons).to_have_count(len(want))
    got = reasons.all_inner_texts()
    assert [r.removeprefix("your new wording brought this in: ") for r in got] == want, got

    # A click on the top sentence (the shaded span marked 1) offers its alternatives, with their effect.
    composer.locator("#sentences .sentence", has=composer.locator("sup", has_text="1")).click()
    shown = composer.locator("#alt-list .alt-sentence")
    expect(shown).to_have_count(len(oracle["alternatives"]), timeout=60_000)
    assert shown.evaluate_all("(all) => all.map((e) => e.textContent)") == [
        a["sentence"] for a in oracle["alternatives"]
    ]
    first = oracle["alternatives"][0]
    expect(composer.locator("#alt-list .effect").first).to_contain_text(
        f"{report['score']:.2f} → {first['score']:.2f}"
    )
    assert (
        "/" not in composer.locator("#alt-status").inner_text()
    )  # no paths: the host's reason is in its tooltip
    assert_fits(composer)  # the fullest state fits the window the background opens

    # Accepting one changes that sentence only; the meter follows.
    composer.locator(".use-alternative").first.click()
    want = replaced(TEXT, top, first["sentence"])
    assert want == first["text"]
    expect(draft).to_have_value(want)
    expect(composer.locator("#meter-figure")).to_have_text(f"score {first['score']:.2f} of 1", timeout=30_000)
    expect(composer.locator("#alternatives")).to_be_hidden()
    draft.press("Control+z")  # the box's own undo takes the accepted sentence back, and redo again
    expect(draft).to_have_value(TEXT)
    draft.press("Control+Shift+z")
    expect(draft).to_have_value(want)

    # Insert: the composer's text, once, as one edit the editor's own undo reverts.
    with composer.expect_event("close"):
        composer.click("#insert")
    ed.wait_model(want)
    page.wait_for_timeout(300)  # a late second insertion would show here
    assert ed.model() == want
    page.bring_to_front()
    ed.field.press("Control+z")
    ed.wait_model(PRIOR)
    page.close()


# ---- Firefox ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guide_firefox(tmp_path_factory: pytest.TempPathFactory, guide_home: Path) -> Iterator[EditorFirefox]:
    if not Path(FIREFOX).exists():
        pytest.fail("firefox-esr is missing: run scripts/install-system-deps.sh (make test-install does)")
    home = tmp_path_factory.mktemp("firefox_guide_home")
    register_host(home / ".mozilla" / "native-messaging-hosts", "firefox", guide_home)
    browser = Firefox(FIREFOX, tmp_path_factory.mktemp("firefox_guide_profile"), home, {})
    try:
        yield EditorFirefox(browser)
    finally:
        browser.close()


def keys(firefox: EditorFirefox, context: str, *values: str) -> None:
    """Key presses, one after another, into a browsing context (WebDriver key values: "\\ue007" Enter)."""
    actions = []
    for value in values:
        actions += [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]
    firefox.bidi.send(
        "input.performActions",
        {"context": context, "actions": [{"type": "key", "id": "kb", "actions": actions}]},
    )


def test_firefox_the_guide_by_keyboard_and_insert_into_a_real_editor(
    guide_firefox: EditorFirefox, server: PageServer, oracle: dict
) -> None:
    ff = guide_firefox
    ff.set_settings()
    ff.open(server, TIPTAP)
    ff.click(ff._field_js())
    ff.type_text(PRIOR)
    ff.wait_model(PRIOR, timeout=10)
    time.sleep(UNDO_GROUP_MS / 1000)
    ff.menu("fantasma-compose")
    composer = composer_context(ff)
    evaluate = lambda js: ff.bidi.evaluate(composer, js)  # noqa: E731
    wait = lambda js, timeout=30: ff.bidi.wait_for(composer, js, timeout=timeout)  # noqa: E731

    evaluate("document.querySelector('#draft').focus() ?? true")
    ff.type_text(FIRST, context=composer)
    for text in (FIRST, TEXT):
        if text == TEXT:
            ff.type_text(SECOND, context=composer)
        report = oracle["guide"][text]
        joined = "|".join(e[0] for e in expected_sentences(text, report))
        wait(
            f"!document.querySelector('#sentences').classList.contains('stale') && "
            f"({SENTENCES_JS})().map((s) => s[0]).join('|') === {json.dumps(joined)}"
        )
        assert evaluate("document.querySelector('#meter').textContent") == meter_sentence(
            report["level_words"]
        )
        assert_sentences(evaluate(f"({SENTENCES_JS})()"), text, report)

    # Keyboard only: Tab reaches the sentences (one tab stop), the arrow keys the top one; Enter offers its
    # alternatives, Escape closes them, Enter again reopens them, Space on "Use this" accepts the first.
    top = oracle["top"]
    evaluate("document.querySelector('#draft').focus() ?? true")
    keys(ff, composer, "\ue004")  # Tab: the "Figures" switch
    assert evaluate("document.activeElement.id") == "show-figures"
    keys(ff, composer, "\ue004")  # typicality mode: where to add samples
    assert evaluate("document.activeElement.id") == "open-options"
    keys(ff, composer, "\ue004")  # the sentences: one tab stop, on the first
    assert evaluate("document.activeElement.dataset.index") == "0"
    keys(ff, composer, *["\ue014"] * oracle["guide"][TEXT]["top"][0])  # Right arrow, sentence by sentence
    assert evaluate("document.activeElement.getAttribute('role')") == "button"
    label = evaluate("document.activeElement.getAttribute('aria-label')")
    assert "number 1 of what gives you away most" in label and TEXT[top["start"] : top["end"]] in label
    keys(ff, composer, "\ue007")  # Enter
    count = len(oracle["alternatives"])
    wait(f"document.querySelectorAll('#alt-list .alt-sentence').length === {count}", timeout=60)
    size = evaluate(
        "({ sw: document.documentElement.scrollWidth, iw: innerWidth, sh: document.documentElement.scrollHeight,"
        " ih: innerHeight, insert: document.querySelector('#insert').getBoundingClientRect().bottom })"
    )
    assert size["sw"] <= size["iw"] and size["sh"] <= size["ih"] and size["insert"] <= size["ih"], (
        size
    )  # Firefox's real window
    keys(ff, composer, "\ue00c")  # Escape
    wait(
        "document.querySelector('#alternatives').hidden && document.activeElement.classList.contains('sentence')"
    )
    keys(ff, composer, "\ue007")
    wait(f"document.querySelectorAll('#alt-list .use-alternative').length === {count}", timeout=60)
    evaluate("document.querySelector('.use-alternative').focus() ?? true")
    keys(ff, composer, "\ue00d")  # Space
    want = replaced(TEXT, top, oracle["alternatives"][0]["sentence"])
    wait(f"document.querySelector('#draft').value === {json.dumps(want)}", timeout=10)

    evaluate("document.querySelector('#insert').focus() ?? true")
    keys(ff, composer, "\ue007")
    ff.wait_model(want)
    ff.chrome_eval("(() => { window.focus(); gBrowser.selectedBrowser.focus(); return true; })()")
    ff.bidi.evaluate(ff.page, "document.querySelector('.ProseMirror').focus() ?? true")
    ff.press(CONTROL, "z")
    ff.wait_model(PRIOR)


def test_chromium_with_writing_samples_the_meter_speaks_of_the_writer(
    guide_browser: Browser, server: PageServer, guide_home: Path
) -> None:
    """Profile mode: with samples of the writer stored (through the extension, as the options page adds
    them), the meter says how likely the text is to be linked to *them* and what it compared with; no
    pointer to the options. Last in the module: the samples are removed afterwards."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 2, 1, 4)
    samples = "\n\n".join(c.text for c in split.train if c.author == "Hamilton")
    text = " ".join(next(c.text for c in split.test if c.author == "Hamilton").split()[:120])
    add = "(t) => fantasmaBackground.host.request('profile.add', { text: t }, { timeoutMs: 60000 }).then(() => true)"
    assert guide_browser.sw.evaluate(add, samples)
    try:
        report = host_request(guide_home, "guide", {"text": text})["result"]
        assert report["mode"] == "profile", report
        page = guide_browser.context.new_page()
        page.goto(server.url("thread.html"))
        with guide_browser.context.expect_page() as opened:
            guide_browser.menu(page, "#body", "fantasma-compose")
        composer = opened.value
        composer.wait_for_load_state()
        composer.locator("#draft").fill(text)
        wait_guide(composer, text, report)
        assert report["level_words"].endswith("linked to you")
        expect(composer.locator("#guide-status")).to_have_text(f"Compared with {report['compared_with']}.")
        expect(composer.locator("#open-options")).to_be_hidden()
        composer.close()
        page.close()
    finally:
        guide_browser.sw.evaluate(
            "() => fantasmaBackground.host.request('profile.clear', {}).then(() => true)"
        )

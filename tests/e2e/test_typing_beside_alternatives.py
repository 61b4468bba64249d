"""Typing while a sentence's alternatives load, in Chromium and Firefox with the real host and the real
embedded language model: the meter follows the text before the alternatives arrive (the composer's
`guide` runs on the host's light lane beside the `guide.alternatives` job, PROTOCOL.md and
native_host/host/server.py), and the alternatives that then arrive are shown for the sentence as it
was, marked as being for the text as it was, with "Use this" off; from the first key on, the status
says the text has changed (a progress event of the job still running must not put "Looking…" back).

The order is read from the page's own record (a MutationObserver and a key listener in the composer),
not from timings: which came first, the meter for the new text or the alternatives. The keystroke →
meter time is printed, never asserted (tests/test_no_speed_limits.py); bench/bench_guide.py --beside
measures the guide beside a running `guide.alternatives` against the 1 s goal.

The model is the embedded default; each token it generates is slowed (FANTASMA_DEBUG_TOKEN_DELAY_S,
test-only, honoured with FANTASMA_HOST_DEBUG=1: native_host/models/cache.py) so that the alternatives
last seconds past the composer's pause in typing however fast this machine's model is, and each
token is written to a file (FANTASMA_DEBUG_EVENTS_FILE) so the test types only once the model is
generating. The host over pipes, in the same home, is the oracle for the meter and the alternatives.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Playwright, expect

from .bidi import Firefox
from .editors.test_guided_composer import meter_sentence
from .harness import ROOT, Browser, home_with_models, host_request, launch, register_host
from .server import PageServer
from .test_firefox import FIREFOX, FirefoxSession, composer_context

pytestmark = pytest.mark.slow

# Four sentences; the third, long one is picked: its model window takes many tokens.
TEXT = (
    "We met at the station just after nine and walked to the market. The stalls were busy, and the fish "
    "looked fresh. Upon the whole, it is evident that the powers of the Union, which the people have "
    "granted with a caution that does them credit, ought to be considered upon principles of the utmost "
    "importance, and that every argument which has been advanced against them deserves a patient and a "
    "candid examination before it is either accepted or dismissed. My sister bought bread and a bag of "
    "apples for the train."
)
PICKED = 2
CHANGE = " The rain had stopped by then."  # typed at the end while the alternatives load
NEW = TEXT + CHANGE
TOKEN_DELAY_S = "0.05"
LOOKING = "Looking for other ways to say it"
CHANGED = "The text has changed"
STALE = "The text has changed: these alternatives were for the text as it was."

# Records, in the composer, each key pressed in the box, each meter the guide puts up (data-guide
# "done"), each change of the alternatives' status line and the moment they stop loading (aria-busy
# removed), each with the page's clock and what the page shows then.
RECORD_JS = """() => {
  const log = [];
  const $ = (id) => document.getElementById(id);
  const state = () => ({
    t: performance.now(),
    text: $("draft").value,
    busy: $("alternatives").getAttribute("aria-busy") === "true",
    items: $("alt-list").children.length,
    status: $("alt-status").textContent,
    meter: $("meter").textContent,
    figure: $("meter-figure").textContent,
    sentences: [...document.querySelectorAll("#sentences .sentence")].map((s) => s.firstChild.textContent),
  });
  $("draft").addEventListener("keydown", (e) => log.push({ what: "key", trusted: e.isTrusted, ...state() }), true);
  new MutationObserver(() => {
    if (document.body.dataset.guide === "done") log.push({ what: "meter", ...state() });
  }).observe(document.body, { attributes: true, attributeFilter: ["data-guide"] });
  new MutationObserver(() => log.push({ what: "status", ...state() }))
    .observe($("alt-status"), { childList: true, characterData: true, subtree: true });
  new MutationObserver(() => {
    if (!state().busy) log.push({ what: "arrived", ...state() });
  }).observe($("alternatives"), { attributes: true, attributeFilter: ["aria-busy"] });
  window.recorded = log;
  return true;
}"""

# What the alternatives box shows once they arrived.
SHOWN_JS = """() => ({
  number: document.querySelector("#alt-number").textContent,
  original: document.querySelector("#alt-original").textContent,
  status: document.querySelector("#alt-status").textContent,
  sentences: [...document.querySelectorAll("#alt-list .alt-sentence")].map((e) => e.textContent),
  usable: [...document.querySelectorAll("#alt-list .use-alternative")].filter((b) => !b.disabled).length,
  chosen: document.querySelectorAll("#sentences .sentence.chosen").length,
  text: document.querySelector("#draft").value,
})"""


@pytest.fixture(scope="module")
def typing_home(
    tmp_path_factory: pytest.TempPathFactory, embedder_model_dir: Path, default_model_dir: Path
) -> Path:
    """The embedded model and the embedder installed; no writing samples (typicality mode)."""
    return home_with_models(tmp_path_factory.mktemp("e2e_typing_home"), embedder_model_dir, default_model_dir)


@pytest.fixture(scope="module")
def oracle(typing_home: Path) -> dict:
    """The host's guide of TEXT and of NEW (asked as the composer asks, with the text before), and its
    alternatives for TEXT's picked sentence."""
    before = host_request(typing_home, "guide", {"text": TEXT})["result"]
    after = host_request(typing_home, "guide", {"text": NEW, "previous": TEXT})["result"]
    assert len(after["sentences"]) == len(before["sentences"]) + 1, after
    assert f"{after['score']:.2f}" != f"{before['score']:.2f}", "CHANGE must move the meter's figure"
    sentence = before["sentences"][PICKED]
    assert sentence["end"] - sentence["start"] > 300, "the picked sentence is the long one"
    reply = host_request(
        typing_home,
        "guide.alternatives",
        {"text": TEXT, "start": sentence["start"], "end": sentence["end"], "max": 3},
        timeout=300,
    )
    assert reply["type"] == "result" and reply["result"]["alternatives"], reply
    assert reply["result"]["reason"] == "", "the model must answer, not rule edits alone"
    return {"before": before, "after": after, "alternatives": reply["result"]["alternatives"]}


def slow_model(events: Path) -> dict[str, str]:
    """The environment the browser passes on to the host it starts: slowed tokens, written to `events`;
    and this checkout's native_host first on the path (a venv shared by several checkouts has its
    editable install pointing at one of them: the lane this test guards must be this checkout's)."""
    return {
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
        "FANTASMA_HOST_DEBUG": "1",
        "FANTASMA_DEBUG_TOKEN_DELAY_S": TOKEN_DELAY_S,
        "FANTASMA_DEBUG_EVENTS_FILE": str(events),
    }


def wait_for_generation(events: Path, timeout: float = 120.0) -> None:
    """Until the host's language model has generated a token (its debug events file says so)."""
    deadline = time.monotonic() + timeout
    while "token" not in (events.read_text(encoding="utf-8").splitlines() if events.exists() else []):
        assert time.monotonic() < deadline, "the alternatives never reached the language model"
        time.sleep(0.05)


def sentences_of(text: str, report: dict) -> list[str]:
    return [text[s["start"] : s["end"]] for s in report["sentences"]]


def check_order(log: list[dict], oracle: dict, browser: str) -> None:
    """The record's order: every key pressed while the alternatives were loading, then the meter for the
    new text, then the alternatives; the changed-text note kept from the first key on. Prints the times."""
    keys = [i for i, e in enumerate(log) if e["what"] == "key"]
    arrived = [i for i, e in enumerate(log) if e["what"] == "arrived"]
    meters = [i for i, e in enumerate(log) if e["what"] == "meter" and e["text"] == NEW]
    events = [(e["what"], e["text"][len(TEXT) :], e["busy"], e["status"][:40]) for e in log]
    assert keys and arrived, events
    assert all(log[i]["trusted"] for i in keys), "real keys, not synthetic events"
    assert all(log[i]["busy"] and log[i]["items"] == 0 for i in keys), f"typed after they arrived: {events}"
    assert meters and meters[0] < arrived[0], f"the meter waited for the alternatives: {events}"
    shown = log[meters[0]]
    report = oracle["after"]
    assert shown["busy"] and shown["items"] == 0, shown  # still loading when the meter spoke
    assert shown["sentences"] == sentences_of(NEW, report), shown
    assert shown["figure"] == f"score {report['score']:.2f} of 1", shown
    assert shown["meter"] == meter_sentence(report["level_words"]), shown
    # From the first key on, the status line says that the text changed: a late progress event of the
    # job must not put "Looking…" back, as if what comes were for the text in the box.
    statuses = [e["status"] for e in log[keys[0] :] if e["what"] in ("status", "arrived")]
    assert statuses and all(s.startswith(CHANGED) for s in statuses), statuses
    last_key = max(i for i in keys if i < meters[0])
    print(
        f"\n{browser}: keystroke -> meter {shown['t'] - log[last_key]['t']:.0f} ms after the last key "
        f"({shown['t'] - log[keys[0]]['t']:.0f} ms after the first; the composer's pause in typing "
        f"included); the alternatives arrived {log[arrived[0]]['t'] - shown['t']:.0f} ms after the meter"
    )


def check_arrived(shown: dict, oracle: dict) -> None:
    """The alternatives, once arrived: for the picked sentence of the text as it was, said so, not usable."""
    picked = oracle["before"]["sentences"][PICKED]
    assert shown["text"] == NEW
    assert shown["number"] == str(PICKED + 1) and shown["original"] == TEXT[picked["start"] : picked["end"]]
    assert shown["sentences"] == [a["sentence"] for a in oracle["alternatives"]], shown
    assert shown["status"] == STALE, shown
    assert shown["usable"] == 0, shown  # "Use this" is off: they were made for another text
    assert shown["chosen"] == 0, shown  # the new text's sentences: none is the one picked in the old


# ---- Chromium ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def typing_chromium(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory, typing_home: Path
) -> Iterator[tuple[Browser, Path]]:
    user_data_dir = tmp_path_factory.mktemp("chromium_profile_typing")
    events = tmp_path_factory.mktemp("chromium_typing_events") / "events.txt"
    register_host(user_data_dir / "NativeMessagingHosts", "chromium", typing_home)
    context = launch(playwright_instance, user_data_dir, env=slow_model(events))
    try:
        yield Browser(context), events
    finally:
        context.close()


def test_chromium_typing_while_alternatives_load_updates_the_meter_before_they_arrive(
    typing_chromium: tuple[Browser, Path], server: PageServer, oracle: dict, artifacts: Path
) -> None:
    browser, events = typing_chromium
    browser.set_settings()
    page = browser.context.new_page()
    page.goto(server.url("textarea.html"))
    with browser.context.expect_page() as opened:
        browser.menu(page, "#field", "fantasma-compose")
    composer = opened.value
    composer.wait_for_load_state()
    draft = composer.locator("#draft")
    draft.fill(TEXT)
    expect(composer.locator("#sentences .sentence")).to_have_count(
        len(oracle["before"]["sentences"]), timeout=60_000
    )
    expect(composer.locator("body")).to_have_attribute("data-guide", "done")
    composer.evaluate(RECORD_JS)

    composer.locator(f'#sentences .sentence[data-index="{PICKED}"]').click()
    expect(composer.locator("#alternatives")).to_have_attribute("aria-busy", "true")
    expect(composer.locator("#alt-status")).to_contain_text(LOOKING)
    wait_for_generation(events)
    draft.press("Control+End")
    draft.press_sequentially(CHANGE)  # real keys, while the model generates the picked sentence's
    expect(composer.locator("#alternatives")).not_to_have_attribute("aria-busy", "true", timeout=120_000)

    check_order(composer.evaluate("window.recorded"), oracle, "Chromium")
    check_arrived(composer.evaluate(SHOWN_JS), oracle)
    composer.screenshot(path=str(artifacts / "composer-alternatives-for-the-text-as-it-was.png"))
    composer.close()
    page.close()


# ---- Firefox ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def typing_firefox(
    tmp_path_factory: pytest.TempPathFactory, typing_home: Path
) -> Iterator[tuple[FirefoxSession, Path]]:
    if not Path(FIREFOX).exists():
        pytest.fail("firefox-esr is missing: run scripts/install-system-deps.sh (make test-install does)")
    home = tmp_path_factory.mktemp("firefox_home_typing")
    events = tmp_path_factory.mktemp("firefox_typing_events") / "events.txt"
    register_host(home / ".mozilla" / "native-messaging-hosts", "firefox", typing_home)
    browser = Firefox(
        FIREFOX, tmp_path_factory.mktemp("firefox_profile_typing"), home, {}, env=slow_model(events)
    )
    try:
        yield FirefoxSession(browser), events
    finally:
        browser.close()


def test_firefox_typing_while_alternatives_load_updates_the_meter_before_they_arrive(
    typing_firefox: tuple[FirefoxSession, Path], server: PageServer, oracle: dict
) -> None:
    ff, events = typing_firefox
    ff.bidi.send("browsingContext.activate", {"context": ff.page})
    ff.bidi.navigate(ff.page, server.url("textarea.html"))
    ff.context_menu_item("#field", "fantasma-compose")
    composer = composer_context(ff)
    evaluate = lambda js: ff.bidi.evaluate(composer, js)  # noqa: E731
    wait = lambda js, timeout=30: ff.bidi.wait_for(composer, js, timeout=timeout)  # noqa: E731

    evaluate(
        f"""(() => {{ const box = document.querySelector('#draft'); box.focus();
             document.execCommand('insertText', false, {json.dumps(TEXT)}); return true; }})()"""
    )
    count = len(oracle["before"]["sentences"])
    wait(
        f"document.querySelectorAll('#sentences .sentence').length === {count}"
        " && document.body.dataset.guide === 'done'",
        timeout=60,
    )
    evaluate(f"({RECORD_JS})()")

    # A real click on the picked sentence (the middle of its first line box).
    x, y = evaluate(
        f"""(() => {{ const span = document.querySelector('#sentences .sentence[data-index="{PICKED}"]');
             span.scrollIntoView({{ block: 'center' }}); const r = span.getClientRects()[0];
             return [r.x + r.width / 2, r.y + r.height / 2]; }})()"""
    )
    mouse = [
        {"type": "pointerMove", "x": int(x), "y": int(y)},
        {"type": "pointerDown", "button": 0},
        {"type": "pointerUp", "button": 0},
    ]
    ff.bidi.send(
        "input.performActions",
        {
            "context": composer,
            "actions": [
                {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": mouse}
            ],
        },
    )
    wait("document.querySelector('#alternatives').getAttribute('aria-busy') === 'true'", timeout=10)
    assert LOOKING in evaluate("document.querySelector('#alt-status').textContent")
    wait_for_generation(events)
    evaluate(
        """(() => { const box = document.querySelector('#draft'); box.focus();
             box.setSelectionRange(box.value.length, box.value.length); return true; })()"""
    )
    ff.type_text(CHANGE, context=composer)  # real keys, while the model generates
    wait("document.querySelector('#alternatives').getAttribute('aria-busy') !== 'true'", timeout=120)

    check_order(evaluate("window.recorded"), oracle, "Firefox")
    check_arrived(evaluate(f"({SHOWN_JS})()"), oracle)

"""What "unlikely" does not read, said where the meter says it, and why it is not said without suspects:
in Chromium and Firefox with the real host, with Hamilton's Federalist papers stored as the writer's
samples (profile mode). With no one named a reader might suspect, a passage of Emily Brontë reads
"possibly" (the meter goes no lower: without rivals "unlikely" did not keep its promise, docs/results.md)
and the composer says how to let it say more, with the options one click away. With Emily Brontë's other
writing stored as a rival, the same passage reads "unlikely to be linked to you", and beside the meter's
status the composer says that the meter reads how you write and that names, places, numbers and the
subject can still point to you. A held-out Hamilton passage reads "likely" and neither is said. At
"unlikely" no sentence of the list "gives a lot away" (a writer in the writer study took that for a
contradiction). The host over pipes, in the same home, is the oracle for the levels; the browsers start
this checkout's host (PYTHONPATH)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright, expect

from native_host.eval.corpora import find_corpus, load_manifest, split_corpus

from .bidi import Firefox
from .harness import ROOT, Browser, host_request, launch, register_host
from .server import PageServer
from .test_composer import open_composer
from .test_firefox import FIREFOX, FirefoxSession, composer_context

pytestmark = pytest.mark.e2e

# extension/_locales/en/messages.json composerUnlikelyCaveat
CAVEAT = (
    "The meter reads how you write, compared with the people you named, and is no guarantee. Someone you did "
    "not name, names, places, numbers and what the text is about can "
    "still point to you."
)
# composerNeedsSuspects, read from the locale file the page reads
NEEDS = json.loads((ROOT / "extension" / "_locales" / "en" / "messages.json").read_text(encoding="utf-8"))[
    "composerNeedsSuspects"
]["message"]
WORDS = 120
RIVAL = "Emily"


def texts() -> dict[str, str]:
    """Hamilton's samples (stored as the writer's own), 120 words of a held-out Hamilton paper, 120 words of
    Emily Brontë (another writer, another century's novel), and her training chunks (the rival's)."""
    manifest = load_manifest()
    federalist = split_corpus(find_corpus("federalist", manifest), 2, 1, 4)
    bronte = split_corpus(find_corpus("bronte", manifest), 3, 1, 4)
    emily = " ".join(next(c.text for c in bronte.test if c.author == "Emily Brontë").split()[:WORDS])
    return {
        "samples": "\n\n".join(c.text for c in federalist.train if c.author == "Hamilton"),
        "rival": "\n\n".join(c.text for c in bronte.train if c.author == "Emily Brontë"),
        "likely": " ".join(next(c.text for c in federalist.test if c.author == "Hamilton").split()[:WORDS]),
        "held": emily,
        "unlikely": emily,
    }


@pytest.fixture(scope="module")
def caveat_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e2e_caveat_home")


def name_rival(home: Path, text: str | None) -> None:
    """Stores the rival's writing (`text`), or clears the rival (None), through the host."""
    request = ("profile.add", {"text": text, "rival": RIVAL}) if text else ("profile.clear", {"rival": RIVAL})
    assert host_request(home, *request)["type"] == "result"


@pytest.fixture(scope="module")
def oracle(caveat_home: Path) -> dict:
    """The samples stored in the home; the host's guide of the passages: Emily Brontë's held at "possibly"
    without the rival, then with it "unlikely", and Hamilton's "likely". The home is left without the rival."""
    shown = texts()
    assert host_request(caveat_home, "profile.add", {"text": shown["samples"]})["type"] == "result"
    out: dict = {"rival": shown["rival"]}
    for level in ("held", "unlikely", "likely"):
        if level == "unlikely":
            name_rival(caveat_home, shown["rival"])
        reply = host_request(caveat_home, "guide", {"text": shown[level]})
        assert reply["type"] == "result", reply
        report = reply["result"]
        want = "possibly" if level == "held" else level
        assert report["mode"] == "profile" and report["level"] == want, (level, report)
        assert report["needs_suspects"] == (level == "held"), (level, report)
        out[level] = {"text": shown[level], "report": report}
    name_rival(caveat_home, None)
    return out


def this_checkout() -> dict[str, str]:
    """The environment the browser passes on to the host it starts: this checkout's native_host first on
    the path (a venv shared by several checkouts has its editable install pointing at one of them)."""
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}


def status_words(report: dict, level: str) -> str:
    """What #guide-status says in profile mode: what the meter compared with, then at "unlikely" CAVEAT,
    where the meter is held at "possibly" NEEDS."""
    compared = f"Compared with {report['compared_with']}."
    note = {"unlikely": CAVEAT, "held": NEEDS}.get(level)
    return f"{compared} {note}" if note else compared


# ---- Chromium ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def caveat_browser(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory, caveat_home: Path
) -> Iterator[Browser]:
    user_data_dir = tmp_path_factory.mktemp("chromium_caveat")
    register_host(user_data_dir / "NativeMessagingHosts", "chromium", caveat_home)
    context = launch(playwright_instance, user_data_dir, env=this_checkout())
    try:
        yield Browser(context)
    finally:
        context.close()


def show(composer: Page, case: dict) -> None:
    """Puts the case's text in the box and waits until the meter speaks for it."""
    composer.locator("#draft").fill(case["text"])
    level_words = case["report"]["level_words"]
    expect(composer.locator("#meter")).to_have_text(f"This text is {level_words}.", timeout=60_000)
    # a locator, not wait_for_function: the composer's CSP forbids the eval a string predicate polls with
    expect(composer.locator("body")).to_have_attribute("data-guide", "done", timeout=30_000)


def test_chromium_at_unlikely_the_composer_says_what_the_meter_does_not_read(
    caveat_browser: Browser, server: PageServer, oracle: dict, caveat_home: Path
) -> None:
    caveat_browser.set_settings()
    page = caveat_browser.context.new_page()
    page.goto(server.url("textarea.html"))
    composer = open_composer(caveat_browser, page)
    status = composer.locator("#guide-status")
    why = composer.locator("#top .why")

    # no one named a reader might suspect: "possibly" at most, how to say more, the options one click away
    show(composer, oracle["held"])
    expect(status).to_have_text(status_words(oracle["held"]["report"], "held"))
    expect(composer.locator("#open-options")).to_be_visible()
    assert "Names, places, numbers" not in composer.locator("body").inner_text()
    # the meter is nearly empty: no sentence "gives a lot away", its share is a part of the little left
    said = why.all_inner_texts()
    assert said and not any("gives a lot away" in w or "gives some away" in w for w in said), said
    assert any("of the little that still gives you away" in w for w in said), said

    name_rival(caveat_home, oracle["rival"])
    try:
        show(composer, oracle["likely"])
        expect(status).to_have_text(status_words(oracle["likely"]["report"], "likely"))
        expect(composer.locator("#open-options")).to_be_hidden()
        assert "Names, places, numbers" not in composer.locator("body").inner_text()
        said = why.all_inner_texts()
        assert any("of what gives you away" in w for w in said) and not any(
            "the little" in w for w in said
        ), said

        show(composer, oracle["unlikely"])
        expect(status).to_have_text(status_words(oracle["unlikely"]["report"], "unlikely"))
        expect(status).to_be_visible()
        # at "unlikely" no sentence "gives a lot away": its share is a part of the little that is left
        said = why.all_inner_texts()
        assert said and not any("gives a lot away" in w or "gives some away" in w for w in said), said
        shared = [s for s in oracle["unlikely"]["report"]["sentences"] if s["share"] > 0]
        assert shared and any("of the little that still gives you away" in w for w in said), said
        # a sentence that holds the whole share says so in words, not "100% of" (this text has one)
        assert any(s["share"] >= 0.995 for s in shared)
        assert any("all of the little that still gives you away" in w for w in said)
        assert "100%" not in " ".join(said)
    finally:
        name_rival(caveat_home, None)
    composer.close()
    page.close()


# ---- Firefox ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def caveat_firefox(tmp_path_factory: pytest.TempPathFactory, caveat_home: Path) -> Iterator[FirefoxSession]:
    if not Path(FIREFOX).exists():
        pytest.fail("firefox-esr is missing: run scripts/install-system-deps.sh (make test-install does)")
    home = tmp_path_factory.mktemp("firefox_caveat_home")
    register_host(home / ".mozilla" / "native-messaging-hosts", "firefox", caveat_home)
    browser = Firefox(
        FIREFOX, tmp_path_factory.mktemp("firefox_caveat_profile"), home, {}, env=this_checkout()
    )
    try:
        yield FirefoxSession(browser)
    finally:
        browser.close()


def test_firefox_at_unlikely_the_composer_says_what_the_meter_does_not_read(
    caveat_firefox: FirefoxSession, server: PageServer, oracle: dict, caveat_home: Path
) -> None:
    ff = caveat_firefox
    ff.extension_eval("browser.storage.local.clear().then(() => true)")
    ff.bidi.send("browsingContext.activate", {"context": ff.page})
    ff.bidi.navigate(ff.page, server.url("textarea.html"))
    ff.context_menu_item("#field", "fantasma-compose")
    composer = composer_context(ff, timeout=30)
    try:
        for level in ("held", "likely", "unlikely"):
            if level == "likely":
                name_rival(caveat_home, oracle["rival"])
            case = oracle[level]
            ff.bidi.evaluate(
                composer,
                f"""(() => {{ const box = document.querySelector('#draft'); box.value = {json.dumps(case["text"])};
                     box.dispatchEvent(new Event('input', {{ bubbles: true }})); return true; }})()""",
            )
            meter = f"This text is {case['report']['level_words']}."
            ff.bidi.wait_for(
                composer,
                f"document.body.dataset.guide === 'done' && document.querySelector('#meter').textContent === {json.dumps(meter)}",
                timeout=60,
            )
            want = status_words(case["report"], level)
            assert ff.bidi.evaluate(composer, "document.querySelector('#guide-status').textContent") == want
            hidden = ff.bidi.evaluate(composer, "document.querySelector('#open-options').hidden")
            assert hidden == (level != "held"), level
            if level == "held":  # a nearly empty meter: no sentence "gives a lot away"
                said = ff.bidi.evaluate(
                    composer,
                    "[...document.querySelectorAll('#top .why')].map((e) => e.textContent).join('|')",
                )
                assert "of the little that still gives you away" in said and "gives a lot away" not in said, (
                    said
                )
    finally:
        name_rival(caveat_home, None)

"""The host's own settings from the browser: the options page shows what the real host holds
(settings.get) and sends the user's changes (settings.set); the host over its own pipes is the oracle,
and a rewrite that names no strength then runs at the strength the page set."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from native_host.settings import defaults

from .harness import EXTENSION_ID, SAMPLE, Browser, host_request

OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"


def host_settings(host_home: Path) -> dict:
    reply = host_request(host_home, "settings.get", {})
    assert reply["type"] == "result", reply
    return reply["result"]["settings"]


def wait_for_host(host_home: Path, key: str, value: object, timeout: float = 15.0) -> None:
    """Until the host holds `value` for `key` (the page saves asynchronously)."""
    deadline = time.monotonic() + timeout
    while (held := host_settings(host_home)[key]) != value:
        assert time.monotonic() < deadline, f"the host holds {key}={held!r}, not {value!r}"
        time.sleep(0.2)


@pytest.fixture
def options(browser: Browser, host_home: Path) -> Iterator[Page]:
    """The options page, over a host whose settings are put back to the defaults afterwards (the e2e host
    home is shared by every browser test)."""
    page = browser.context.new_page()
    yield page
    page.close()
    assert host_request(host_home, "settings.set", {"settings": defaults()})["type"] == "result"
    assert host_request(host_home, "profile.clear", {})["type"] == "result"  # the writing the test added


def test_the_options_page_shows_and_sets_the_hosts_settings(
    options: Page, host_home: Path, artifacts: Path
) -> None:
    page = options
    held = {"default_strength": "strong", "candidates": 5, "protected_terms": ["Acme", "Jo"], "threads": 2}
    assert host_request(host_home, "settings.set", {"settings": held})["type"] == "result"
    page.goto(OPTIONS)
    status = page.locator("#host-settings-status")

    # What the host holds, shown; "host default" in the Rewriting section says which strength that is.
    expect(page.locator("#host-default-strength")).to_have_value("strong", timeout=15_000)
    expect(page.locator('#strength option[value=""]')).to_have_text("host default (strong)")
    expect(page.locator("#host-candidates")).to_have_value("5")
    expect(page.locator("#host-protected-terms")).to_have_value("Acme\nJo")
    expect(page.locator("#host-threads")).to_have_value("2")
    expect(page.locator("#host-default-strength")).to_be_enabled()

    # "Use my writing profile" is on in the host, but there is no profile to use: shown off, with why.
    assert host_request(host_home, "profile.show", {})["result"]["profile"] is None
    use_profile = page.locator("#host-use-profile")
    expect(use_profile).not_to_be_checked()
    expect(use_profile).to_be_disabled()
    expect(page.locator("#host-use-profile-note")).to_have_text(
        "no samples yet — add some in “Your writing profile” above"
    )
    # Some writing added on this page: the setting the host holds shows, and can be changed.
    page.fill("#profile-sample", SAMPLE)
    page.click("#profile-add")
    expect(page.locator("#profile-status")).to_have_text("Learned from 1 sample.", timeout=30_000)
    expect(use_profile).to_be_enabled()
    expect(use_profile).to_be_checked()
    expect(page.locator("#host-use-profile-note")).to_have_text("")

    # Changes sent, one key at a time, and held by the host.
    page.select_option("#host-default-strength", "light")
    expect(status).to_have_text("Saved in the host: default strength.", timeout=15_000)
    wait_for_host(host_home, "default_strength", "light")
    expect(page.locator('#strength option[value=""]')).to_have_text("host default (light)")

    page.fill("#host-protected-terms", "Acme\n  Fantasma  \n\nAcme")
    page.locator("#host-protected-terms").blur()
    expect(status).to_have_text("Saved in the host: protected terms.", timeout=15_000)
    wait_for_host(host_home, "protected_terms", ["Acme", "Fantasma"])
    expect(page.locator("#host-protected-terms")).to_have_value("Acme\nFantasma")  # the host's reply

    page.uncheck("#host-use-profile")
    expect(status).to_have_text("Saved in the host: use my writing profile.", timeout=15_000)
    wait_for_host(host_home, "use_profile", False)

    page.fill("#host-threads", "")
    page.locator("#host-threads").blur()
    expect(status).to_have_text("Saved in the host: CPU threads.", timeout=15_000)
    wait_for_host(host_home, "threads", None)

    # A value out of range is refused on the page; the host keeps its own.
    page.fill("#host-candidates", "9")
    page.locator("#host-candidates").blur()
    expect(status).to_have_text("Candidates must be a whole number from 1 to 8.")
    expect(status).to_have_attribute("data-kind", "error")
    assert host_settings(host_home)["candidates"] == 5
    page.fill("#host-candidates", "1")
    page.locator("#host-candidates").blur()
    expect(status).to_have_text("Saved in the host: candidates.", timeout=15_000)
    page.screenshot(path=str(artifacts / "options-host-settings.png"), full_page=True)

    assert host_settings(host_home) == {
        "default_strength": "light",
        "candidates": 1,
        "protected_terms": ["Acme", "Fantasma"],
        "use_profile": False,
        "threads": None,
        "model": None,  # the model choice has its own section (test_options_models.py)
    }
    # The host applies what the page set: a rewrite that names no strength is a light one now.
    rewritten = host_request(host_home, "rewrite", {"text": SAMPLE})
    assert rewritten["result"]["strength"] == "light", rewritten

    page.reload()  # what the host holds, not what the page remembers
    expect(page.locator("#host-default-strength")).to_have_value("light", timeout=15_000)
    expect(page.locator("#host-use-profile")).not_to_be_checked()
    expect(page.locator("#host-threads")).to_have_value("")


def test_without_the_host_the_settings_section_says_how_to_install_it(browser_without_host: Browser) -> None:
    page = browser_without_host.context.new_page()
    page.goto(OPTIONS)
    status = page.locator("#host-settings-status")
    expect(status).to_contain_text(re.compile("not installed.*fantasma-host install"), timeout=15_000)
    expect(page.locator("#host-default-strength")).to_be_disabled()  # the fieldset is off
    page.close()


def test_the_model_table_says_in_words_what_each_model_is_and_why_its_speed_is_unknown(
    options: Page, host_home: Path
) -> None:
    """The Model section: the host's description of each model (or why it cannot be used), and its cost
    here, or the host's reason there is none yet; no code names ("llama · 30 attention"), no bare "—"."""
    reply = host_request(host_home, "models", {})["result"]
    page = options
    page.goto(OPTIONS)
    rows = page.locator("#models-list tbody tr")
    expect(rows).to_have_count(len(reply["models"]), timeout=15_000)
    for model in reply["models"]:
        row = page.locator(f'#models-list tr[data-model="{model["name"]}"]')
        kind, speed = row.locator("td").nth(1), row.locator("td").nth(3)
        said = model["description"] if model["usable"] else model["problem"]
        expect(kind).to_contain_text(said[1:])  # the host's words, as a sentence (capital first)
        expect(kind).not_to_contain_text(" · ")
        measured = [s for s in ("medium", "strong") if model["cost"][s]]
        if measured:
            expect(speed).to_contain_text(f"{measured[0]}: about ")
        else:
            expect(speed).to_contain_text(model["cost"]["note"][1:])
        assert speed.inner_text().strip() != "—"

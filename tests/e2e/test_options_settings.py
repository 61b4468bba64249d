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


def test_the_options_page_shows_and_sets_the_hosts_settings(
    options: Page, host_home: Path, artifacts: Path
) -> None:
    page = options
    held = {"default_strength": "strong", "candidates": 5, "protected_terms": ["Acme", "Jo"], "threads": 2}
    assert host_request(host_home, "settings.set", {"settings": held})["type"] == "result"
    page.goto(OPTIONS)
    status = page.locator("#host-settings-status")

    # What the host holds, shown.
    expect(page.locator("#host-default-strength")).to_have_value("strong", timeout=15_000)
    expect(page.locator("#host-candidates")).to_have_value("5")
    expect(page.locator("#host-protected-terms")).to_have_value("Acme\nJo")
    expect(page.locator("#host-use-profile")).to_be_checked()
    expect(page.locator("#host-threads")).to_have_value("2")
    expect(page.locator("#host-default-strength")).to_be_enabled()

    # Changes sent, one key at a time, and held by the host.
    page.select_option("#host-default-strength", "light")
    expect(status).to_have_text("Saved in the host: default strength.", timeout=15_000)
    wait_for_host(host_home, "default_strength", "light")

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

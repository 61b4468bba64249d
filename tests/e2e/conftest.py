"""E2E fixtures: a local page server, Debian's Chromium with the unpacked extension, and the real host
registered in the test profile's NativeMessagingHosts dir (Chromium reads it from the user data dir)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright

from .harness import ARTIFACTS, SAMPLE, Browser, chromium_with_host, host_request, launch
from .server import PageServer


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def server() -> Iterator[PageServer]:
    srv = PageServer().start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def host_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e2e_fantasma_home")


@pytest.fixture(scope="session")
def browser(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory, host_home: Path
) -> Iterator[Browser]:
    """Chromium with the extension and the real host registered."""
    with chromium_with_host(playwright_instance, tmp_path_factory.mktemp("chromium_profile"), host_home) as b:
        yield b


@pytest.fixture(scope="session")
def browser_without_host(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Browser]:
    """Chromium with the extension and no host registered: what a user sees before installing."""
    user_data_dir = tmp_path_factory.mktemp("chromium_profile_nohost")
    context = launch(playwright_instance, user_data_dir)
    yield Browser(context)
    context.close()


@pytest.fixture
def auto(browser: Browser, server: PageServer) -> Browser:
    """The browser with auto-rewrite on (strength light) and no posts recorded yet."""
    browser.set_settings(strength="light", autoRewrite=True)
    server.clear()
    return browser


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    page = browser.context.new_page()
    yield page
    page.close()


@pytest.fixture(scope="session")
def light(host_home: Path) -> str:
    """What the host itself returns for SAMPLE at strength light: the oracle for in-place edits."""
    reply = host_request(host_home, "rewrite", {"text": SAMPLE, "options": {"strength": "light"}})
    assert reply["type"] == "result", reply
    rewritten = reply["result"]["text"]
    assert rewritten != SAMPLE, "the sample text must contain markers the neutralizer changes"
    return rewritten


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS

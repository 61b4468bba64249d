"""E2E fixtures: a local page server, Debian's Chromium with the unpacked extension, and the real host
registered in the test profile's NativeMessagingHosts dir (Chromium reads it from the user data dir)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, Worker, sync_playwright

from tests.e2e.server import PageServer


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.e2e)


ROOT = Path(__file__).resolve().parents[2]
EXTENSION_DIR = ROOT / "extension"
ARTIFACTS = ROOT / "tests" / "_artifacts"
CHROMIUM = "/usr/bin/chromium"
EXTENSION_ID = "folfajlldbfkhgchaeijigmkgemmkfnl"  # pinned by the manifest key (extension/IDENTITY.md)
GECKO_ID = "fantasma@fantasma-project.org"


def register_host(manifest_dir: Path, browser_form: str, fantasma_home: Path) -> Path:
    """Registers the real host the way `fantasma-host install` does (the installer's own launcher and
    manifest writers), with the test's FANTASMA_HOME pinned in the launcher."""
    from native_host.install.installer import write_host_manifest, write_launcher

    launcher = write_launcher(manifest_dir.parent / "launcher", sys.executable, "linux", str(fantasma_home))
    return write_host_manifest(manifest_dir, browser_form, launcher)


def launch(pw: Playwright, user_data_dir: Path) -> BrowserContext:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-system-deps.sh (make test-install does)")
    return pw.chromium.launch_persistent_context(
        str(user_data_dir),
        executable_path=CHROMIUM,
        headless=True,
        args=[
            f"--load-extension={EXTENSION_DIR}",
            f"--disable-extensions-except={EXTENSION_DIR}",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
        viewport={"width": 900, "height": 600},
    )


def service_worker(context: BrowserContext) -> Worker:
    for worker in context.service_workers:
        if worker.url.startswith(f"chrome-extension://{EXTENSION_ID}/"):
            return worker
    return context.wait_for_event(
        "serviceworker", predicate=lambda w: w.url.startswith(f"chrome-extension://{EXTENSION_ID}/")
    )


class Browser:
    """One Chromium with the extension; helpers act the way the menu and the shortcut do."""

    def __init__(self, context: BrowserContext) -> None:
        self.context = context
        self.sw = service_worker(context)

    def set_settings(self, **settings: object) -> None:
        self.sw.evaluate(
            "(s) => chrome.storage.local.clear().then(() => chrome.storage.local.set(s))", settings
        )

    def menu(self, page: Page, selector: str, item: str) -> None:
        """Right-clicks the field (the content script records it), then runs the menu's click handler."""
        page.locator(selector).click(button="right")
        self.sw.evaluate(
            """async (item) => {
              const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
              await fantasmaBackground.handleMenuClick({ menuItemId: item, frameId: 0 }, tab);
            }""",
            item,
        )

    def command(self, name: str) -> None:
        """What the keyboard shortcut runs (browser-level shortcuts cannot be pressed headless)."""
        self.sw.evaluate(
            """async (name) => {
              const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
              await fantasmaBackground.handleCommand(name, tab);
            }""",
            name,
        )


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


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
    user_data_dir = tmp_path_factory.mktemp("chromium_profile")
    # Chromium reads user-level host manifests from <user data dir>/NativeMessagingHosts.
    register_host(user_data_dir / "NativeMessagingHosts", "chromium", host_home)
    context = launch(playwright_instance, user_data_dir)
    yield Browser(context)
    context.close()


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
def page(browser: Browser) -> Iterator[Page]:
    page = browser.context.new_page()
    yield page
    page.close()


# A text with markers the rule-based neutralizer changes (spelling dialect, "!!!", an emoticon, slang).
SAMPLE = "Honestly, I realise this colour is gorgeous!!! :) Cheers, mate. I'll send it tomorrow, innit."


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


def host_request(home: Path, type_: str, params: dict, timeout: float = 120.0) -> dict:
    """One request to the real host over real pipes; returns the final reply (the test's oracle).
    stdin stays open until the reply is in: EOF would cancel the job (PROTOCOL.md §1)."""
    env = {**os.environ, "FANTASMA_HOME": str(home)}
    body = json.dumps({"id": "oracle", "type": type_, "params": params}).encode()
    proc = subprocess.Popen(
        [sys.executable, "-m", "native_host"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=ROOT,
    )
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(struct.pack("=I", len(body)) + body)
        proc.stdin.flush()
        while True:
            head = proc.stdout.read(4)
            assert len(head) == 4, f"host closed its output early (rc={proc.poll()})"
            (n,) = struct.unpack("=I", head)
            reply = json.loads(proc.stdout.read(n))
            if reply.get("id") == "oracle" and reply["type"] in ("result", "error"):
                return reply
    finally:
        timer.cancel()
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=10)

"""The built packages in real browsers, with the host installed from the wheel: Chromium loads the
unpacked fantasma-chromium.zip and rewrites a field from the right-click menu through the host that
`fantasma setup` registered; Firefox ESR keeps the unsigned fantasma-firefox.xpi across a restart when
xpinstall.signatures.required is false, refuses it otherwise, and doctor says which."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Playwright, expect

from native_host.install import Env
from native_host.install.extension import report
from tests.e2e.bidi import BiDiError, Firefox
from tests.e2e.harness import CHROMIUM, SAMPLE, Browser, chromium_args, host_reply
from tests.e2e.server import PageServer

from .conftest import Installed, unzip

pytestmark = [pytest.mark.slow, pytest.mark.e2e]
FIREFOX = shutil.which("firefox-esr") or "/usr/bin/firefox-esr"
GECKO_ID = "fantasma@fantasma-project.org"


@pytest.fixture
def server() -> Iterator[PageServer]:
    srv = PageServer().start()
    yield srv
    srv.stop()


def test_right_click_round_trip_with_the_zip_and_the_wheel_host(
    installed: Installed,
    server: PageServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    playwright_instance: Playwright,
) -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-system-deps.sh (make test-install does)")
    extension = unzip(installed.dist / "fantasma-chromium.zip", tmp_path / "extension")
    launcher = installed.launcher()
    assert launcher.startswith(str(installed.fantasma_home)), launcher  # setup's registration, from the wheel
    oracle = host_reply([launcher], installed.env(), installed.home, "rewrite", {"text": SAMPLE})
    assert oracle["type"] == "result" and oracle["result"]["path"] == "llm", oracle
    # The browser and the hosts it starts run outside the checkout (python -m puts the cwd on sys.path).
    monkeypatch.chdir(installed.home)
    # one Playwright driver per session (tests/conftest.py): a second sync_playwright() is refused
    context = playwright_instance.chromium.launch_persistent_context(
        str(installed.home / ".config/chromium"),  # the user data dir setup registered the host in
        executable_path=CHROMIUM,
        headless=True,
        env=dict(installed.env()),  # type: ignore[arg-type]
        args=chromium_args(extension),
    )
    try:
        browser = Browser(context)
        page = context.new_page()
        page.goto(server.url("textarea.html"))
        page.fill("#field", SAMPLE)
        browser.menu(page, "#field", "fantasma-anonymize")
        expect(page.locator("#field")).to_have_value(oracle["result"]["text"], timeout=120_000)
    finally:
        context.close()


def test_firefox_esr_keeps_the_unsigned_xpi_with_the_one_preference(
    installed: Installed, tmp_path: Path
) -> None:
    if not Path(FIREFOX).exists():
        pytest.fail("firefox-esr is missing: run scripts/install-system-deps.sh (make test-install does)")
    xpi = {"extensionData": {"type": "archivePath", "path": str(installed.dist / "fantasma-firefox.xpi")}}
    home = tmp_path / "home"
    profiles = home / ".mozilla" / "firefox"
    (profiles / "refuses.default").mkdir(parents=True)
    (profiles / "profiles.ini").write_text("[Profile0]\nName=default\nIsRelative=1\nPath=keeps.default\n")

    signed_only = Firefox(
        FIREFOX, profiles / "refuses.default", home, {"xpinstall.signatures.required": True}
    )
    try:
        with pytest.raises(BiDiError, match="ERROR_SIGNEDSTATE_REQUIRED"):
            signed_only.bidi.send("webExtension.install", {**xpi, "moz:permanent": True})
    finally:
        signed_only.close()

    profile = profiles / "keeps.default"
    firefox = Firefox(FIREFOX, profile, home, {})  # tests/e2e/bidi.py's prefs: signatures not required
    try:
        assert firefox.bidi.send("webExtension.install", {**xpi, "moz:permanent": True}) == {
            "extension": GECKO_ID
        }
    finally:
        firefox.close()
    restarted = Firefox(FIREFOX, profile, home, {})  # a new start of the same profile
    restarted.close()
    addon = next(
        a for a in json.loads((profile / "extensions.json").read_text())["addons"] if a["id"] == GECKO_ID
    )
    assert (addon["location"], addon["active"], addon["appDisabled"]) == ("app-profile", True, False)

    env = Env(os_name="linux", home=home)
    lines = [line for line in report(env) if line.startswith("extension in firefox")]
    assert "extension in firefox: editions installed here: Firefox ESR" in lines, lines
    assert "extension in firefox: installed in profile 'keeps.default'" in lines, lines
    assert not [line for line in lines if "missing" in line], lines

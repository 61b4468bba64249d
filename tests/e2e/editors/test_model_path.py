"""The model path in the browser: a host home that holds the real default model (as `fantasma setup` leaves
it) and the meaning embedder, a real editor, a right-click rewrite at the extension's default settings. The
host over pipes, in the same home, is the oracle: its reply for the typed text must come from the model
(`path: llm`, not the rule-based neutralizer), and the editor's own model must hold exactly that reply;
one real Ctrl+Z gives the original back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright

from ..harness import Browser, chromium_with_host, home_with_models, host_request
from ..server import PageServer
from .cases import EDITORS, ORIGINAL
from .test_real_editors import EditorPage

# The options the extension sends at its default settings (extension/settings.js rewriteOptions): no
# strength, so the host's default strength decides.
DEFAULT_OPTIONS: dict = {"protected_terms": []}
# Two editor families: a ProseMirror contenteditable and a plain React-controlled textarea.
MODEL_EDITORS = [e for e in EDITORS if e.name in ("tiptap", "react-textarea")]


@pytest.fixture(scope="module")
def model_home(
    tmp_path_factory: pytest.TempPathFactory, default_model_dir: Path, embedder_model_dir: Path
) -> Path:
    """A FANTASMA_HOME whose models dir holds the default model and the embedder where `fantasma setup`
    puts them (symlinks into the test session's exports; native_host/paths.py names the dirs)."""
    return home_with_models(tmp_path_factory.mktemp("e2e_model_home"), embedder_model_dir, default_model_dir)


@pytest.fixture(scope="module")
def oracle(model_home: Path) -> str:
    """The host's own rewrite of ORIGINAL at the extension's default options, which must be the model's."""
    reply = host_request(model_home, "rewrite", {"text": ORIGINAL, "options": DEFAULT_OPTIONS}, timeout=300)
    assert reply["type"] == "result", reply
    result = reply["result"]
    assert result["path"] == "llm", (result["path"], result["reason"])
    light = host_request(model_home, "rewrite", {"text": ORIGINAL, "options": {"strength": "light"}})
    assert result["text"] != light["result"]["text"], "the model path must do more than the neutralizer"
    return result["text"]


@pytest.fixture(scope="module")
def model_browser(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory, model_home: Path
) -> Iterator[Browser]:
    with chromium_with_host(
        playwright_instance, tmp_path_factory.mktemp("chromium_profile_model"), model_home
    ) as browser:
        yield browser


@pytest.mark.slow
@pytest.mark.parametrize("editor", MODEL_EDITORS, ids=[e.name for e in MODEL_EDITORS])
def test_right_click_rewrite_is_answered_by_the_model(
    model_browser: Browser, server: PageServer, editor, oracle: str
) -> None:
    model_browser.set_settings()  # the extension's defaults: what a new user runs
    page: Page = model_browser.context.new_page()
    try:
        ed = EditorPage(page, editor, server)
        ed.type(ORIGINAL)
        ed.menu(model_browser)
        ed.wait_model(oracle, timeout=180_000)  # the first request loads the model in the browser's host
        page.wait_for_timeout(300)  # a late second insertion would show here
        assert ed.model() == oracle
        assert ed.messages() == []
        ed.field.press("Control+z")
        ed.wait_model(ORIGINAL)
    finally:
        page.close()

"""The model choice in the browser: a host home with two models (the embedded default, and a tiny random
hybrid Qwen3.5 that the real `fantasma setup --model DIR` installed), the options page listing both with
size and speed, a choice there that changes what the host's `hello` reports, the popup naming the
active model, and a rewrite in a real editor answered by the hybrid. The host over its own pipes, in the
same home, is the oracle: the editor must hold exactly the text of its reply, whose `model` is the
hybrid (random weights: the guards keep their nonsense out, the reply says what was applied); and the
browser's own rewrite is the hybrid's too, by the record the host Chromium started keeps of it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright, expect

from tests.models.checkpoints import QWEN_NAME, cached_qwen35, fantasma

from .editors.cases import EDITORS, ORIGINAL
from .editors.conftest import editor_bundles  # noqa: F401 (the real-editor pages, bundled once)
from .editors.test_real_editors import EditorPage
from .harness import EXTENSION_ID, Browser, chromium_with_host, home_with_models, host_request
from .server import PageServer

OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"
POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"
EMBEDDED = "smollm2-135m-instruct-int4"
HYBRID = "hybrid: 6 Gated DeltaNet + 2 attention"
DEFAULT_OPTIONS: dict = {"protected_terms": []}  # what the extension sends at its default settings
TIPTAP = next(e for e in EDITORS if e.name == "tiptap")


@pytest.fixture(scope="module")
def two_models_home(
    tmp_path_factory: pytest.TempPathFactory, request, default_model_dir: Path, embedder_model_dir: Path
) -> Path:
    home = home_with_models(tmp_path_factory.mktemp("e2e_models_home"), embedder_model_dir, default_model_dir)
    done = fantasma(home, "setup", "--model", str(cached_qwen35(request.config.cache)), "--name", QWEN_NAME)
    assert done.returncode == 0, done.stderr
    return home


@pytest.fixture(scope="module")
def models_browser(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory, two_models_home: Path
) -> Iterator[Browser]:
    with chromium_with_host(
        playwright_instance, tmp_path_factory.mktemp("chromium_profile_models"), two_models_home
    ) as browser:
        yield browser


def rewrites_recorded(home: Path) -> dict[str, int]:
    """How many finished rewrites the hosts in `home` recorded per model (model_costs.json: each one
    that ran a model on 20 words or more, at medium or strong, with its words and seconds)."""
    from native_host.models import cost as model_cost

    stored = home / "data" / model_cost.FILE
    costs = json.loads(stored.read_text(encoding="utf-8")) if stored.exists() else {}
    return {
        name: sum(
            len(runs)
            for strength in model_cost.STRENGTHS
            for runs in (entry.get(strength) or {}).values()
            if isinstance(runs, list)
        )
        for name, entry in costs.items()
    }


def hello_model(home: Path) -> dict:
    reply = host_request(home, "hello", {})
    assert reply["type"] == "result", reply
    return reply["result"]["model"]


@pytest.mark.slow
def test_the_options_page_chooses_the_model_and_the_hybrid_answers_in_an_editor(
    models_browser: Browser, server: PageServer, two_models_home: Path, artifacts: Path
) -> None:
    home = two_models_home
    assert hello_model(home)["name"] == EMBEDDED
    page: Page = models_browser.context.new_page()
    try:
        page.goto(OPTIONS)
        rows = page.locator("#models-list tbody tr")
        expect(rows).to_have_count(2, timeout=15_000)
        embedded = page.locator(f'#models-list tr[data-model="{EMBEDDED}"]')
        hybrid = page.locator(f'#models-list tr[data-model="{QWEN_NAME}"]')
        expect(embedded.locator("input[type=radio]")).to_be_checked()
        expect(embedded).to_contain_text("embedded default")
        # What each model is, in the host's words (not "llama · 30 attention").
        described = {
            m["name"]: m["description"] for m in host_request(home, "models", {})["result"]["models"]
        }
        expect(embedded).to_contain_text("30 layers, all of them attention")
        expect(embedded).to_contain_text(described[EMBEDDED][1:])
        expect(hybrid).to_contain_text(described[QWEN_NAME][1:])
        expect(hybrid).to_contain_text("6 Gated DeltaNet (linear attention) and 2 attention")
        expect(hybrid).to_contain_text(" MB")  # its size on disk
        expect(hybrid).to_contain_text("tokens/s at install")  # the speed measured at install
        expect(hybrid).to_contain_text(
            "Not measured yet: no medium or strong rewrite"
        )  # the cost here, and why not
        expect(page.locator("#models-command")).to_have_text("fantasma setup --model Qwen/Qwen3.5-0.8B --use")

        # The choice takes effect at once: the host's own hello says so.
        hybrid.locator("input[type=radio]").check()
        expect(page.locator("#models-status")).to_have_text(f"Rewrites now use {QWEN_NAME}.", timeout=15_000)
        model = hello_model(home)
        assert (model["name"], model["hybrid"], model["layers"], model["chosen"]) == (
            QWEN_NAME,
            True,
            HYBRID,
            QWEN_NAME,
        )
        page.reload()  # what the host holds, not what the page remembers
        expect(hybrid.locator("input[type=radio]")).to_be_checked(timeout=15_000)
        page.screenshot(path=str(artifacts / "options-models.png"), full_page=True)

        popup = models_browser.context.new_page()
        popup.goto(POPUP)
        expect(popup.locator("#status-detail")).to_contain_text(
            f"model {QWEN_NAME} ({HYBRID})", timeout=15_000
        )
        popup.close()

        # A rewrite in a real editor (ProseMirror), at the extension's default settings.
        oracle = host_request(home, "rewrite", {"text": ORIGINAL, "options": DEFAULT_OPTIONS}, timeout=300)
        assert oracle["type"] == "result", oracle
        result = oracle["result"]
        assert result["model"]["name"] == QWEN_NAME and result["model"]["hybrid"] is True, result["model"]
        assert result["reason"], "the reply says what was done and why"
        answered = rewrites_recorded(home)  # the oracle's rewrite is in it already
        editor_page = models_browser.context.new_page()
        try:
            ed = EditorPage(editor_page, TIPTAP, server)
            ed.type(ORIGINAL)
            assert ed.model() != result["text"]  # the answer changes the text: its arrival shows
            ed.menu(models_browser)
            # The browser's own rewrite ran with the hybrid: the host that Chromium started records each
            # finished rewrite under the model that ran it (native_host/models/cost.py), and the one new
            # record is the hybrid's. The editor's text alone could not tell, should both models' answers
            # be the same rule-based edits. The record is written before the reply: once the editor shows
            # the answer, it is there or never will be (no time window to wait out).
            ed.wait_model(result["text"], timeout=180_000)
            now = rewrites_recorded(home)
            assert {name: now.get(name, 0) - answered.get(name, 0) for name in now} == {
                **{name: 0 for name in now},
                QWEN_NAME: 1,
            }, f"the browser's rewrite was not one the hybrid ran: recorded before {answered}, after {now}"
            editor_page.wait_for_timeout(300)  # a late second insertion would show here
            assert ed.model() == result["text"]
        finally:
            editor_page.close()
    finally:
        page.close()
        host_request(home, "models", {"use": None})
    assert hello_model(home)["name"] == EMBEDDED

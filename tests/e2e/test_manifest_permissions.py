"""The permissions every browser package asks for (scripts/build_extension.py `per_browser`): the tabs open before
an update are reached through the user's gesture (`activeTab` + `scripting`, docs/extension.md), never
through host permissions, which would add an install warning and reach tabs the user never touched."""

from __future__ import annotations

import json

import pytest

from scripts.build_extension import CHROME_STORE_PACKAGE, CHROMIUM_PACKAGE, FIREFOX_PACKAGE, per_browser

from .harness import EXTENSION_DIR

# Neither adds a line to Chromium's or Firefox's install prompt.
GESTURE_ONLY = {"activeTab", "scripting"}


@pytest.mark.parametrize("package", [CHROMIUM_PACKAGE, CHROME_STORE_PACKAGE, FIREFOX_PACKAGE])
def test_open_tabs_are_reached_by_gesture_not_by_host_permission(package: str) -> None:
    manifest = per_browser(json.loads((EXTENSION_DIR / "manifest.json").read_text(encoding="utf-8")), package)
    assert set(manifest["permissions"]) >= GESTURE_ONLY, manifest["permissions"]
    assert not manifest.get("host_permissions") and not manifest.get("optional_host_permissions")
    assert not [p for p in manifest["permissions"] if "://" in p or p == "<all_urls>"]
    # The scripts injected into such tabs are the ones the manifest declares (background.js reads them there).
    assert all((EXTENSION_DIR / path).is_file() for path in manifest["content_scripts"][0]["js"])

"""The extension's words (extension/_locales/en/messages.json): each key once (browsers keep one of two
duplicates silently, web-ext refuses the package), and every key the scripts ask for exists."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MESSAGES = ROOT / "extension" / "_locales" / "en" / "messages.json"
# t("key", …), fantasma.t("key"), i18n.getMessage("key"), and __MSG_key__ in the manifest and pages
ASKED = re.compile(r"""(?:\bt|getMessage)\(\s*["']([A-Za-z0-9_]+)["']|__MSG_([A-Za-z0-9_]+)__""")


def test_each_key_once() -> None:
    pairs = json.loads(MESSAGES.read_text(encoding="utf-8"), object_pairs_hook=lambda p: p)
    twice = [key for key, n in Counter(key for key, _ in pairs).items() if n > 1]
    assert twice == []


def test_every_key_the_extension_asks_for_exists() -> None:
    keys = set(json.loads(MESSAGES.read_text(encoding="utf-8")))
    asked: dict[str, str] = {}
    for path in (ROOT / "extension").rglob("*"):
        if path.suffix in (".js", ".html", ".json") and "_locales" not in path.parts:
            for match in ASKED.finditer(path.read_text(encoding="utf-8")):
                asked.setdefault(match.group(1) or match.group(2), str(path.relative_to(ROOT)))
    assert len(asked) > 50  # the pattern finds the calls
    missing = {key: where for key, where in asked.items() if key not in keys}
    assert missing == {}

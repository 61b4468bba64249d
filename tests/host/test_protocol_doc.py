"""PROTOCOL.md is the contract the extension codes against; its error table must match the enum."""

from __future__ import annotations

import re
from pathlib import Path

from native_host.host import framing
from native_host.host.errors import ErrorCode

PROTOCOL = Path(__file__).resolve().parents[2] / "PROTOCOL.md"


def _error_table(text: str) -> list[tuple[int, str]]:
    section = text.split("## 6. Error codes", 1)[1]
    rows = re.findall(r"^\|\s*(\d+)\s*\|\s*([a-z][a-z0-9_]*)\s*\|", section, flags=re.MULTILINE)
    return [(int(code), name) for code, name in rows]


def test_error_table_matches_enum_exactly():
    table = _error_table(PROTOCOL.read_text(encoding="utf-8"))
    assert table == [(int(code), code.name) for code in ErrorCode]


def test_documented_caps_and_version_match_code():
    text = PROTOCOL.read_text(encoding="utf-8")
    assert f"**Protocol version: {framing.PROTOCOL_VERSION}.**" in text
    assert framing.MAX_OUTGOING_FRAME == 1024 * 1024 and "**1 MiB**" in text
    assert framing.MAX_INCOMING_FRAME == 8 * 1024 * 1024 and "**8 MiB**" in text
    assert framing.MAX_PLAUSIBLE_FRAME == 64 * 1024 * 1024 and "above 64 MiB" in text


def test_settings_table_matches_the_settings_module():
    import json

    from native_host import settings

    section = PROTOCOL.read_text(encoding="utf-8").split("### `settings.get`, `settings.set`", 1)[1]
    section = section.split("###", 1)[0]
    documented = {}
    for line in section.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]  # split on unescaped pipes
        if len(cells) == 3 and cells[0].startswith("`"):
            documented[cells[0].strip("`")] = json.loads(cells[2].strip("`"))
    assert documented == settings.defaults()


def test_every_message_type_is_documented():
    import os

    from native_host.host import handlers

    text = PROTOCOL.read_text(encoding="utf-8")
    os.environ[handlers.DEBUG_ENV] = "1"
    try:
        kinds = handlers.routes()
    finally:
        del os.environ[handlers.DEBUG_ENV]
    for kind in kinds:
        assert f"`{kind}`" in text, kind

"""The words a person reads live in one place each (issue 43, item 7): the guide's reasons and what it
compared with in native_host/wording.py, not in guide/analysis.py or style/reasons.py; the composer's
English in extension/_locales/en/messages.json, not in composer.js."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# three words in a row: a phrase a person reads (a code's name or a regex is not)
PHRASE = re.compile(r"[A-Za-z]+[,:;]? [A-Za-z]+[,:;]? [A-Za-z]+")


def _phrases_in_python(path: Path) -> list[str]:
    """String constants holding a phrase, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and PHRASE.search(node.value)
    ]


MATCHED_NOT_SHOWN = {"no writing samples"}  # analysis.py looks for it in identify.py's message


def test_the_guides_reasons_are_worded_in_wording_py() -> None:
    for path in ("native_host/guide/analysis.py", "native_host/style/reasons.py"):
        assert set(_phrases_in_python(ROOT / path)) <= MATCHED_NOT_SHOWN, path


def _code_strings(js: str) -> list[str]:
    """String and template literals of JavaScript code, comments left out."""
    code = re.sub(r"/\*.*?\*/", "", js, flags=re.S)
    code = "\n".join(re.sub(r"(^|\s)//.*$", "", line) for line in code.splitlines())
    return re.findall(r"\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`|'(?:[^'\\\n]|\\.)*'", code)


def test_the_composers_english_is_in_locales_and_every_key_it_asks_for_exists() -> None:
    js = (ROOT / "extension/composer/composer.js").read_text(encoding="utf-8")
    english = [s for s in _code_strings(js) if PHRASE.search(re.sub(r"\$\{[^}]*\}", "", s))]
    assert english == [], english

    def no_twice(pairs: list[tuple[str, object]]) -> dict[str, object]:
        keys = [k for k, _ in pairs]
        assert len(keys) == len(set(keys)), sorted({k for k in keys if keys.count(k) > 1})
        return dict(pairs)

    text = (ROOT / "extension/_locales/en/messages.json").read_text(encoding="utf-8")
    messages = json.loads(text, object_pairs_hook=no_twice)
    asked = set(re.findall(r"\bt\(\s*\"(composer\w+)\"", js)) | set(re.findall(r"\"(composer\w+)\"", js))
    assert asked and asked <= set(messages), sorted(asked - set(messages))
    for key in asked:  # every placeholder the message names is declared
        message = messages[key]
        named = {m.lower() for m in re.findall(r"\$(\w+)\$", message["message"])}
        assert named == set(message.get("placeholders", {})), key

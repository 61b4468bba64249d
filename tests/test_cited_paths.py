"""Every repository path a doc or a comment cites exists.

Read: docs/*.md, README.md, PROTOCOL.md, and the comments and docstrings of native_host/, export/,
train/ and bench/ (and the `#` comment lines of their .txt / .tsv tables). A cited path is a token that
starts with one of the repository's top-level folders and a slash and names a file (its last part has
an extension: `native_host/style/identify.py`, `bench/fuzz_host.py`) or a folder (it ends in a slash:
`tests/e2e/`), backticked or bare, not inside another path or a URL (`~/.local/share/fantasma/extension/`
is not one; "train/test split" names no file). It is read up to the first character that cannot be in
a path, so a pattern (`native_host/style/families/<name>.py`) is checked as far as its fixed part
(`native_host/style/families/`). A path that ends in `.name` after a module
(`native_host/model_format.end_of_turn_token`) cites that module. Paths made when the tree runs or is
built (GENERATED) are not checked.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from tests.repo_files import project_files

ROOT = Path(__file__).resolve().parents[1]
TOP = sorted(
    p.name
    for p in ROOT.iterdir()
    if p.is_dir() and not p.name.startswith(".") and not p.name.endswith(".egg-info")
)
CITED = re.compile(r"(?<![\w./~-])((?:" + "|".join(map(re.escape, TOP)) + r")/[\w./-]*)")
# Made when the tree runs or is built, not committed: a doc may name them before they exist.
GENERATED = (
    "bench/out/",  # the benchmarks' exports and checkpoints
    "tests/_artifacts/",  # screenshots the e2e tests write
    "native_host/bundled/",  # the extension packages `make dist` puts in the wheel
    "dist/",  # `make dist`'s release files
)
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "PROTOCOL.md"]
CODE = ("native_host", "export", "train", "bench")
# Known stale citations in files other parts of issue 38 are rewriting now (the lead deletes an entry
# once the part that owns the file has merged): (file, cited path) -> why it is left.
KNOWN_STALE: dict[tuple[str, str], str] = {}


def cited_paths(text: str) -> list[str]:
    found = []
    for match in CITED.finditer(text):
        path = match.group(1).rstrip(".-")
        if path.endswith("/") or "." in path.rpartition("/")[2]:
            found.append(path)
    return found


def exists(path: str) -> bool:
    if path.startswith(GENERATED) or (ROOT / path).exists():
        return True
    head, _, last = path.rpartition("/")
    module = last.split(".")[0]
    return bool(module) and (ROOT / head / f"{module}.py").is_file()


def comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    source = path.read_text(encoding="utf-8")
    out = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                out.append((first.lineno, first.value.value))
    return out


def table_comments(path: Path) -> list[tuple[int, str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(number, line) for number, line in enumerate(lines, 1) if line.lstrip().startswith("#")]


def missing() -> list[tuple[str, int, str]]:
    """(file, line, cited path) for every cited path that does not exist."""
    texts: list[tuple[Path, int, str]] = []
    for doc in DOCS:
        texts += [(doc, n, line) for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)]
    for package in CODE:
        for path in project_files(package):
            if path.suffix == ".py":
                texts += [(path, n, text) for n, text in comments_and_docstrings(path)]
            elif path.suffix in (".txt", ".tsv"):
                texts += [(path, n, text) for n, text in table_comments(path)]
    return [
        (str(path.relative_to(ROOT)), number, cited)
        for path, number, text in texts
        for cited in cited_paths(text)
        if not exists(cited)
    ]


def test_the_pattern_finds_paths_and_skips_urls_and_prose():
    text = (
        "see `native_host/style/identify.py`, bench/fuzz_host.py and native_host/style/families/<name>.py; "
        "not https://example.com/docs/x.md or ~/.local/share/fantasma/extension/chromium or a/tests/b.py "
        "or a train/test split"
    )
    assert cited_paths(text) == [
        "native_host/style/identify.py",
        "bench/fuzz_host.py",
        "native_host/style/families/",
    ]
    assert exists("native_host/model_format.end_of_turn_token")
    assert not exists("bench/anonymization_aim.py")


def test_every_cited_path_exists():
    found = missing()
    unexpected = [
        f"{file}:{line}: {cited}" for file, line, cited in found if (file, cited) not in KNOWN_STALE
    ]
    assert not unexpected, "cited paths that do not exist:\n" + "\n".join(unexpected)
    stale = set(KNOWN_STALE) - {(file, cited) for file, _, cited in found}
    assert not stale, f"KNOWN_STALE entries that no longer happen (delete them): {sorted(stale)}"

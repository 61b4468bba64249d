"""Every repository path and every name a doc or a comment cites exists.

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

In comments and docstrings, also:
- a bare module (`models.py`, `style/linkability.py`: a .py path that starts with no top-level folder)
  names a file beside the citing one or under a folder above it (as far as the repository root), or
  under a folder a path cited earlier in the same comment or docstring names ("native_host/models/:
  `embedded.py`"); other projects' files are FOREIGN;
- a dotted module (`native_host.engine.sampling`, `native_host.paths.profile_path`) is a module, or a
  name the module binds;
- a private name (`_fits`, `_GUIDE_CACHE`) is one the project's Python binds or reads somewhere.
Docs are read for dotted modules too; their bare file names are not checked (a table row names its
folder in another column).
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
# Known stale citations in files other parts of an issue are rewriting now (the lead deletes an entry
# once the part that owns the file has merged): (file, cited path or name) -> why it is left.
KNOWN_STALE: dict[tuple[str, str], str] = {}
# Files of other projects a comment may name: name -> whose.
FOREIGN = {
    "convert_hf_to_gguf.py": "llama.cpp's converter",
    "models/qwen3_5/modeling_qwen3_5.py": "transformers' Qwen3.5",
}
PACKAGES = ("native_host", "export", "train")  # what a dotted module starts with
# A bare .py path (no top-level folder first), a dotted module, a private name: each not inside a longer
# token, a path or a pattern (`commands/_io.py`, `*_phrases.tsv`, `…_s` are none of these).
BARE = re.compile(r"(?<![\w./~*…-])((?:[A-Za-z_]\w*/)*[A-Za-z_]\w*\.py)\b")
DOTTED = re.compile(r"(?<![\w./~*…-])((?:" + "|".join(PACKAGES) + r")(?:\.[A-Za-z_]\w*)+)")
PRIVATE = re.compile(r"(?<![\w./~*…-])(_[A-Za-z]\w*)\b(?!\.\w)")
FILE_SUFFIXES = {"py", "json", "jsonl", "md", "txt", "tsv", "onnx", "gguf", "msgpack", "csv", "png", "zip"}


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


def bare_modules(text: str, path: Path) -> list[str]:
    """The bare .py paths `text` (a comment or docstring of `path`) cites that name no file."""
    top = tuple(f"{name}/" for name in TOP)
    bases = [folder for folder in [path.parent, *path.parent.parents] if ROOT in (folder, *folder.parents)]
    found = []
    for match in BARE.finditer(text):
        name = match.group(1)
        if name.startswith(top) or name in FOREIGN:
            continue
        earlier = [
            ROOT / (cited if cited.endswith("/") else cited.rpartition("/")[0])
            for cited in cited_paths(text[: match.start()])
        ]
        if not any((folder / name).is_file() for folder in [*bases, *earlier]):
            found.append(name)
    return found


def _bound_names(path: Path) -> set[str]:
    """Every name a Python file binds or reads (defs, classes, arguments, imports, names, attributes)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
    return names


def dotted_exists(dotted: str) -> bool:
    """A module, or a name the longest module of its prefix binds (`native_host.paths.profile_path`)."""
    parts = dotted.split(".")
    if parts[-1] in FILE_SUFFIXES:  # a file name (`train.jsonl`), not a module
        return True
    for end in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:end])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if module.is_file():
            rest = parts[end:]
            return not rest or rest[0] in _bound_names(module) or (base / f"{rest[0]}.py").is_file()
    return False


def private_names(texts: list[tuple[Path, int, str]], code: list[Path]) -> list[tuple[Path, int, str]]:
    """(file, line, name) for each private name cited in `texts` that no file of `code` binds or reads."""
    known: set[str] = set()
    for path in code:
        known |= _bound_names(path)
    return [
        (path, number, name)
        for path, number, text in texts
        for name in PRIVATE.findall(text)
        if not name.startswith("__") and name not in known
    ]


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
    """(file, line, cited path or name) for every cited path, module or private name that does not exist."""
    docs: list[tuple[Path, int, str]] = []
    for doc in DOCS:
        docs += [(doc, n, line) for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)]
    code: list[tuple[Path, int, str]] = []  # comments and docstrings
    tables: list[tuple[Path, int, str]] = []
    for package in CODE:
        for path in project_files(package):
            if path.suffix == ".py":
                code += [(path, n, text) for n, text in comments_and_docstrings(path)]
            elif path.suffix in (".txt", ".tsv"):
                tables += [(path, n, text) for n, text in table_comments(path)]
    found = [
        (path, number, cited)
        for path, number, text in docs + code + tables
        for cited in cited_paths(text)
        if not exists(cited)
    ]
    found += [
        (path, number, dotted)
        for path, number, text in docs + code
        for dotted in DOTTED.findall(text)
        if not dotted_exists(dotted.rstrip("."))
    ]
    found += [(path, number, name) for path, number, text in code for name in bare_modules(text, path)]
    python = [p for folder in (*CODE, "tests", "scripts") for p in project_files(folder, "*.py")]
    found += private_names(code, python)
    return [(str(path.relative_to(ROOT)), number, cited) for path, number, cited in found]


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


def test_bare_modules_dotted_modules_and_private_names_are_checked():
    here = ROOT / "native_host" / "rewrite" / "seams.py"
    text = "loaded by models.py on first use; see pipeline.py, style/linkability.py and commands/_io.py"
    assert bare_modules(text, here) == ["models.py"]
    # under a folder named before it in the same text, not after
    assert bare_modules("native_host/models/: `cache.py`, `embedded.py`", here) == []
    assert bare_modules("`embedded.py` (native_host/models/)", here) == ["embedded.py"]
    assert bare_modules("llama.cpp's convert_hf_to_gguf.py", here) == []  # FOREIGN
    assert dotted_exists("native_host.engine.sampling") and dotted_exists("native_host.paths.profile_path")
    assert dotted_exists("train.jsonl")  # a file name
    assert not dotted_exists("native_host.rewrite.models") and not dotted_exists("native_host.paths.nowhere")
    cited = [(here, 1, "counts kept between requests (_GUIDE_CACHE); `_fits` has mypy check; …_s, *_x.tsv")]
    assert private_names(cited, [here]) == [(here, 1, "_GUIDE_CACHE")]


def test_every_cited_path_exists():
    found = missing()
    unexpected = [
        f"{file}:{line}: {cited}" for file, line, cited in found if (file, cited) not in KNOWN_STALE
    ]
    assert not unexpected, "cited paths that do not exist:\n" + "\n".join(unexpected)
    stale = set(KNOWN_STALE) - {(file, cited) for file, _, cited in found}
    assert not stale, f"KNOWN_STALE entries that no longer happen (delete them): {sorted(stale)}"

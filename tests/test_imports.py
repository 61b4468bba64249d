"""No import circles among the project's modules (native_host/, export/, train/).

Read from the source with `ast`, so every import counts, at the top of a module or inside a function (a
lazy import is still an edge: it only moves the failure to run time). Left out: imports under
`if TYPE_CHECKING:` (never executed) and modules outside these packages. An edge goes to the module an
import names: `from a.b import c` is a.b.c when that is a module, else a.b; importing a.b.c does not
count as importing the package a.b itself (every submodule would then circle with an `__init__` that
re-exports it).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("native_host", "export", "train")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _type_checking_only(tree: ast.Module) -> set[int]:
    """ids of the import nodes under `if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:`."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = (
                test.id
                if isinstance(test, ast.Name)
                else test.attr
                if isinstance(test, ast.Attribute)
                else ""
            )
            if name == "TYPE_CHECKING":
                skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skipped


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped = _type_checking_only(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else base)
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a path that returns to its start) per strongly connected component of two or more
    modules (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    return [_path_through(graph, set(c)) for c in components]


def _path_through(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle from the component's first module back to itself, inside the component."""
    start = min(component)
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & component):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    return sorted(component)


def test_the_graph_is_read():
    graph = import_graph()
    assert "native_host.rewrite.pipeline" in graph["native_host.host.handlers"] or (
        "native_host.rewrite" in graph["native_host.host.handlers"]
    )
    assert "native_host.style.identify" in graph["native_host.rewrite.search"]
    # lazy imports count: the pipeline imports the search inside a function
    assert "native_host.rewrite.search" in graph["native_host.rewrite.pipeline"]


def test_the_cycle_finder_finds_a_lazy_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles():
    found = cycles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)

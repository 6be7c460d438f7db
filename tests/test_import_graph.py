"""Issue 29.2: no import cycles in triton_migrate. A cycle through imports inside functions counts too (the
verify command line and `tune` imported each other that way): each module's every import statement is an
edge, wherever it stands."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
from pathlib import Path

PACKAGE = "triton_migrate"


def modules(package: str = PACKAGE) -> dict[str, Path]:
    """Every module of the package, by dotted name, found without importing it."""
    spec = importlib.util.find_spec(package)
    found = {package: Path(spec.origin)}
    for info in pkgutil.iter_modules(spec.submodule_search_locations):
        name = f"{package}.{info.name}"
        found.update(modules(name) if info.ispkg else {name: Path(importlib.util.find_spec(name).origin)})
    return found


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` imports. `from P import m` where P.m is a module imports P.m (the
    package P's __init__ runs first, but that is Python importing a package, not a dependency on it)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            source = ".".join(filter(None, [base, node.module]))
            found.update(f"{source}.{a.name}" if f"{source}.{a.name}" in known else source for a in node.names)
        elif _loaded(node) is not None:
            found.add(_loaded(node))
    return found & known - {name}


def _loaded(node: ast.AST) -> str | None:
    """The module a call loads by name, `importlib.import_module("m")` or `__import__("m")` (issue 44: the
    command line loaded `verify` so, a dependency no import statement shows), or None."""
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
        return None
    func = node.func
    named = func.attr == "import_module" if isinstance(func, ast.Attribute) else \
        isinstance(func, ast.Name) and func.id in ("import_module", "__import__")
    return node.args[0].value if named and isinstance(node.args[0].value, str) else None


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph (its modules in order, the first repeated at the end), or None."""
    state: dict[str, str] = {}  # "open" while on the current path, "done" once every edge below is explored
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for successor in sorted(graph[node]):
            if state.get(successor) == "open":
                return path[path.index(successor):] + [successor]
            if successor not in state and (found := visit(successor)):
                return found
        path.pop()
        state[node] = "done"
        return None

    return next(filter(None, (visit(node) for node in sorted(graph) if node not in state)), None)


def test_every_module_imports_and_the_import_graph_has_no_cycle():
    found = modules()
    assert {"triton_migrate.verify.cli", "triton_migrate.verify.tune", "triton_migrate.frontend.cli"} <= set(found)
    for name in found:
        if not name.endswith(".__main__"):  # those run the command line when imported
            importlib.import_module(name)
    graph = {name: imported(name, path, set(found)) for name, path in found.items()}
    assert cycle(graph) is None


def test_a_load_by_name_is_an_import(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import importlib\n\ndef f():\n    return importlib.import_module('p.b').x, __import__('p.c')\n")
    assert imported("p.m", source, {"p.b", "p.c", "p.d"}) == {"p.b", "p.c"}


def test_the_cycle_finder_finds_one():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_verify_drives_the_run_api_not_the_command_line():
    """Issue 37: the run API and the jobs (frontend/runs.py, jobs.py) are a library, without click; `migrate
    verify` migrates its copy of a tree through them and never imports the command line (frontend/cli.py)."""
    found = modules()
    for name in ("triton_migrate.frontend.runs", "triton_migrate.frontend.jobs"):
        tree = ast.parse(found[name].read_text(encoding="utf-8"))
        named = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        named |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        assert not {n for n in named if n.split(".")[0] == "click"}, name
    verify = {name: path for name, path in found.items() if name.startswith(f"{PACKAGE}.verify")}
    assert any(f"{PACKAGE}.frontend.runs" in imported(name, path, set(found)) for name, path in verify.items())
    assert not any(f"{PACKAGE}.frontend.cli" in imported(name, path, set(found)) for name, path in verify.items())

"""Issue 37: the packages of triton_migrate form layers. No import cycle between packages (a module of one that
imports a module of another is an edge between the two, wherever the import stands), and the rules (codes,
conditions over plain values, messages, documentation) import nothing of the analysis or the rewrite: they are
what those refer to. Read from the source with `ast`, nothing imported."""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest
import tomllib
from differential import fixture_dirs
from test_import_graph import cycle, imported
from update_snapshots import migrate_fixture, policy_of

from triton_migrate.analysis.dataflow import FunctionAnalysis
from triton_migrate.forms import Form, Target
from triton_migrate.rules._migrated import Migrated, describe

PACKAGE = "triton_migrate"
# The layers, each a package of triton_migrate (`engine` is one module). A module of none of them (cli.py,
# outcome.py, policy.py) is an entry point or a leaf of plain values, outside the layering.
LAYERS = ("frontend", "engine", "analysis", "rewrite", "syntax", "rules", "verify", "compat")
# What a rule module may import of the package: the rules themselves.
RULES_MAY_IMPORT = {"rules"}


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name, found from each layer's own directory (pyproject.toml maps
    `rules` and `compat` to directories outside `migrate/`)."""
    found = {PACKAGE: Path(importlib.util.find_spec(PACKAGE).origin)}
    for layer in LAYERS:
        spec = importlib.util.find_spec(f"{PACKAGE}.{layer}")
        found[spec.name] = Path(spec.origin)
        for directory in spec.submodule_search_locations or ():
            for path in Path(directory).rglob("*.py"):
                parts = path.relative_to(directory).with_suffix("").parts
                parts = parts[:-1] if parts[-1] == "__init__" else parts
                if parts:
                    found[".".join((spec.name, *parts))] = path
    return found


def layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def layer_edges(found: dict[str, Path]) -> dict[tuple[str, str], list[str]]:
    """(importing layer, imported layer) -> the module imports that make the edge."""
    edges: dict[tuple[str, str], list[str]] = {}
    for name, path in found.items():
        for target in imported(name, path, set(found)):
            pair = (layer(name), layer(target))
            if None not in pair and pair[0] != pair[1]:
                edges.setdefault(pair, []).append(f"{name} -> {target}")
    return edges


def test_every_layer_is_found():
    found = modules()
    assert {"triton_migrate.rules.ttd006_masked_pointers", "triton_migrate.analysis.planner",
            "triton_migrate.compat._guard", "triton_migrate.verify.cli"} <= set(found)


def test_every_installed_package_is_in_a_layer():
    """A package pyproject.toml installs (`rewrite.forms`, `syntax.forms`) that no layer holds would escape the
    cycle test."""
    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    installed = pyproject["tool"]["setuptools"]["packages"]
    assert [p for p in installed if p != PACKAGE and layer(p) is None] == []
    assert set(installed) <= set(modules())


def test_no_import_cycle_between_packages():
    edges = layer_edges(modules())
    graph = {name: set() for name in LAYERS}
    for source, target in edges:
        graph[source].add(target)
    found = cycle(graph)
    assert found is None, "cycle " + " -> ".join(found) + ": " + "; ".join(
        edges[pair][0] for pair in zip(found, found[1:]))


def test_rules_import_nothing_of_the_pipeline():
    imports = [edge for (source, target), made in layer_edges(modules()).items()
               if source == "rules" and target not in RULES_MAY_IMPORT for edge in made]
    assert imports == []


def _callables(value, path: str, seen: set[int]) -> list[str]:
    """Where a callable hides in what the analysis hands over: the fields of its records, dicts, lists, tuples
    and sets, walked down to plain values (a syntax node is plain: the rewrite builds from it, never calls it)."""
    if id(value) in seen or isinstance(value, (str, bytes, int, float, bool, type(None), cst.CSTNode)):
        return []
    seen.add(id(value))
    if callable(value):
        return [f"{path}: {value!r}"]
    if isinstance(value, dict):
        return [f for k, v in value.items() for f in (*_callables(k, f"{path} key", seen),
                                                       *_callables(v, f"{path}[{k!r}]", seen))]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [f for i, v in enumerate(value) for f in _callables(v, f"{path}[{i}]", seen)]
    if hasattr(value, "__dict__"):
        return [f for k, v in vars(value).items() for f in _callables(v, f"{path}.{k}", seen)]
    return []


@pytest.mark.parametrize("target", ["auto", "pointer", "compat"])
def test_the_analysis_hands_the_rewrite_data_not_closures(monkeypatch, target):
    """Issue 37: what the analysis hands the rewrite (FunctionAnalysis.edits) and the run it comes from are data
    that say what each edit is (records), built into syntax by rewrite/forms/: no lambda, no bound method, no
    partial, for any fixture under any target."""
    found: list[str] = []
    original = FunctionAnalysis.edits

    def edits(self):
        handed = original(self)
        found.extend(_callables(handed, f"{self.function.name.value}: edits", set()))
        found.extend(_callables(self.run, f"{self.function.name.value}: run", set()))
        return handed

    monkeypatch.setattr(FunctionAnalysis, "edits", edits)
    for case_dir in fixture_dirs():
        migrate_fixture(case_dir, (case_dir / "before.py").read_text(),
                        None if target == "auto" else replace(policy_of(case_dir), target=target))
    assert found == []


# Words the analysis may still spell: errors of the tool itself, never a diagnostic.
INTERNAL_ERRORS = ("analysis of `{}` did not converge", "block pointers across calls did not settle",
                   "no position for a {}")


def _texts(tree: ast.Module):
    """The string literals and f-strings of a module but its docstrings, f-strings with `{}` for what they
    format, and where each is."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    inside = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in ast.walk(node)
              if part is not node}
    for node in ast.walk(tree):
        if id(node) in docstrings or id(node) in inside:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value
        elif isinstance(node, ast.JoinedStr):
            yield node.lineno, "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)


def test_the_analysis_words_no_message():
    """Issue 37: a rule owns its meaning, the words of its messages included (as a ruff or Fixit rule does): the
    analysis spells no sentence (three words or more) that could reach a report, it takes them from rules/."""
    def sentence(text: str) -> bool:
        return sum(bool(re.search("[A-Za-z]{2}", word)) for word in text.split()) >= 3

    spelt = []
    for name, path in modules().items():
        if layer(name) == "analysis":
            spelt += [f"{path.name}:{line}: {text!r}" for line, text in _texts(ast.parse(path.read_text()))
                      if sentence(text) and text not in INTERNAL_ERRORS]
    assert spelt == []


def _form_spellings(tree: ast.Module) -> list[tuple[int, str]]:
    """The string literals of a module (docstrings and f-strings aside) that spell a form or a target."""
    words = {word.value for word in (*Form, *Target)} - {Target.AUTO.value}  # `auto` is many settings' word too
    return [(line, text) for line, text in _texts(tree) if text in words]


def test_no_form_is_spelt_outside_its_module():
    """Issue 44: what a site becomes is a `Form` (and what the user asks, a `Target`), spelt in forms.py alone:
    every comparison names the member, so a form cannot be misspelt or mean two things. The compat shim, which
    runs in the user's processes and imports triton only, is not the tool."""
    spelt = [f"{path.name}:{line}: {text!r}" for name, path in modules().items()
             if name != f"{PACKAGE}.forms" and layer(name) != "compat"
             for line, text in _form_spellings(ast.parse(path.read_text()))]
    assert spelt == []


def test_the_form_test_sees_a_spelling():
    assert _form_spellings(ast.parse('if form == "pointer":\n    pass\n')) == [(1, "pointer")]


def _target_reads(tree: ast.Module) -> list[int]:
    """Where a module reads a policy's target (`policy.target`, `self.fn.policy.target`)."""
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "target"
            and (isinstance(node.value, ast.Name) and node.value.id == "policy"
                 or isinstance(node.value, ast.Attribute) and node.value.attr == "policy")]


def test_the_target_is_read_in_one_module():
    """Issue 44: the planner alone reads `policy.target`; the others ask it (uses_shim, descriptors_only, ...)."""
    readers = {name for name, path in modules().items() if _target_reads(ast.parse(path.read_text()))}
    assert readers == {f"{PACKAGE}.analysis.planner"}
    assert _target_reads(ast.parse("x = self.fn.policy.target\n")) == [1]


MAX_LINES = 500


def test_no_module_of_the_tool_is_over_500_lines():
    """Issue 44: a module that does several jobs grows past what one reader holds (engine.py had 931 lines and
    six jobs); none of migrate/ is longer than MAX_LINES."""
    root = Path(importlib.util.find_spec(PACKAGE).origin).parent
    over = {path.relative_to(root).as_posix() for path in root.rglob("*.py")
            if len(path.read_text().splitlines()) > MAX_LINES}
    assert over == set()


def test_the_engine_words_no_site_a_rule_does():
    """Issue 44: a rewrite rule (TTD001, TTD006 to TTD010) owns the wording of the sites it names
    (rules/_migrated.py, `@words`): the engine asks the registry, it holds no ladder of codes, and a new rewrite
    rule touches its own module only."""
    root = Path(importlib.util.find_spec(f"{PACKAGE}.engine").origin).parent
    rewrite_rule = re.compile(r"ttd0\d\d_")
    calls = [f"{path.name}:{node.lineno}" for path in root.glob("*.py")
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "message"
             and isinstance(node.func.value, ast.Name) and rewrite_rule.match(node.func.value.id)]
    assert calls == []


@pytest.mark.parametrize("flags, code", [
    ({"parts_only": True}, "TTD008"), ({"compat": True}, "TTD007"), ({"pointer": True}, "TTD006"),
    ({"guarded": True}, "TTD009"), ({"facts": "`x` aligned"}, "TTD010"), ({}, "TTD001"),
    ({"pointer": True, "guarded": True}, "TTD006"),  # in the registry's order
])
def test_each_rewrite_rule_names_its_sites(flags, code):
    site = {"parts_only": False, "compat": False, "pointer": False, "guarded": False, "facts": "", **flags}
    assert describe(Migrated("block pointer `p`", "p", "", **site))[0] == code

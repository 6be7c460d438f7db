"""A self-check of the rewrite: every name a function reads after it must still be bound.

Deleting a block pointer's creation while something still reads it (a call the rewrite left alone) gives
code that re-parses and is a fixed point, yet fails with a NameError at compile time. This compares, per
top-level function (or method), the names it reads that nothing binds, before and after: the rewrite may
not add any. Bindings are over-approximated (any binding anywhere in the function counts, nested scopes
included), so the check never blames a correct rewrite; a name the source already read unbound (a star
import, a name injected at run time) is the source's business, not the rewrite's.
"""

from __future__ import annotations

import ast
import builtins
import warnings
from typing import Any

from triton_migrate.syntax.ast_walk import ast_nodes

_BUILTINS = frozenset(dir(builtins))
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def newly_unbound(before: str, after: str, after_tree: ast.Module | None = None) -> dict[str, set[str]]:
    """Function -> the names it reads after the rewrite that nothing binds, and that it did not read
    unbound before. The source before is only parsed when there is any such name (rarely). `after_tree`:
    `after` already parsed (the fixed-point check parses it too)."""
    after_reads = _unbound_reads(_parse(after) if after_tree is None else after_tree)
    if not any(after_reads.values()):
        return {}
    before_reads = _unbound_reads(_parse(before), with_early_reads=True)
    found: dict[str, set[str]] = {}
    for key, names in after_reads.items():
        lost = names - before_reads.get(key, set())
        if lost:
            found.setdefault(key[0], set()).update(lost)
    return found


def _unbound_reads(tree: ast.Module, with_early_reads: bool = False) -> dict[tuple[str, int], set[str]]:
    """(qualified name, how many functions of that name came before) -> the names it reads unbound;
    `with_early_reads`: also those it reads before binding them (a kernel that was broken already)."""
    module = _BUILTINS | _bindings_and_reads(tree, enter_functions=False)[0]
    found: dict[tuple[str, int], set[str]] = {}
    seen: dict[str, int] = {}
    for name, function in _top_functions(tree, ""):
        seen[name] = seen.get(name, -1) + 1
        bound, reads = _bindings_and_reads(function, enter_functions=True)
        found[(name, seen[name])] = reads - bound - module | (_early_reads(function) if with_early_reads else set())
    return found


def _early_reads(function: ast.AST) -> set[str]:
    """Names read where no assignment can have run yet: before the first one in the text, outside any
    loop that assigns them (its next pass could). Such a read fails with or without the rewrite."""
    assigned: dict[str, list[tuple[int, int]]] = {}
    reads, loops, everywhere = [], [], set()  # everywhere: parameters, imports, ...: bound wherever read
    for node in ast_nodes(function):
        kind = type(node)
        if kind is ast.Name:
            at = (node.lineno, node.col_offset)
            (reads.append((node.id, at)) if type(node.ctx) is ast.Load else assigned.setdefault(node.id, []).append(at))
        elif kind in (ast.For, ast.AsyncFor, ast.While):
            loops.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)))
        elif kind is ast.arg:
            everywhere.add(node.arg)
        elif kind is ast.alias:
            everywhere.add(node.asname or node.name.partition(".")[0])
        elif kind in (ast.Global, ast.Nonlocal):
            everywhere.update(node.names)
        elif kind in (*_FUNCTIONS, ast.ClassDef):
            everywhere.add(node.name)
    early = set()
    for name, at in reads:
        at_most = assigned.get(name)
        if not at_most or name in everywhere or at >= min(at_most):
            continue
        if not any(start <= at <= end and any(start <= b <= end for b in at_most) for start, end in loops):
            early.add(name)
    return early


def _parse(source: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the user's SyntaxWarnings are not ours to print
        return ast.parse(source)


def _top_functions(node: ast.AST, prefix: str):
    """(qualified name, node) of the functions not nested in another function: module level and methods."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _FUNCTIONS):
            yield prefix + child.name, child
        elif isinstance(child, ast.ClassDef):
            yield from _top_functions(child, f"{prefix}{child.name}.")
        else:
            yield from _top_functions(child, prefix)


# Nodes that bind a `name`: Python 3.10's patterns among them (3.9, which the tool supports, has none).
_NAMING = tuple(getattr(ast, kind) for kind in ("ExceptHandler", "MatchAs", "MatchStar") if hasattr(ast, kind))
_MAPPING_PATTERN = getattr(ast, "MatchMapping", None)


def _bindings_and_reads(root: ast.AST, enter_functions: bool) -> tuple[set[str], set[str]]:
    """The names bound in `root` (assigned, parameters, imports, definitions, `global`/`nonlocal`, except
    and match captures) and the names it reads; inside nested functions too only if `enter_functions`."""
    bound: set[str] = set()
    reads: set[str] = set()
    pending: list[Any] = [root]  # Any: dispatched on type() by hand below, which mypy does not follow
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is ast.Name:
            (reads if type(node.ctx) is ast.Load else bound).add(node.id)
            continue
        if kind is ast.arg:
            bound.add(node.arg)
        elif kind is ast.alias:
            bound.add(node.asname or node.name.partition(".")[0])
        elif kind in (ast.Global, ast.Nonlocal):
            bound.update(node.names)
        elif kind in (*_FUNCTIONS, ast.ClassDef):
            bound.add(node.name)
        elif kind in _NAMING and node.name:
            bound.add(node.name)
        elif kind is _MAPPING_PATTERN and node.rest:
            bound.add(node.rest)
        if node is root or enter_functions or kind not in (*_FUNCTIONS, ast.Lambda):
            pending.extend(ast.iter_child_nodes(node))
    return bound, reads

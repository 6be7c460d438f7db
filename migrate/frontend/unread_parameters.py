"""The parameters that the rewrite leaves unread.

A kernel parameter whose only use was a block pointer's bound in a dimension no access checks (`n_rows` in
`tl.make_block_ptr(x, shape=(n_rows, D), ...)` loaded with `boundary_check=(1,)`) is read by nothing that
replaces the block pointer: masked pointers need no bound there. The parameter stays, as the kernel's API (a
positional caller would break), and a linter of unused arguments (ruff's ARG001) now flags it; the front end
marks its line with a `# noqa` where the project's own ruff asks for that rule (lint_pragmas.py).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass

CODE = "ARG001"  # ruff's unused-function-argument (flake8-unused-arguments); methods have other codes
# ruff's default `dummy-variable-rgx`: parameters it never reports as unused
_DUMMY = re.compile(r"_+|_+[a-zA-Z0-9_]*[a-zA-Z0-9]+?")


@dataclass(frozen=True)
class Unread:
    function: str  # the function's name
    name: str  # the parameter's
    line: int  # where the parameter is in the source as read (1-based line and column)
    column: int
    new_line: int  # where it is in the migrated source


def unread_parameters(source: str, new_source: str) -> list[Unread]:
    """The parameters of functions (not methods) that the function read in `source` and reads no more in
    `new_source`, in the order of `source`."""
    try:
        before, after = _functions(ast.parse(source)), _functions(ast.parse(new_source))
    except (SyntaxError, ValueError):  # the front end reports output that does not parse
        return []
    found = []
    for key, old in before.items():
        new = after.get(key)
        if new is None:  # removed (TTD011)
            continue
        kept = {argument.arg: argument for argument in _parameters(new)}
        read_before, read_after = _read(old), _read(new)
        found += [Unread(old.name, argument.arg, argument.lineno, argument.col_offset + 1, kept[argument.arg].lineno)
                  for argument in _parameters(old) if argument.arg in kept and argument.arg in read_before
                  and argument.arg not in read_after and not _DUMMY.fullmatch(argument.arg)]
    return found


def _functions(module: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function that is not a method, by its qualified name (`outer.<locals>.inner`; a name defined
    again gets `#2`, `#3`, ... so that each definition meets its own rewrite)."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    defined: Counter[str] = Counter()

    def visit(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                defined[name] += 1
                key = name if defined[name] == 1 else f"{name}#{defined[name]}"
                if not in_class:
                    found[key] = child
                visit(child, f"{key}.<locals>.", False)
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.", True)
            else:
                visit(child, prefix, in_class)

    visit(module, "", False)
    return found


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    arguments = function.args
    variadic = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [*arguments.posonlyargs, *arguments.args, *variadic, *arguments.kwonlyargs]


def _read(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names the body reads (an augmented assignment reads its target; nested scopes count)."""
    names = set()
    for statement in function.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Load, ast.Del)):
                names.add(node.id)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return names

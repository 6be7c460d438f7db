"""Every block-pointer call a module spells, whatever its callee is bound to: what the report must account for.

The analysis knows a call for Triton's by the import that binds its callee (triton_names.py), and Python binds
names in more ways than any tool follows (an import in a `try:` whose other branch takes it from a package that
is not installed, a name passed in, `globals()`, `importlib`). So silence cannot rest on the bindings being
understood: the census counts the calls by their spelling alone, and the engine reports each that no site
accounts for (TTD203). Which calls count:

* `make_block_ptr(...)`, bare or as an attribute of anything (`tl.`, `triton.language.`, `ops.`): no other
  library has a function of that name. A definition (`def make_block_ptr`) is no call.
* `advance(base, offsets)`, bare or as an attribute, with exactly two arguments (positional, or `base=` and
  `offsets=`), in a module that also calls `make_block_ptr`, or whose offsets are written as a tuple or list
  (`tl.advance(p, (0, BK))`, as a helper's module that only moves the block pointers it is given writes them).
  `advance` is a common method name (a reader's `it.advance()`, a tokenizer's `advance(n)`): these shapes are
  Triton's, the others are not counted. A block pointer's own method, `p.advance((0, BK))` (one argument), is
  Triton's in `@triton.jit` code only, where the analysis takes every such call for one (calls.member_called).
"""

from __future__ import annotations

import ast
from typing import cast

from triton_migrate.syntax.ast_walk import ast_nodes, lines_spelling

from .triton_names import ast_dotted_name

CREATION, ADVANCE = "make_block_ptr", "advance"
_ADVANCE_KEYWORDS = ("base", "offsets")


def spelled_calls(tree: ast.Module, source: str) -> list[ast.Call]:
    """The module's block-pointer calls by spelling, in source order (see above). Only the statements on lines
    that spell a member are walked (`source`: the module's text): in a kernel module the others are most of it,
    and walking every node cost a twentieth of a check."""
    creations: list[ast.Call] = []
    advances: list[tuple[ast.Call, ast.expr]] = []  # with their offsets
    for node in ast_nodes(tree, lines_spelling(source, (CREATION, ADVANCE))):
        if type(node) is not ast.Call:
            continue
        called = _called_name(node.func)
        if called == CREATION:
            creations.append(node)
        elif called == ADVANCE and (offsets := _offsets(node)) is not None:
            advances.append((node, offsets))
    counted = creations + [call for call, offsets in advances if creations or _is_display(offsets)]
    return sorted(counted, key=lambda call: (call.lineno, call.col_offset))


def is_creation(call: ast.Call) -> bool:
    return _called_name(call.func) == CREATION


def callee(call: ast.Call) -> tuple[str | None, str]:
    """(owner, member) of a counted call: (None, "make_block_ptr") for a bare name, ("tl", ...) for
    `tl.make_block_ptr`, ("triton.language", ...), or ("", ...) where the owner is no dotted name (`f().advance`)."""
    func = call.func
    if type(func) is ast.Name:
        return None, func.id
    attribute = cast(ast.Attribute, func)  # a counted call is `name(...)` or `owner.name(...)`
    return ast_dotted_name(attribute.value) or "", attribute.attr


def _called_name(func: ast.expr) -> str | None:
    if type(func) is ast.Name:
        return func.id
    if type(func) is ast.Attribute:
        return func.attr
    return None


def _offsets(call: ast.Call) -> ast.expr | None:
    """The offsets of a call shaped as `advance(base, offsets)`, or None for any other shape."""
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    if any(type(argument) is ast.Starred for argument in call.args) or None in keywords:
        return None
    named: dict[str | None, ast.expr] = dict(zip(_ADVANCE_KEYWORDS, call.args))
    if len(call.args) > 2 or keywords.keys() - set(_ADVANCE_KEYWORDS) or keywords.keys() & named.keys():
        return None
    named.update(keywords)
    return named["offsets"] if len(named) == 2 else None


def _is_display(node: ast.expr) -> bool:
    return type(node) in (ast.Tuple, ast.List)

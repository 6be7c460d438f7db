"""`walk` must meet the same nodes in the same order as libcst's own visit, less whitespace and punctuation:
the analysis reads code through it, so a skipped field would silently hide a block-pointer use."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import typing
from pathlib import Path

import libcst as cst
import pytest

from triton_migrate.syntax.ast_walk import ast_nodes, lines_spelling
from triton_migrate.syntax.walk import _TRIVIA, ALL_FIELDS, walk

ROOT = Path(__file__).resolve().parent.parent
# Kernels, and stdlib modules for the syntax kernels rarely use; SYNTAX for what even those lack.
SOURCES = sorted([*(ROOT / "fixtures").rglob("*.py"), *(ROOT / "benchmarks" / "kernels").glob("*.py")]) + \
    [Path(m.__file__) for m in (dataclasses, inspect, typing)]
SYNTAX = """
from . import a as b, c
from .. x import (d, e,)
import f.g as h
@deco(1)
async def run(p, /, q: int = 2, *r, s, t=3, **u) -> None:
    global G
    async with v as (w, x), y:
        async for z in aiter():
            await z
    match w:
        case [1, *rest] if rest: pass
        case {"k": kk, **others}: pass
        case Point(x=0, y=yy) | None: pass
        case _: pass
    try:
        raise E from F
    except* (TypeError, ValueError) as err:
        del err
    finally:
        lam = lambda a, *b, c=1, **d: (yield a)
    x = [i for i in range(3) if i] + {k: v for k, v in {}.items()} + {*s} + (yield from g)
    x[1:2:3, ...] += f"{x!r:>{w}}" ; y @= ~x if not x else -x
    while (n := n - 1) > 0: continue
    else: assert x, "m"
    class K(B, metaclass=M): nonlocal_ = 1
"""


def _recorder() -> tuple[cst.CSTVisitor, list]:
    """A visitor with its own visit_/leave_ method for every node type, recording each call."""
    events: list = []

    def methods(kind: type) -> dict:
        return {f"visit_{kind.__name__}": lambda self, node: events.append(("visit", node)),
                f"leave_{kind.__name__}": lambda self, node: events.append(("leave", node))}

    kinds = [k for k in vars(cst).values() if isinstance(k, type) and issubclass(k, cst.CSTNode)]
    namespace = {name: method for kind in kinds for name, method in methods(kind).items()}
    return type("Recorder", (cst.CSTVisitor,), namespace)(), events


class _LibcstOrder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.events: list = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _TRIVIA):
            return False  # nor what is inside it (a comment)
        self.events.append(("visit", node))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if not isinstance(original_node, _TRIVIA):
            self.events.append(("leave", original_node))


@pytest.mark.parametrize("source", [*SOURCES, SYNTAX], ids=lambda p: p.name if isinstance(p, Path) else "syntax")
def test_walk_meets_every_node_libcst_visits_in_the_same_order(source):
    text = source.read_text() if isinstance(source, Path) else source
    wrapper = cst.MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    expected = _LibcstOrder()
    wrapper.module.visit(expected)  # visits the very nodes (no copy): identity can be compared
    recorder, walked = _recorder()
    walk(recorder, wrapper.module)
    assert [(e, type(n).__name__, id(n)) for e, n in walked] == \
        [(e, type(n).__name__, id(n)) for e, n in expected.events]


def test_each_visitor_type_keeps_its_own_methods():
    """The walk remembers each visitor type's visit_/leave_ methods: one visitor's must never serve another."""
    module = cst.parse_module("x = f(y)\n")
    recorder, walked = _recorder()
    walk(recorder, module)

    class Names(cst.CSTVisitor):
        def __init__(self) -> None:
            self.seen: list[str] = []

        def visit_Name(self, node: cst.Name) -> None:
            self.seen.append(node.value)

    names = Names()
    walk(names, module)
    assert names.seen == ["x", "f", "y"]
    assert len(walked) > 2 * len(names.seen)  # the recorder saw every node, visit and leave


def test_fields_in_the_order_libcst_visits_them() -> None:
    """ALL_FIELDS reads each node type's field order from its child visit's code constants: the same order as
    the visit's source names them, for every node type libcst has (a constant written before its visit, in
    some future libcst, would reorder a walk)."""
    import re

    visited = re.compile(r'visit_\w+\(\s*self,\s*"(\w+)"')
    kinds = [k for k in vars(cst).values() if isinstance(k, type) and issubclass(k, cst.CSTNode)
             and dataclasses.is_dataclass(k) and "_visit_and_replace_children" in vars(k)]
    assert len(kinds) > 100
    for kind in kinds:
        named = dict.fromkeys(visited.findall(inspect.getsource(kind._visit_and_replace_children)))
        fields = [name for name in named if name in ALL_FIELDS[kind]]
        assert fields == [name for name in ALL_FIELDS[kind] if name in named], kind.__name__


@pytest.mark.parametrize("source", [*SOURCES[:20], *SOURCES[-3:]], ids=lambda p: p.name)
def test_ast_nodes_is_ast_walk(source) -> None:
    """The census counts calls in the order `ast.walk` meets them: `ast_nodes` must meet the same nodes in it."""
    tree = ast.parse(source.read_text())
    assert [id(node) for node in ast_nodes(tree)] == [id(node) for node in ast.walk(tree)]


@pytest.mark.parametrize("source", [*SOURCES[:20], *SOURCES[-3:]], ids=lambda p: p.name)
def test_a_walk_of_the_lines_spelling_a_word_meets_every_call_spelt_with_it(source) -> None:
    """The census walks only the statements on lines that spell a member (ast_walk.lines_spelling): it must
    meet every call of it, in `ast.walk`'s order, and in a kernel module pass most of the nodes over."""
    text = source.read_text()
    tree = ast.parse(text)
    words = ("make_block_ptr", "advance", "load")
    met = list(ast_nodes(tree, lines_spelling(text, words)))
    spelt = [id(n) for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr in words]
    assert [id(n) for n in met if id(n) in set(spelt)] == spelt
    if spelt:
        assert len(met) < len(list(ast.walk(tree)))


def test_the_lines_spelling_a_word_are_numbered_as_the_ast_numbers_them() -> None:
    text = "@tl.advance(p)\ndef f():\r\n    pass\r    x = 1\n    tl.advance(q)\n"
    tree = ast.parse(text)
    assert lines_spelling(text, ("advance",)) == [1, 5] == [n.lineno for n in ast.walk(tree) if type(n) is ast.Call]
    assert [type(n).__name__ for n in ast_nodes(tree, [1])][:3] == ["Module", "FunctionDef", "arguments"]
    assert lines_spelling("ｍake_block_ptr(a)", ("make_block_ptr",)) is None  # the parser's spelling may differ

"""Line and column of the nodes a diagnostic points at.

libcst's PositionProvider generates the code of the whole module again to find positions: on kernel-heavy
files that was the largest single cost of a check. The stdlib ast that the gate parses anyway knows where
every call and every parameter starts, and the libcst scan meets the same calls and parameters in the
same (source) order: the two lists are paired, and a pairing whose counts or names disagree is dropped.
Other nodes (a refusal that points at a name or a loop) fall back to the provider, computed once per file
and only when first needed. A tree rebuilt from the ast (ast_tree.py, for checks) knows every node's place.
"""

from __future__ import annotations

import ast
import io
import re
from collections.abc import Mapping, Sequence
from typing import Union, cast

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from .ast_tree import Unsupported, name_position

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what Python's tokenizer (and libcst) count as a line break
Located = Union[ast.expr, ast.arg, ast.stmt]  # an ast node paired with its libcst twin: a call, a parameter, a def


def source_order(nodes: Sequence[Located]) -> list:
    """libcst's pre-order: by start, the outer node first."""
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset, -n.end_lineno, -n.end_col_offset))


def _ast_name(node: Located) -> str | None:
    """What pairs an ast node with its libcst twin: a parameter's name, a called name's last part, a
    function's name (its twin is the libcst FunctionDef's name)."""
    if isinstance(node, ast.arg):
        return node.arg
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name
    func = cast(ast.Call, node).func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _cst_name(node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Param):
        return node.name.value
    if isinstance(node, cst.Name):
        return node.value
    func = cast(cst.Call, node).func
    return func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None


class _EncodedLines:
    """The source's lines as the ast counts them (UTF-8), split only if a function's name is asked for."""

    def __init__(self, source: str) -> None:
        self._source = source
        self._lines: list[bytes] | None = None

    def start(self, node: Located) -> tuple[int, int]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return name_position(self.line, node)
        return node.lineno, node.col_offset

    def line(self, number: int) -> bytes:
        if self._lines is None:
            self._lines = [line.encode() for line in io.StringIO(self._source, newline="").readlines()]
        return self._lines[number - 1]


class Positions:
    def __init__(self, source: str, known: dict[int, tuple[int, int]],
                 wrapper: MetadataWrapper | None = None) -> None:
        """`known`: id(node) -> (line, column in UTF-8 bytes), as the ast has them; other nodes' places come
        from libcst's provider on `wrapper` (a tree from ast_tree.py has none: every node it can be asked
        about is known)."""
        self._source = source
        self._ascii = source.isascii()
        self._known = known
        self._wrapper = wrapper
        self._provider: Mapping[cst.CSTNode, CodeRange] | None = None
        self._lines: list[str] | None = None

    @classmethod
    def paired(cls, wrapper: MetadataWrapper, source: str,
               pairs: Sequence[tuple[Sequence[cst.CSTNode], Sequence[Located]]] = ()) -> Positions:
        """`pairs`: (libcst nodes in pre-order, their ast twins in any order), calls with calls, parameters
        with parameters, functions' names with functions."""
        known: dict[int, tuple[int, int]] = {}
        lines = _EncodedLines(source)
        for cst_nodes, ast_nodes in pairs:
            ordered = source_order(ast_nodes)
            if len(ordered) == len(cst_nodes) and list(map(_ast_name, ordered)) == list(map(_cst_name, cst_nodes)):
                known.update(zip(map(id, cst_nodes), [lines.start(n) for n in ordered]))
        return cls(source, known, wrapper)

    def start(self, node: cst.CSTNode) -> tuple[int, int]:
        """(line, 0-based column in characters) where `node` starts."""
        known = self._known.get(id(node))
        if known is not None:
            return known if self._ascii else self._in_characters(*known)
        if self._wrapper is None:
            raise Unsupported(f"no position for a {type(node).__name__}")
        if self._provider is None:
            self._provider = self._wrapper.resolve(PositionProvider)
        start = self._provider[node].start
        return start.line, start.column

    def _in_characters(self, line: int, column: int) -> tuple[int, int]:
        if self._lines is None:
            self._lines = _LINE_BREAK.split(self._source)  # ast columns count UTF-8 bytes, libcst's characters
        return line, len(self._lines[line - 1].encode()[:column].decode())

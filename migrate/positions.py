"""Line and column of the nodes a diagnostic points at.

libcst's PositionProvider generates the code of the whole module again to find positions: on kernel-heavy
files that was the largest single cost of a check. The stdlib ast that the gate parses anyway knows where
every call and every parameter starts, and the libcst scan meets the same calls and parameters in the
same (source) order: the two lists are paired, and a pairing whose counts or names disagree is dropped.
Other nodes (a refusal that points at a name or a loop) fall back to the provider, computed once per file
and only when first needed.
"""

from __future__ import annotations

import ast
import re
from typing import Optional, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what Python's tokenizer (and libcst) count as a line break


def starts(ordered: Sequence[ast.expr | ast.arg], source: str) -> list[tuple[int, int]]:
    """(line, 0-based column in characters) of each node, in the order given."""
    if source.isascii():
        return [(n.lineno, n.col_offset) for n in ordered]
    lines = _LINE_BREAK.split(source)  # ast columns count UTF-8 bytes, libcst's count characters
    return [(n.lineno, len(lines[n.lineno - 1].encode()[:n.col_offset].decode())) for n in ordered]


def source_order(nodes: Sequence[ast.expr | ast.arg]) -> list:
    """libcst's pre-order: by start, the outer node first."""
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset, -n.end_lineno, -n.end_col_offset))


def _ast_name(node: ast.AST) -> Optional[str]:
    """What pairs an ast node with its libcst twin: a parameter's name, a called name's last part."""
    if isinstance(node, ast.arg):
        return node.arg
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _cst_name(node: cst.CSTNode) -> Optional[str]:
    if isinstance(node, cst.Param):
        return node.name.value
    func = node.func
    return func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None


class Positions:
    def __init__(self, wrapper: MetadataWrapper, source: str,
                 pairs: Sequence[tuple[Sequence[cst.CSTNode], Sequence[ast.AST]]] = ()) -> None:
        """`pairs`: (libcst nodes in pre-order, their ast twins in any order), calls with calls, parameters
        with parameters."""
        self._wrapper = wrapper
        self._known: dict[int, tuple[int, int]] = {}
        for cst_nodes, ast_nodes in pairs:
            ordered = source_order(ast_nodes)
            if len(ordered) == len(cst_nodes) and list(map(_ast_name, ordered)) == list(map(_cst_name, cst_nodes)):
                self._known.update(zip(map(id, cst_nodes), starts(ordered, source)))
        self._provider = None

    def start(self, node: cst.CSTNode) -> tuple[int, int]:
        """(line, 0-based column) where `node` starts."""
        known = self._known.get(id(node))
        if known is not None:
            return known
        if self._provider is None:
            self._provider = self._wrapper.resolve(PositionProvider)
        start = self._provider[node].start
        return start.line, start.column

"""No run of blank lines the author did not write: where the rewrite removed or moved a line, what stood
above it joins what stands above the next one, and two blank lines meet inside a function (pycodestyle's
E303, which flash-linear-attention's own lint runs). Such a run is cut to one blank line; the runs above
statements whose leading lines the author wrote as they are stay as they were.
"""

from __future__ import annotations

import libcst as cst

from triton_migrate.syntax.walk import children

from .blocks import paths_to


def no_new_blank_runs(original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
    """`updated` (the rewrite of `original`) with every run of blank lines that the rewrite joined cut to one."""
    authored = {id(node.leading_lines) for node in _statements(original)}
    joined = {id(node) for node in _statements(updated)
              if id(node.leading_lines) not in authored and _longest_run(node.leading_lines) > 1}
    if not joined:
        return updated
    wanted: set[int] = set()
    paths_to(updated, joined, wanted)
    return cst.ensure_type(updated.visit(_Cut(joined, wanted)), cst.FunctionDef)


def _statements(function: cst.FunctionDef) -> list:
    found, pending = [], [function.body]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.BaseStatement):
            found.append(node)
        pending.extend(children(node))
    return found


def _longest_run(lines) -> int:
    longest = run = 0
    for line in lines:
        run = run + 1 if line.comment is None else 0
        longest = max(longest, run)
    return longest


def _cut(lines) -> list[cst.EmptyLine]:
    return [line for index, line in enumerate(lines)
            if not (line.comment is None and index and lines[index - 1].comment is None)]


class _Cut(cst.CSTTransformer):
    def __init__(self, joined: set[int], wanted: set[int]) -> None:
        self.joined, self.wanted = joined, wanted

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.wanted

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        if id(original) in self.joined and isinstance(updated, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return updated.with_changes(leading_lines=_cut(list(updated.leading_lines)))
        return updated

"""Blocks of statements after the rewrite removed lines from them, and the paths down to what it edits.

A line that loses every statement disappears; its comments are first held by a line with `HOLDER`, then
handed to the next statement of the block (as if the line had been deleted by hand). A block left with no
statement gets a `pass`, which keeps what comments there are.
"""

from __future__ import annotations

from collections import Counter

import libcst as cst

from triton_migrate.syntax.nodes import leading_lines
from triton_migrate.syntax.walk import ALL_FIELDS, children

HOLDER = cst.Pass()


def removed(line: cst.SimpleStatementLine):
    """What stands for a removed line: nothing, or a holder of its comments."""
    has_comment = line.trailing_whitespace.comment is not None or any(
        empty.comment is not None for empty in line.leading_lines)
    return line.with_changes(body=[HOLDER]) if has_comment else cst.RemovalSentinel.REMOVE


def filled(block: cst.IndentedBlock) -> cst.IndentedBlock:
    """The block with its held comments moved on, and a `pass` if it has no statement left."""
    body, left_over = _pass_comments_on(block.body)
    if not body:
        return block.with_changes(body=[cst.SimpleStatementLine([cst.Pass()], leading_lines=left_over)])
    return block.with_changes(body=body, footer=[*left_over, *block.footer])


def _pass_comments_on(body) -> tuple[list, list]:
    """The block's statements without comment holders, the held comments moved to the next statement;
    and the comments held at the end of the block."""
    kept, held = [], []
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine) and statement.body[0] is HOLDER:
            comment = statement.trailing_whitespace.comment
            held += [*statement.leading_lines, *([cst.EmptyLine(comment=comment)] if comment else [])]
        elif held:
            kept.append(statement.with_changes(leading_lines=[*held, *statement.leading_lines]))
            held = []
        else:
            kept.append(statement)
    return kept, held


def without_lines(original: cst.IndentedBlock, updated: cst.IndentedBlock, dropped: set[int]) -> cst.IndentedBlock:
    """`updated` (the rebuilt `original`) without the statements whose original ids are in `dropped`; what
    stood above each (comments, blank lines) and a comment that ended its line go to the next statement
    kept, or end the block."""
    body, held = [], []
    for old, new in zip(original.body, updated.body):
        if id(old) in dropped:
            comment = new.trailing_whitespace.comment if isinstance(new, cst.SimpleStatementLine) else None
            held += [*leading_lines(new), *([cst.EmptyLine(comment=comment)] if comment else [])]
            continue
        body.append(new.with_changes(leading_lines=[*held, *leading_lines(new)]) if held else new)
        held = []
    return updated.with_changes(body=body, footer=[*held, *updated.footer])


class RenameAndDrop(cst.CSTTransformer):
    """Variables read under other names (`renamed`; an attribute's or a keyword's name keeps its spelling) and
    the statements of `dropped` (their ids) removed, what stood above each passed on (`without_lines`); only
    the nodes of `wanted` are entered (None: every node)."""

    def __init__(self, renamed: dict[str, str], dropped: set[int], wanted: set[int] | None) -> None:
        self.renamed, self.dropped, self.wanted = renamed, dropped, wanted

    def on_visit(self, node: cst.CSTNode) -> bool:
        return self.wanted is None or id(node) in self.wanted

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value=self.renamed.get(updated.value, updated.value))

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return filled(without_lines(original, updated, self.dropped))


def inner_blocks(statement: cst.CSTNode) -> list[tuple[cst.CSTNode, bool]]:
    """The blocks of statements inside a compound statement: (block, whether a statement may be inserted
    into it); an `elif` stands alone where its `if`'s else would be."""
    if not isinstance(statement, (cst.If, cst.For, cst.While, cst.With)):
        return []
    found: list[tuple[cst.CSTNode, bool]] = [(statement.body, True)]
    orelse = getattr(statement, "orelse", None)
    if isinstance(orelse, cst.If):
        found.append((orelse, False))
    elif orelse is not None:
        found.append((orelse.body, True))
    return found


def node_ids(function: cst.FunctionDef) -> set[int]:
    """The ids of every node of `function`: what the user wrote, where the rewrite kept it."""
    found, pending = set(), [function.body]
    while pending:
        node = pending.pop()
        found.add(id(node))
        pending.extend(children(node))
    return found


def paths_to(node: cst.CSTNode, edited, found: set[int]) -> bool:
    """Add the ids of `node` and of the nodes below it that lead to an edited node to `found`; True if any."""
    hit = id(node) in edited
    for child in children(node):
        hit = paths_to(child, edited, found) or hit
    if hit:
        found.add(id(node))
    return hit


def lost_comments(before: list, after: list) -> list[str]:
    """The comments inside the `before` statements (`x = tl.load(  # noqa: F821` on a call's first line) that
    the `after` statements that replace them no longer hold, in source order."""
    found = comments(before)
    if not found:
        return []
    kept = Counter(comments(after))
    lost = []
    for comment in found:
        if kept[comment]:
            kept[comment] -= 1
        else:
            lost.append(comment)
    return lost


def comments(nodes: list) -> list[str]:
    """The text of every comment in these nodes, in source order. Inside a statement a comment can only
    follow a line break within brackets (`ParenthesizedWhitespace`), in whitespace that `walk` skips."""
    found, stack = [], list(reversed(nodes))
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Comment:
            found.append(node.value)
            continue
        if kind is cst.ParenthesizedWhitespace:
            found += [line.comment.value for line in (node.first_line, *node.empty_lines) if line.comment]
            continue
        if kind in _ATOMS and not node.lpar or kind is cst.SimpleWhitespace:
            continue
        inside = []
        for name in ALL_FIELDS[kind]:
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                inside.append(value)
            elif type(value) is tuple or type(value) is list:
                inside.extend(item for item in value if isinstance(item, cst.CSTNode))
        stack.extend(reversed(inside))
    return found


_ATOMS = frozenset({cst.Name, cst.Integer, cst.Float, cst.SimpleString})  # nothing inside but parentheses

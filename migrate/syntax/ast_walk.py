"""A walk over stdlib `ast` trees, without libcst: the main process uses it too (reachable.py), where a warm
check imports no libcst."""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterator, Sequence


def ast_nodes(tree: ast.AST, lines: Sequence[int] | None = None) -> Iterator[ast.AST]:
    """`ast.walk(tree)`: the same nodes in the same order (breadth first), in some 60% of its time (`ast.walk`
    resumes two generators per node, and the census walks every node of every module a check reads).
    `lines` (sorted line numbers, `lines_spelling`): a statement on none of them is passed over, with all it
    holds; the order of the nodes met is still `ast.walk`'s."""
    queue = [tree]
    for node in queue:  # the queue grows as it is read
        yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                queue.extend([item for item in value if isinstance(item, ast.AST)
                              and (lines is None or _on_one_of(item, lines))])
            elif isinstance(value, ast.AST):
                queue.append(value)


def _on_one_of(node: ast.AST, lines: Sequence[int]) -> bool:
    """Whether `node`, a statement, spans one of `lines` (its decorators included); any other node does."""
    if not isinstance(node, ast.stmt):
        return True
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    at = bisect.bisect_left(lines, first)
    return at < len(lines) and lines[at] <= (node.end_lineno or node.lineno)


_NEWLINE = re.compile(r"\r\n?|\n")


def lines_spelling(source: str, words: Sequence[str]) -> list[int] | None:
    """The numbers of the lines where one of `words` is written, as the ast numbers lines (`\\n`, `\\r\\n` or
    `\\r` ends one): a call spelt with one of them is in a statement that spans one of these lines. None where
    the source is not ASCII: the parser normalises identifiers (`ｍake_block_ptr`), so a spelling can hide."""
    if not source.isascii():
        return None
    starts = [m.end() for m in _NEWLINE.finditer(source)]  # where lines 2, 3, ... start
    found = sorted({m.start() for word in words for m in re.finditer(re.escape(word), source)})
    return sorted({bisect.bisect_right(starts, position) + 1 for position in found})

"""What the stdlib ast leaves out of the source text that ast_tree.py rebuilds libcst nodes from: the literals of
an implicit concatenation (`"a" "b"`, the ast has one string), and whether parentheses enclose a whole
expression (the ast has none)."""

from __future__ import annotations

import re

_COMMENT = re.compile(r"#[^\r\n]*")


def string_tokens(text: str) -> list[str]:
    """The literals of an implicit concatenation (`"a" "b"`, across lines, comments between them)."""
    tokens, i = [], 0
    while i < len(text):
        comment = _COMMENT.match(text, i)
        if comment is not None:
            i = comment.end()
            continue
        if text[i] in " \t\r\n\\\f":
            i += 1
            continue
        start = i
        while text[i] not in "'\"":
            i += 1
        quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else text[i]
        i += len(quote)
        while not text.startswith(quote, i):
            i += 2 if text[i] == "\\" else 1
        i += len(quote)
        tokens.append(text[start:i])
    return tokens


def parenthesized(text: str) -> bool:
    """Whether the whole of `text` is inside one pair of parentheses: `(a, b)`, not `(a), b`."""
    depth = 0
    for i, c in enumerate(text):
        depth += (c in "([{") - (c in ")]}")
        if depth == 0:
            return i == len(text) - 1
    return False

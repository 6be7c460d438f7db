"""The line length emitted code keeps to: the configured one, or, where nothing configures one, the width
the file's own code is written at when that is wider (a file written at 130 columns is not wrapped at 88:
its longest line of code says its author keeps no shorter limit, and no emitted line is longer)."""

from __future__ import annotations

import io
import tokenize
from functools import lru_cache

from triton_migrate.policy import MAX_LINE_LENGTH, Layout

_CODE = frozenset({tokenize.NAME, tokenize.OP, tokenize.NUMBER})


def line_length(layout: Layout, source: str) -> int:
    if not layout.from_code:
        return layout.line_length
    return max(layout.line_length, code_width(source))


@lru_cache(maxsize=8)  # asked once a function of the module
def code_width(source: str) -> int:
    """The length of the longest line that holds code (a comment or a string alone on its line does not
    count: prose, not layout; nor a line longer than any line length a tool accepts, a blob of data);
    0 where the source does not tokenize."""
    lines = source.splitlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return 0
    numbers = {token.start[0] for token in tokens if token.type in _CODE}
    widths = (len(lines[number - 1]) for number in numbers if number <= len(lines))
    return max((width for width in widths if width <= MAX_LINE_LENGTH), default=0)

"""Line and column of the nodes a diagnostic points at.

libcst's PositionProvider generates the code of the whole module again to find positions: on kernel-heavy
files that was the largest single cost of a check. The stdlib ast that the gate parses anyway knows where
every block-pointer site call starts, and the libcst scan meets the same calls in the same (source) order.
Other nodes (a refusal that points at a name or a loop) fall back to the provider, computed once per file
and only when first needed.
"""

from __future__ import annotations

import ast
import re

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what Python's tokenizer (and libcst) count as a line break


def site_starts(calls: list[ast.Call], source: str) -> list[tuple[int, int]]:
    """(line, 0-based column in characters) of each call, in libcst's pre-order: by start, outer call first."""
    ordered = sorted(calls, key=lambda c: (c.lineno, c.col_offset, -c.end_lineno, -c.end_col_offset))
    if source.isascii():
        return [(c.lineno, c.col_offset) for c in ordered]
    lines = _LINE_BREAK.split(source)  # ast columns count UTF-8 bytes, libcst's count characters
    return [(c.lineno, len(lines[c.lineno - 1].encode()[:c.col_offset].decode())) for c in ordered]


class Positions:
    def __init__(self, wrapper: MetadataWrapper, site_calls: list[cst.Call],
                 starts: list[tuple[int, int]] | None) -> None:
        self._wrapper = wrapper
        self._known = dict(zip(map(id, site_calls), starts)) if starts and len(starts) == len(site_calls) else {}
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

"""Facts stated in the source (rules/ttd010_stated_facts.py): `# migrate: assume[aligned, contiguous]` at the
end of a line. On a kernel's `def` line it covers every tensor argument of the kernel, on a line of its
parameters the parameters of that line, on the line where a `tl.make_block_ptr` call starts that block
pointer. What the configuration states (policy.Statement) is added by the analysis."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Callable

from triton_migrate.policy import FACTS
from triton_migrate.rules import ttd010_stated_facts

_ASSUME = re.compile(r"#\s*migrate:\s*assume\[(?P<facts>[^\]]*)\]")


class BadStatement(ValueError):
    """A `# migrate: assume[...]` that names no fact this tool knows; `line` says where."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def by_line(source: str) -> dict[int, dict[str, str]]:
    """Line -> the facts stated at its end (fact -> where), from real comments only (tokenize: a `#` in a
    string is none)."""
    if "assume[" not in source:
        return {}
    found: dict[int, dict[str, str]] = {}
    for line, comment in _comments(source):
        match = _ASSUME.search(comment)
        if match is None:
            continue
        facts = [fact.strip() for fact in match["facts"].split(",") if fact.strip()]
        unknown = [fact for fact in facts if fact not in FACTS]
        if unknown or not facts:
            raise BadStatement(ttd010_stated_facts.unknown_facts(line, unknown, FACTS), line)
        found[line] = {fact: ttd010_stated_facts.stated_on_line(line) for fact in facts}
    return found


def _comments(source: str) -> list[tuple[int, str]]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    try:
        return [(token.start[0], token.string) for token in tokens if token.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):  # the parser accepted it: what tokenize reads of it is all
        return []


@dataclass
class Inline:
    """What one function's comments state: for the whole kernel, per parameter, and on the line where a call
    starts (`line_of(call)`: that line)."""

    kernel: dict[str, str] = field(default_factory=dict)
    arguments: dict[str, dict[str, str]] = field(default_factory=dict)
    lines: dict[int, dict[str, str]] = field(default_factory=dict)
    line_of: Callable[[object], int] = lambda node: 0

    @classmethod
    def of(cls, function, lines: dict[int, dict[str, str]], line_of: Callable[[object], int]) -> Inline:
        if not lines:
            return cls()
        first = line_of(function.name)
        arguments = {}
        for param in [*function.params.params, *function.params.kwonly_params]:
            line = line_of(param)
            if line != first and line in lines:
                arguments[param.name.value] = lines[line]
        return cls(lines.get(first, {}), arguments, lines, line_of)

    def at(self, call) -> dict[str, str]:
        """What the line where `call` starts states."""
        return self.lines.get(self.line_of(call), {}) if self.lines else {}

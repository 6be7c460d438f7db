"""What the engine tells its callers about one source file."""

from __future__ import annotations

import re
from dataclasses import dataclass

# A message that points at another line (the use that decided a refusal) ends with this note; the front
# end finds it again to move the line when it reports a written file.
SEE_LINE = re.compile(r" \(line (\d+)\)$")


def see_line(line: int) -> str:
    return f" (line {line})"


@dataclass(frozen=True)
class Diagnostic:
    line: int  # 1-based
    column: int  # 1-based, like ruff
    code: str  # e.g. "TTD001" (migrated) or "TTD101" (refused)
    message: str
    fixed: bool  # True: the rewrite migrates this site; False: the site is left as it is
    # What was done: "descriptor", "pointer" (masked-pointer fallback), or "untouched" (refused).
    decision: str = ""
    # Run-time conditions the migrated code relies on, one sentence each naming the argument, e.g.
    # "`stride_om` × itemsize must be a multiple of 16 bytes".
    requirements: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileOutcome:
    diagnostics: tuple[Diagnostic, ...]
    new_source: str | None  # None when nothing would change
    # The functions new_source imports from a launch-support module (its package's, engine.migrate_sources'
    # `launch`, or the one beside it), which must then be written with it.
    launch_functions: tuple[str, ...] = ()
    # Helpers of the module's top level that take block pointers nothing in the program passes them, kept:
    # the front end removes them (engine.migrate_sources' `removable`) if nothing in the project names them.
    uncalled_helpers: tuple[str, ...] = ()
    # Per function (its name), what its descriptors rely on that a launch's arguments decide (the analysis's
    # launch_facts): `migrate verify` checks them at every launch of the migrated kernel.
    stated_facts: tuple[tuple[str, tuple[dict, ...]], ...] = ()
    # The functions (their names) with a descriptor load whose tile reaches a sum or a scan (TTD001's note): where
    # the migrated kernel may round otherwise than the original, which `migrate verify` expects.
    summing: tuple[str, ...] = ()

    @property
    def refused(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if not d.fixed)

"""TTD108 unsupported-use: block pointer used in a way the rewrite does not model (selects TTD114 to TTD118).

What it does: nothing of its own any more: it names the family of reasons a block pointer is left as it is because
the rewrite does not model its use, or because Triton rejects a call: selecting or ignoring TTD108 (`select`,
`ignore`, `per-file-ignores`, `--select`, `--ignore`, `# noqa: TTD108`, `# migrate: ignore[TTD108]`) selects or
ignores them all, as it did when they were one code.

Why: one code for about thirty different messages left a user no way to ignore one of its cases; each is now a
code of its own: TTD114 a call Triton rejects, TTD115 an access given `mask=` or `other=`, TTD116 a
`boundary_check` the source does not spell out, TTD117 a `padding_option` chosen at compile time, TTD118 a use
the rewrite cannot follow.

Example:

    [tool.triton-migrate]
    ignore = ["TTD108"]                 # TTD114 to TTD118, as before they were split

Fix safety: as the code it selects.

Fixtures: none of its own (see TTD114 to TTD118).
"""
from __future__ import annotations

CODE = "TTD108"
NAME = "unsupported-use"
SUMMARY = "block pointer used in a way the rewrite does not model (selects TTD114 to TTD118)"

"""TTD011 dead-helper: a helper that nothing calls, whose block-pointer parameters nothing fills, is removed.

What it matches: a `@triton.jit` function of a module's top level that uses a parameter as a block pointer
(`tl.load(block_ptr, boundary_check=(0, 1))`, `tl.advance(block_ptr, ...)`) and that nothing in the project
names: no call, import, assignment, `__all__` entry, comment or string mentions it in any Python file of
the run or of its project (the nearest folder up with `.git`, `pyproject.toml`, `setup.py` or
`setup.cfg`; the file's own folder if there is none), and its own module names it only where it defines it.

Why: only a caller says what rank and parts such a parameter receives (TTD008), and on Triton 3.9 no code
can create the block pointer it expects, so the function can never run again as written. It is dead code,
which a maintainer deletes: Intel did, migrating its batched flash-attention benchmark (`load_if`, which
nothing called, went with the block pointers). Keeping it would leave sites that fail on upgrade and
that no migration of the function alone could make right.

The rewrite: the function goes, with its decorators and the comments above it; every site it held is
reported with this code (decision `removed`). A function that anything mentions is kept and its sites are
reported (TTD201), with the reason. Reading code from standard input, the project is unknown: nothing is
removed.

Fixture: dead_helper.
"""

CODE = "TTD011"
NAME = "dead-helper"
SUMMARY = "helper that nothing calls or names, whose block-pointer parameters nothing fills → removed"
WHY = "a helper that nothing in the project calls, imports or names: no call fills its block-pointer parameters"

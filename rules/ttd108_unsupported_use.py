"""TTD108 unsupported-use: block pointer used in a way the rewrite does not model.

Why: everything the codemod rewrites it must model exactly. A block pointer compared, aliased
(`q = p`), stored in a tuple, used with `mask=`/`other=`, created outside a plain `name = tl.make_block_ptr(...)`,
or given non-literal `boundary_check`/`padding_option` is left untouched and reported.

Fixtures: property test.
"""

CODE = "TTD108"
NAME = "unsupported-use"
SUMMARY = "block pointer used in a way the rewrite does not model"

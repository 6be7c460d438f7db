"""TTD005 hoist-descriptor: a block pointer re-created in a loop gets one descriptor before the loop.

What it matches: `p = tl.make_block_ptr(...)` written directly in a `for`/`while` body (FLA style:
re-created every iteration with offsets that depend on the loop variable), where base, shape, strides and
block shape do not change inside the loop.

The rewrite: the descriptor is created once before the outermost such loop; inside the loop only the
offsets remain. On NVIDIA sm_90+ every device-side descriptor creation writes a 128-byte tensormap and
fences, so per-iteration creation costs real time. Creations under an `if` are not hoisted (their
base may be `None` on the other path), nor are creations whose arguments call anything but pure
`triton.language` functions, nor one whose name another creation gives a handle of another type (Triton
would carry the hoisted one through the other's loop, with two types, and refuse to compile).

Fixtures: recreate_in_loop, recreate_in_loop_variant_base (not hoisted), handle_name_reused (not hoisted: the
name gets a handle of another type in a later loop, at whose head a hoisted one would be live).
"""

CODE = "TTD005"
NAME = "hoist-descriptor"
SUMMARY = "loop-invariant descriptor creation moved before the loop"

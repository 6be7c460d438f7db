"""TTD201 crosses-function: block pointer crosses a function boundary.

Why: a block pointer passed to or returned from another `@triton.jit` function, or received as a
parameter, needs the callee and every call site rewritten together (descriptor plus offsets), which this
rule set does not do yet; the site is reported instead.

A call of a name that nothing in the module binds (no import, definition, assignment or parameter, no star
import, no builtin: ROCm/aotriton's old_fwd_kernel.py calls a helper a refactoring removed) fails to compile
there on every Triton version, before any argument is evaluated: the block pointers passed to it become the
masked pointers their names hold, the call passes them on and fails as it did (reported with this code,
decision `compile-error`).

Fixtures: helper_call_refused, call_to_nothing.
"""

CODE = "TTD201"
NAME = "crosses-function"
SUMMARY = "block pointer crosses a function boundary"

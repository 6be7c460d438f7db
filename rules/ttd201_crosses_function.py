"""TTD201 crosses-function: block pointer crosses a function boundary.

Why: a block pointer passed to or returned from another `@triton.jit` function, or received as a
parameter, needs the callee and every call site rewritten together (descriptor plus offsets), which this
rule set does not do yet; the site is reported instead.

Fixtures: helper_call_refused.
"""

CODE = "TTD201"
NAME = "crosses-function"
SUMMARY = "block pointer crosses a function boundary"

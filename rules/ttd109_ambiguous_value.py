"""TTD109 ambiguous-value: name holds a block pointer on some paths and something else on others.

Why: the rewrite tracks block pointers by value. When a name holds a block pointer on one path and a
raw pointer (or a different block pointer that cannot share a descriptor) on another, a later use cannot
be rewritten one way.

Fixtures: name_reuse (accepted: the reuse comes after the last block-pointer use).
"""

CODE = "TTD109"
NAME = "ambiguous-value"
SUMMARY = "name holds a block pointer on some paths and something else on others"

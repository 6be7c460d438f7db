"""TTD105 rank: rank not between 1 and 5, or not a literal tuple.

Why: descriptors have ranks 1–5 (D18). A block pointer whose shape, strides, offsets or block shape are
not literal tuples of one length has a rank the codemod cannot see.

Fixtures: rank6_refused.
"""

CODE = "TTD105"
NAME = "rank"
SUMMARY = "rank not between 1 and 5, or not a literal tuple"

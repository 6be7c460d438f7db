"""TTD101 unchecked-dimension: a `boundary_check` leaves out a dimension that may run past the shape.

Why: a block pointer only masks the listed dimensions; an unlisted one is read or written past `shape`,
into whatever memory lies there (the next row, physical padding). A descriptor always checks every
dimension, so the two differ exactly when an unchecked dimension leaves the tensor (1,300 of
64×96 elements differed in the interpreter).

Accepted without a check: a dimension whose offset is the literal 0 on every path and whose block size is
the very same expression as its extent (`shape=(T, HEAD_DIM)`, `block_shape=(BT, HEAD_DIM)`), or both are
literals with block ≤ extent. Anything else is refused; a guard such as `EVEN_M` is a promise the caller
makes, not something the codemod can prove.

A launched kernel whose author states `in-bounds` for the tensor (TTD010), with its other facts, gets a
descriptor here all the same: the tiles lie where its grid puts them.

Fixtures: boundary_subset_provable (accepted), boundary_subset_refused.
"""

from __future__ import annotations

import libcst as cst

from triton_migrate.analysis.calls import int_value
from triton_migrate.analysis.values import canonical_code

CODE = "TTD101"
NAME = "unchecked-dimension"
SUMMARY = "`boundary_check` omits a dimension that is not provably in bounds"


def in_bounds(shape: cst.BaseExpression, block: cst.BaseExpression, offset: cst.BaseExpression | None) -> bool:
    if offset is None or int_value(offset) != 0:
        return False
    shape_value, block_value = int_value(shape), int_value(block)
    if shape_value is not None and block_value is not None:
        return block_value <= shape_value
    return canonical_code(shape) == canonical_code(block)

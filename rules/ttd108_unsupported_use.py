"""TTD108 unsupported-use: block pointer used in a way the rewrite does not model.

Why: everything the codemod rewrites it must model exactly. A block pointer compared, stored in a tuple,
created outside a plain `name = tl.make_block_ptr(...)` (or `name = tl.make_block_ptr(...) if FLAG else
None`, which migrates as `if FLAG:` statements would), or given a `boundary_check` that is not a literal (a
tuple with as many entries as the block pointer has dimensions is read as checking all of them, whatever their
spelling: Triton compiles nothing else), or a `padding_option` that is neither a literal nor a name, is left
untouched and reported. A `padding_option` that
is a name (a constexpr) keeps the access off descriptors (TTD006 says why).

A load or store with a real `mask=` or `other=` on a block pointer is another matter: Triton rejects it at
compile time in every version, so the access never compiled, and no migration could make it mean anything. A
`tl.static_assert(False, "...")` goes on the line before it, which fails there just the same (reported with this
code, decision `compile-error`), and the access migrates to masked pointers with its own mask kept (and'ed with
the bounds it checks), so that what computes the mask is still read: no block-pointer API is left, and the
kernel fails to compile as it always did. On a line of several statements, where the assertion cannot go
before it, it stays as it is and is reported. `mask=None` and `other=None` are no mask (Triton 3.7 and earlier
took them so) and migrate as if absent.

A call that Triton itself rejects is reported with this code and what is wrong, and left as it is (it never
compiled, and no migration could give it a meaning): a `tl.make_block_ptr` with too many positional arguments,
an unknown keyword, an argument missing or given twice, no dimension, an `order` that is not a permutation of
the dimensions (`order=(0, 0)`), a block size that is not a positive power of two, tuples whose lengths differ
(TTD105); a `tl.load` or `tl.store` called so on a block pointer. The function that holds such a call never
compiled: it stays as it is, whole, every block pointer of it reported with this code. A `boundary_check` naming a dimension the
block pointer lacks, or one twice, becomes `tl.static_assert(False, ...)` (TTD003, decision `compile-error`),
which Triton rejects there as it rejected the access: such an access can sit in a constexpr branch that the
callers of a helper never take.

Fixtures: mask_none, scalar_and_conditional_parts (accepted), store_mask_never_compiled; property test;
tests/test_invalid_programs.py (a generator of calls Triton rejects: each refused, never an internal error).
"""

CODE = "TTD108"
NAME = "unsupported-use"
SUMMARY = "block pointer used in a way the rewrite does not model"


def rejected(what: str) -> str:
    """The message for a call Triton rejects: what is wrong with it."""
    return f"Triton rejects this call ({what}): it never compiled, and it is left as it is"


def in_rejected(function: str, why: str) -> str:
    """The message for a block pointer of a function that holds a call Triton rejects (`why`: what is wrong)."""
    return f"`{function}` holds a call Triton rejects ({why}), so it never compiled: it stays as it is, whole"

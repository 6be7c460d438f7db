"""TTD109 ambiguous-value: name holds a block pointer on some paths and something else on others.

What it does: reports a name read after a join that holds a block pointer on one path and something else (or a
block pointer of another rank) on another.

Why: the rewrite tracks block pointers by value. When a name read after a join holds a block pointer on one
path and a raw pointer (or a block pointer of another rank) on another, that use cannot be rewritten one way.
Only a read counts: a name reused for another block pointer once the old one is dead (`p` of rank 2 in one
loop, of rank 1 in the next) is migrated per live range. Block pointers of one rank merged from several paths
are migrated: with different bases, shapes, strides or block shapes (an `if HEAD_FIRST:` choosing
`(BT, BK)` or `(BK, BT)`), each branch assigns its parts; with different `order`s, to masked pointers, since
one descriptor has one contiguous dimension (under `--target descriptor` they are left untouched with this
code). A name that is `None` or `0` on the paths that make no block pointer (`else: p = None` under a
constexpr flag) is no ambiguity: those paths never use it as one (Triton would refuse to compile them), so it
is migrated and passed on as `None` (TTD008). What to do: give each rank its own name, or keep the raw pointer
in another name.

Example:

    p = tl.make_block_ptr(x, ...) if FLAG else x_ptr   # then tl.load(p)
    # left untouched, reported

Fix safety: no fix: the site is left untouched, with this code as the reason.

Fixtures: ambiguous_value_refused; name_reuse, name_reuse_rank, order_per_branch, constexpr_branch_shapes,
helper_none_arguments (accepted).
"""
CODE = "TTD109"
NAME = "ambiguous-value"
SUMMARY = "name holds a block pointer on some paths and something else on others"
MERGED_ORDERS = "the block pointers merged here have different contiguous dimensions (`order`); a descriptor has one"


def held(name: str, why: str) -> str:
    """A name read where it holds no one block pointer (`why`: what it holds instead)."""
    return f"`{name}` {why}"


def none_on_some_paths(name: str) -> str:
    return f"`{name}` is `None` on some paths"


DESCRIPTOR_RECREATED = "its descriptor name is re-created while this block pointer is still in use"
# Why a name holds no one block pointer (`held`'s `why`)
MIXED = "may hold a block pointer or another value here"
RANKS_DIFFER = "holds block pointers of different ranks on different paths (give each its own name)"
DESCRIPTORS_DIFFER = "holds block pointers with different descriptors on different paths"

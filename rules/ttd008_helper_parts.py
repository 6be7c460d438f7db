"""TTD008 block-pointer-as-parts: a block pointer passed to a `@triton.jit` helper travels as its parts.

What it does: it matches `helper(..., p, ...)` where `p` is a block pointer and `helper` is a `@triton.jit`
function of the files migrated together (same module, or imported from another one; `noinline=True`
too), at every one of its call sites.

The rewrite: the argument becomes base, shape, strides, offsets and block shape (`helper(x_ptr, M, N, stride_xm,
pid_m * BM, 0, BM, BN)`); the helper's parameter `p` becomes `p_base, p_shape0, ..., p_stride0, ..., p_start0,
..., p_block0: tl.constexpr, ...`, and the helper re-creates the block pointer from them (copying the offsets it
moves into `p_off0, ...`: Triton cannot carry a parameter through a loop when a caller passed a literal), which
the other rules then migrate in the helper itself (its descriptor is created where it is used). Parts that are the
same literal at every call site (the unit stride `1`, a literal block width) stay literals in the helper and are
not passed. A helper that returns `p` returns its offsets; the caller's `acc, p = helper(acc, p)` becomes `acc,
p_off0, p_off1 = helper(...)`. Only integers and the base pointer cross the call, so a `noinline=True` helper
compiles on its own (no tile or descriptor argument). An `order` that is not a literal (the fused-attention
tutorial's `v_order: tl.constexpr = ...`) does not stop it: masked pointers never need it, and the helper finds
the unit stride as the caller did, from a literal 1 only. A block pointer merged from several creations (`if
SEQUENCE_PARALLEL:` / `else:` creating with two shapes) is passed too: a part the creations spell differently is
assigned on each path (`p_shape0 = ...`), as for masked pointers, and passed; where another path sets the name to
`None` (`else: p = None` under a constexpr flag; `p = 0` alike), that path sets each part variable the call reads
to `None` instead, its base included, so the helper receives no block pointer where it did. A call that passes
`None` (or `0`) itself, or a name that is `None` on every path, passes `None` in every part. The helper's `p is
None` / `p is not None` then asks its base, which is `None` exactly where `p` was (refused where `p` may be `0`:
its base is `None` there), and a helper that makes a descriptor or compat tile makes it only where its base is not
`None`. Call sites may pass block pointers of different `order`s (applied-ai's `load_fn` loads a row-major Q and a
transposed K): `order` carries no semantics, so the helper takes them with none, and where they disagree on the
unit-stride dimension its accesses are masked pointers. A `boundary_check` or `padding_option` that arrives as a
parameter every call fills with the same literal (`load_block(x_block, boundary_check=(0, 1), ...)`) is read in
the helper as that literal; a `boundary_check` that calls fill with several (literals, names their function only
ever assigns literals, such as lmdeploy's `k_bound0: tl.constexpr = (1,)` on a constexpr branch, or a helper's
parameter followed to its own calls) becomes one masked access per value, chosen on the parameter (`... if
boundary_check == (1, ) else ...`), which Triton's compiler resolves on a constexpr. A block size the helper
spells with one of its own parameters must be a `tl.constexpr` one.

Call sites that pass block pointers of different ranks (a load helper given a matrix and a vector) get a
copy of the helper each group: Triton compiles the helper once per signature anyway, and migrated the two
take different parts. The calls that pass what the first call passes keep the helper; each other group calls
a copy defined right after it, named after the ranks it takes (`load_checked_1d`), whose sites are reported
where the helper has them ("in `load_checked_1d`: ..."), with a line on the helper saying it was copied.
Copies follow the calls further down (a copy's own helper may be copied in turn).

Refusals (TTD201, with the helper's reason): a helper called somewhere with another value in that
parameter, with block pointers of different ranks from another module (a copy there would need imports),
passed as a value (a function pointer or
`constexpr` callable), listed in `__all__` (public API: callers outside the migrated files would
break), called with `*args`/`**kwargs`, or whose own use of the block pointer cannot be migrated. Every
caller's block pointer is then left untouched, so no call site is ever broken.

Why: a block pointer cannot cross a function boundary on Triton 3.9 (no type to pass), and a descriptor passed
into a `noinline` helper does not compile; integers and the base pointer can.

Example:

    acc = step(acc, p)              # p a block pointer; def step(acc, p): ...
    # becomes
    acc = step(acc, x_ptr, M, N, stride_m, p_off0, p_off1, BM, BN)

Fix safety: safe: the helper re-creates the same block pointer from its parts and is migrated by the other rules;
where any caller or the helper cannot be, every one is left as it was (TTD201).

Fixtures: helper_ranks_differ, helper_check_names, helper_same_module, helper_noinline, helper_returns_pointer,
helper_chain, helper_mixed_callers, helper_staticmethod (an autotuned kernel that is a static method),
helper_order_name, helper_order_name_none_first, helper_refused_keeps_caller, helper_merged_creations,
helper_none_parts, helper_copy_prefetch, helper_none_arguments, helper_orders_differ, helper_check_parameter;
tests/data/helper_package (helpers in another module, tests/test_helpers_package.py)."""
from __future__ import annotations

from ._migrated import Migrated, words

CODE = "TTD008"
NAME = "block-pointer-as-parts"
SUMMARY = "block pointer passed to a `@triton.jit` helper → its base, shape, strides, offsets and block shape"


PASSED = "passed to helpers as base, shape, strides, offsets and block shape"  # the note beside another form


def message(what: str, notes: str) -> str:
    return f"{what} → passed to helpers as its parts{notes}"


@words(order=0)
def migrated(site: Migrated) -> str | None:
    """A migrated site is this rule's where every access passes it to helpers as its parts."""
    return message(site.what, site.notes) if site.parts_only else None


def copied(helper: str, copies: str) -> str:
    """The note on a helper given block pointers of different ranks (`copies`: which copy takes which calls)."""
    return f"`{helper}` is given block pointers of different ranks: copied once per signature, {copies}"

"""TTD004 dtype-query: `p.dtype.element_ty` on a block pointer becomes `p_desc.dtype`.

What it matches: `p.dtype.element_ty` and `p.dtype.element_ty.element_ty` where `p` is a block pointer
(typically `tl.store(p, acc.to(p.dtype.element_ty))`), and the same spelt with `type` (AMD's attention
kernels: `p.to(V_block_ptr.type.element_ty)`): a block pointer's type is its dtype. On a block pointer the
first is the block type and the second its element type; `.to()` casts to the element type in both cases,
which is what a descriptor's `dtype` is.

Fixtures: dtype_query, dtype_only_pointer.
"""

CODE = "TTD004"
NAME = "dtype-query"
SUMMARY = "`p.dtype.element_ty` → `p_desc.dtype`"

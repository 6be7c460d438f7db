"""`p.type.element_ty` on a block pointer (AMD's attention kernels, written for Triton 3.7 and earlier) is the
same query as `p.dtype.element_ty` (TTD003): on those versions a block pointer's type is its dtype, a pointer to
its block. Triton 3.8's block-pointer emulation has no `.type.element_ty` (the original fails there), so no
fixture can run it before the migration; the `.dtype` spelling, which the fixtures run (dtype_query), must
migrate to the same code."""

from __future__ import annotations

import pytest

from triton_migrate.engine import migrate_source

SOURCE = """import triton
import triton.language as tl


@triton.jit
def inner(acc, p, V_block_ptr, N, BLOCK_N: tl.constexpr):
    for start_n in range(0, N, BLOCK_N):
        v = tl.load(V_block_ptr, boundary_check=(0,), padding_option="zero")
        acc += tl.dot(p.to(V_block_ptr.{query}), v)
        V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
    return acc


@triton.jit
def kernel(V, O, N, stride_vn, BLOCK_N: tl.constexpr, D: tl.constexpr):
    V_block_ptr = tl.make_block_ptr(V, (N, D), (stride_vn, 1), (0, 0), (BLOCK_N, D), (1, 0))
    acc = inner(tl.zeros([D, D], dtype=tl.float32), tl.zeros([D, BLOCK_N], dtype=tl.float32), V_block_ptr, N,
                BLOCK_N)
    O_block_ptr = tl.make_block_ptr(O, (D, D), (D, 1), (0, 0), (D, D), (1, 0))
    tl.store(O_block_ptr, acc.to(O_block_ptr.{query}))
"""


@pytest.mark.parametrize("query", ["type.element_ty", "type.element_ty.element_ty"])
def test_type_query_migrates_as_the_dtype_query(query):
    spelt = migrate_source(SOURCE.format(query=query))
    reference = migrate_source(SOURCE.format(query=query.replace("type", "dtype", 1)))

    assert not spelt.refused
    assert spelt.new_source == reference.new_source
    assert "V_base.dtype.element_ty" in spelt.new_source

"""`mask=`/`other=` on a block-pointer access: `None` is no mask (Triton 3.7 and earlier took it so; the
fixture mask_none runs it), anything else Triton rejects at compile time, in every version, so the access
never compiled and stays as it is, with that reason."""

from __future__ import annotations

import pytest

from triton_migrate.engine import migrate_source

SOURCE = """import triton
import triton.language as tl


@triton.jit
def k(x_ptr, N, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    v = tl.{access}
"""


@pytest.mark.parametrize("access, keyword", [
    ("load(p, boundary_check=(0,), mask=tl.arange(0, BN) < N)", "mask"),
    ("load(p, other=0.0)", "other"),
    ("store(p, tl.zeros([BN], dtype=tl.float32), boundary_check=(0,), mask=tl.arange(0, BN) < N)", "mask"),
])
def test_a_real_mask_on_a_block_pointer_is_refused_as_never_compiled(access, keyword):
    outcome = migrate_source(SOURCE.format(access=access))

    assert outcome.new_source is None
    [refusal] = outcome.refused
    assert refusal.code == "TTD108"
    assert f"with `{keyword}=` on a block pointer, which Triton rejects at compile time" in refusal.message

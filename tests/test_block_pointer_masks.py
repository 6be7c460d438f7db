"""`mask=`/`other=` on a block-pointer access: `None` is no mask (Triton 3.7 and earlier took it so; the
fixture mask_none runs it), anything else Triton rejects at compile time, in every version: the access never
compiled. A `tl.static_assert(False, ...)` before it keeps it so, and the access migrates to masked pointers
with its mask kept, so that no block-pointer API is left and what computes the mask is still read (MInference's
dense attention stores its output with `mask=`)."""

from __future__ import annotations

import differential as D
import pytest
import torch

from triton_migrate.engine import migrate_source

SOURCE = """import triton
import triton.language as tl


@triton.jit
def k(x_ptr, N, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    q = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    tl.store(q, tl.load(q, boundary_check=(0,)) + 1, boundary_check=(0,))
    v = tl.{access}
"""


@pytest.mark.parametrize("access, keyword", [
    ("load(p, boundary_check=(0,), mask=tl.arange(0, BN) < N)", "mask"),
    ("load(p, other=0.0)", "other"),
    ("store(p, tl.zeros([BN], dtype=tl.float32), boundary_check=(0,), mask=tl.arange(0, BN) < N)", "mask"),
])
def test_a_real_mask_on_a_block_pointer_stays_the_compile_error_it_was(access, keyword, tmp_path):
    source = SOURCE.format(access=access)
    outcome = migrate_source(source)

    assert not outcome.refused
    [never] = [d for d in outcome.diagnostics if d.decision == "compile-error"]
    assert never.code == "TTD115" and never.line == 10
    assert f"with `{keyword}=` on a block pointer (every Triton version): Triton rejects it" in never.message
    assert "make_block_ptr" not in outcome.new_source and "boundary_check" not in outcome.new_source
    assert "tl.static_assert(" in outcome.new_source
    assert f'with `{keyword}=` on a block pointer: Triton rejects it"' in outcome.new_source
    if keyword == "mask":  # kept on the access, so that what computes it is still read (no F841)
        assert "tl.arange(0, BN) < N)" in outcome.new_source.split("static_assert")[1]
    for name, text in (("before", source), ("after", outcome.new_source)):  # neither ever ran
        (tmp_path / f"{name}.py").write_text(text)
        module = D.import_path(tmp_path / f"{name}.py", name)
        with pytest.raises(BaseException, match=f"`{keyword}`|{keyword}="):
            module.k[(1,)](torch.zeros(16), 10, BN=16)

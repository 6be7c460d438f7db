"""Block pointers passed to a function that nothing defines (ROCm/aotriton's old_fwd_kernel.py calls a helper a
refactoring removed): the kernel fails to compile at that call on every Triton version, before any argument is
evaluated. They migrate to masked pointers held by their names, which the call passes on, so that the kernel
fails as it did; a name bound anywhere in the module, or a star import, keeps the refusal."""

from __future__ import annotations

import differential as D
import pytest
import torch

from triton_migrate.engine import migrate_source

FIXTURE = D.FIXTURES / "call_to_nothing"


def test_the_kernel_that_calls_nothing_fails_at_that_call_before_and_after(tmp_path):
    outcome = migrate_source((FIXTURE / "before.py").read_text())
    assert not outcome.refused and "make_block_ptr" not in outcome.new_source
    [dead] = [d for d in outcome.diagnostics if d.decision == "compile-error"]
    assert dead.line == 30 and "`attn_fwd_common_v1` is defined nowhere" in dead.message
    for which in ("before.py", "after.py"):
        module = D.import_path(FIXTURE / which, "nothing")
        q = torch.zeros(32, 16)
        with pytest.raises(BaseException, match="attn_fwd_common_v1"):
            module.old_attn_fwd[(2,)](q, torch.empty_like(q), 32, 16, 16, 0.5, BLOCK_M=16, BLOCK_D=16)


SOURCE = """import triton
import triton.language as tl
{binding}


@triton.jit
def k(x_ptr, N, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    common(p, BN)
"""


@pytest.mark.parametrize("binding", ["from helpers import common", "from helpers import *", "common = None",
                                     "def common(p, n):\n    return p"])
def test_a_callee_bound_anywhere_may_be_a_function_that_takes_the_block_pointer(binding):
    outcome = migrate_source(SOURCE.format(binding=binding))
    assert outcome.new_source is None
    [refused] = outcome.refused
    assert refused.code == "TTD201" and "passed to another function" in refused.message

"""Issue 35: why a kernel has no launch to check (TTD112) is said as the analysis knows it. A `@triton.jit` method
`backward` of a class (kakaobrain/trident's kernels, launched by the host from an autograd Function's backward)
whose body calls another class's `backward` is taken for a helper by that call's name: the message names the call,
and does not claim that other `@triton.jit` functions call it."""

from __future__ import annotations

from triton_migrate import engine

METHOD_KERNEL = '''import triton
import triton.language as tl

from trident import language


class Gelu:
    @staticmethod
    @triton.jit
    def backward(g_ptr, x_ptr, n, BLOCK: tl.constexpr):
        off = tl.program_id(0) * BLOCK
        g = tl.make_block_ptr(g_ptr, (n,), (1,), (off,), (BLOCK,), (0,))
        x = tl.make_block_ptr(x_ptr, (n,), (1,), (off,), (BLOCK,), (0,))
        tl.store(g, language.Gelu.backward(tl.load(x, boundary_check=(0,))), boundary_check=(0,))
'''


def test_a_method_kernel_that_shares_a_called_name_is_told_so():
    messages = [d.message for d in engine.migrate_source(METHOD_KERNEL).diagnostics if "TTD112" in d.message]
    assert messages, engine.migrate_source(METHOD_KERNEL).diagnostics
    for message in messages:
        assert "`language.Gelu.backward(...)` on line 14 has this function's name, so it is taken for a helper of " \
               "other `@triton.jit` functions" in message
        assert "it is called by other" not in message

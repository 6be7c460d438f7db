"""A 1-D element-wise kernel (`out = alpha * x + y`), as in the Triton tutorial `01-vector-add.py`, written with
rank-1 block pointers."""

import triton
import triton.language as tl


@triton.jit
def axpy_kernel(x, y, out, alpha, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    p_x = tl.make_block_ptr(x, (n_elements,), (1,), (pid * BLOCK_SIZE,), (BLOCK_SIZE,), (0,))
    p_y = tl.make_block_ptr(y, (n_elements,), (1,), (pid * BLOCK_SIZE,), (BLOCK_SIZE,), (0,))
    p_out = tl.make_block_ptr(out, (n_elements,), (1,), (pid * BLOCK_SIZE,), (BLOCK_SIZE,), (0,))
    b_x = tl.load(p_x, boundary_check=(0,))
    b_y = tl.load(p_y, boundary_check=(0,))
    tl.store(p_out, (alpha * b_x + b_y).to(p_out.dtype.element_ty), boundary_check=(0,))


def axpy(x, y, out, alpha, BLOCK_SIZE=64):
    n_elements = out.numel()
    axpy_kernel[(triton.cdiv(n_elements, BLOCK_SIZE),)](x, y, out, alpha, n_elements, BLOCK_SIZE=BLOCK_SIZE)
    return out

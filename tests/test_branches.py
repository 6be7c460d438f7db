"""A guarded access too wide for one line becomes an `if`/`else` statement (rewrite/branches.py); consecutive
ones share it. The fixtures that hold guarded kernels (gemm_loop_advance, launch_guard, kt_view_attention)
run bit for bit in the interpreter; these tests pin the layout."""

from __future__ import annotations

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Layout

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
           BLOCK_K: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (pid_m * BLOCK_M, 0), (BLOCK_M, BLOCK_K), (1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, pid_n * BLOCK_N), (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")  # the rows of A
{between}        b = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_bp = tl.advance(a_bp, (0, BLOCK_K))
        b_bp = tl.advance(b_bp, (BLOCK_K, 0))
    tl.store(c_ptr + tl.arange(0, BLOCK_M)[:, None] * N + tl.arange(0, BLOCK_N)[None, :], acc)
'''


def lines(source: str, width: int) -> list[str]:
    return migrate_source(source, layout=Layout(line_length=width)).new_source.splitlines()


def test_consecutive_guarded_loads_share_one_if_else():
    found = lines(KERNEL.format(between=""), 120)
    start = found.index("        if USE_DESCRIPTORS:")
    assert found[start:start + 12] == [
        "        if USE_DESCRIPTORS:",
        "            a = a_desc.load([pid_m * BLOCK_M, off_k])  # the rows of A",
        "            b = b_desc.load([off_k, pid_n * BLOCK_N])",
        "        else:",
        "            a = tl.load(",
        "                a_bp + off_k, mask=(r_m < tl.maximum(M, 0) - pid_m * BLOCK_M)[:, None] & m_k[None, :], "
        "other=0.0",
        "            )",
        "            b = tl.load(",
        "                b_bp + tl.cast(off_k, tl.int64) * stride_bk,",
        "                mask=m_k[:, None] & (r_n < tl.maximum(N, 0) - pid_n * BLOCK_N)[None, :],",
        "                other=0.0,",
        "            )",
    ]


def test_a_comment_between_them_keeps_them_apart():
    found = lines(KERNEL.format(between="        # the columns of B\n"), 120)
    assert found.count("        if USE_DESCRIPTORS:") == 2 and found.count("        else:") == 2
    comment = found.index("        # the columns of B")
    assert found[comment + 1] == "        if USE_DESCRIPTORS:"  # before the second one, as in the source


def test_a_guarded_load_that_fits_stays_one_line():
    found = lines(KERNEL.format(between=""), 240)
    assert "        else:" not in found
    assert any(line.startswith("        a = a_desc.load([pid_m * BLOCK_M, off_k]) if USE_DESCRIPTORS else tl.load(")
               for line in found)


def test_statements_the_rewrite_does_not_touch_keep_their_text_in_a_guarded_kernel():
    """The split rebuilt the whole module at first: every statement looked new to the layout, which then
    laid out the user's own long lines, and one decorator (a comprehension over a tuple target) into code
    that did not parse."""
    long = ("    untouched = M * N + M * N + M * N + M * N + M * N + M * N + M * N + M * N + M * N + M * N + M * N"
            " + M * N  # the user's\n")
    source = KERNEL.format(between="").replace("    acc = tl.zeros(", long + "    acc = tl.zeros(")
    assert long in migrate_source(source, layout=Layout(line_length=88)).new_source

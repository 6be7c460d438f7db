"""The masked-pointer form as a maintainer writes it (issue 27, item 1): a block pointer becomes the pointers
its name holds, one range and one bound per tile axis are shared by the accesses that can read them, a lower
bound only where the offset may be negative, int64 once per axis; each address is the block's corner, a 64-bit
scalar, plus the tile inside the block (issue 49). Every fixture runs this form bit
for bit (test_fixtures.py, `shared_offsets` among them); these tests pin down its shape."""

from __future__ import annotations

import re
from pathlib import Path

import differential as D
import pytest
import torch

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Layout, Policy

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
POINTER = Policy(target="pointer")
WIDE = Layout(line_length=120)

HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def migrated(body: str, policy: Policy = POINTER, layout: Layout = WIDE) -> str:
    return migrate_source(HEADER + body, policy=policy, layout=layout).new_source


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def test_each_axis_has_one_offset_vector_and_one_bound_shared_by_the_accesses():
    text = migrated((FIXTURES / "shared_offsets" / "before.py").read_text().split("@triton.jit\n", 1)[1])
    assert text.count("tl.arange(0, BT)") == 1
    assert lines(text).count("m_t = (i_t * BT + o_t).to(tl.uint64) < tl.maximum(T, 0)") == 1
    assert lines(text).count("o_k = i_k * BK + r_k.to(tl.int64)") == 1 and text.count("tl.arange(0, BK)") == 1
    assert lines(text).count("m_k = r_k < tl.maximum(K, 0) - i_k * BK") == 1
    # the block pointers keep their names; no temporaries per access
    assert "p_q = q + i_h * K + tl.cast(i_t * BT, tl.int64) * (H * K) + (o_t[:, None] * (H * K) + o_k[None, :])" \
        in lines(text)
    assert "p_g = g + i_h + tl.cast(i_t * BT, tl.int64) * H + (o_t * H)" in lines(text)
    assert not re.search(r"_(rows|cols|ptrs|idx)\b", text)
    assert "b_q = tl.load(p_q, mask=m_t[:, None] & m_k[None, :])" in lines(text)


def test_the_row_offsets_move_out_of_the_loop_that_does_not_change_them():
    text = migrated((FIXTURES / "shared_offsets" / "before.py").read_text().split("@triton.jit\n", 1)[1])
    found = lines(text)
    loop = found.index("for i_k in range(tl.cdiv(K, BK)):")
    assert found.index("o_t = tl.arange(0, BT).to(tl.int64)") < loop
    assert found.index("m_t = (i_t * BT + o_t).to(tl.uint64) < tl.maximum(T, 0)") < loop
    assert found.index("r_k = tl.arange(0, BK)") < loop  # the range, the same in every step
    assert loop < found.index("o_k = i_k * BK + r_k.to(tl.int64)")
    assert loop < found.index("m_k = r_k < tl.maximum(K, 0) - i_k * BK")


def test_a_lower_bound_only_where_the_offset_may_be_negative():
    source = '''def k(x, y, n, chunk, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    p = tl.make_block_ptr(x, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))
    v = tl.load(p, boundary_check=(0,))
    start = tl.load(chunk + pid)
    q = tl.make_block_ptr(y, (n,), (1,), (start,), (BLOCK,), (0,))
    tl.store(q, v, boundary_check=(0,))
'''
    text = migrated(source)
    assert "v = tl.load(p, mask=o_block < tl.maximum(n, 0) - pid * BLOCK)" in lines(text)
    assert "tl.store(q, v, mask=(start + o_block.to(tl.int64)).to(tl.uint64) < tl.maximum(n, 0))" in lines(text)


def test_a_loop_counter_is_as_non_negative_as_its_own_loop():
    """fla's fused_chunk_based_bwd_kernel counts `i` up from 0 in one loop and down past 0 in another
    (`range(cdiv(T, BT) * BT - BT, -BT, -BT)`): in the first loop's body only the first loop's `i` reaches,
    so its offsets need no lower bound; the second's do."""
    source = '''def k(x, T, K, BT: tl.constexpr, BK: tl.constexpr):
    for i in range(0, tl.cdiv(T, BT)):
        p = tl.make_block_ptr(x, (T, K), (K, 1), (i * BT, 0), (BT, BK), (1, 0))
        tl.store(p, tl.load(p, boundary_check=(0, 1)) + 1, boundary_check=(0, 1))
    for i in range(tl.cdiv(T, BT) * BT - BT, -BT, -BT):
        q = tl.make_block_ptr(x, (T, K), (K, 1), (i, 0), (BT, BK), (1, 0))
        tl.store(q, tl.load(q, boundary_check=(0, 1)) * 2, boundary_check=(0, 1))
    for i in range(0, T, BT):
        i = i - BT  # the body assigns it: the loop's range no longer tells
        r = tl.make_block_ptr(x, (T, K), (K, 1), (i, 0), (BT, BK), (1, 0))
        tl.store(r, tl.load(r, boundary_check=(0, 1)) * 3, boundary_check=(0, 1))
'''
    found = lines(migrated(source))
    assert "m_t = r_t < tl.maximum(T, 0) - i * BT" in found
    assert sum(".to(tl.uint64) < tl.maximum(T, 0)" in line for line in found) == 2, found


def test_a_block_as_wide_as_its_shape_at_offset_zero_is_not_checked():
    """fla's `(T, BT)` tiles of a chunk's attention matrix: `tl.arange(0, BT) < BT` cannot fail, so the columns
    carry no mask (the rows still do); a block narrower than its shape, or elsewhere, keeps its check."""
    source = '''def k(a, b, T, K, BT: tl.constexpr, BK: tl.constexpr):
    i_t = tl.program_id(0)
    p_a = tl.make_block_ptr(a, (T, BT), (BT, 1), (i_t * BT, 0), (BT, BT), (1, 0))
    tl.store(p_a, tl.load(p_a, boundary_check=(0, 1)) + 1, boundary_check=(0, 1))
    p_b = tl.make_block_ptr(b, (T, K), (K, 1), (i_t * BT, 0), (BT, BK), (1, 0))
    tl.store(p_b, tl.load(p_b, boundary_check=(0, 1)) + 1, boundary_check=(0, 1))
'''
    text = migrated(source)
    assert "< BT" not in text, text
    assert "mask=m_t[:, None])" in text and "m_k = tl.arange(0, BK) < K" in lines(text)
    assert "m_tk = m_t[:, None] & m_k[None, :]" in lines(text)  # the one tile mask of p_b's load and store


def test_a_remainder_takes_the_sign_of_its_dividend():
    """The grouped ordering of Triton's GEMM tutorial: `pid % group_size_m` is never negative, whatever the
    divisor (Triton's `%` on a tensor is C's); `// group_size_m` may be, where `group_size_m` is."""
    source = '''def k(x, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    group_size_m = min(tl.cdiv(M, BM) - pid // 8 * 8, 8)
    pid_m = pid // 8 * 8 + (pid % group_size_m)
    pid_n = pid // group_size_m
    p = tl.make_block_ptr(x, (M, N), (N, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(p, tl.zeros((BM, BN), tl.float32), boundary_check=(0, 1))
'''
    text = migrated(source)
    assert "mask=(r_m < tl.maximum(M, 0) - pid_m * BM)[:, None] & (o_n.to(tl.uint64) < tl.maximum(N, 0))[None, :]," \
        in lines(text)
    assert "o_n = pid_n * BN + tl.arange(0, BN).to(tl.int64)" in lines(text)


def test_a_private_block_name_reads_as_the_block_it_names():
    """Helion writes `_BLOCK_SIZE_0`: its axis is `o_0`, as `BLOCK_SIZE_0`'s is, not `o__block_size_0` (whose
    length pushed each of Intel's regression-test loads onto five lines)."""
    source = '''def k(x, _BLOCK_SIZE_0: tl.constexpr):
    p = tl.make_block_ptr(x, [1024], [1], [tl.program_id(0) * _BLOCK_SIZE_0], [_BLOCK_SIZE_0], [0])
    tl.store(p, tl.load(p, boundary_check=[0]) + 1, boundary_check=[0])
'''
    text = migrated(source)
    assert "m_0 = tl.arange(0, _BLOCK_SIZE_0) < 1024 - tl.program_id(0) * _BLOCK_SIZE_0" in lines(text)


def test_int64_once_per_axis_that_a_stride_scales():
    source = '''def k(x, y, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    p = tl.make_block_ptr(x, (M, N), (stride_m, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    q = tl.make_block_ptr(y, (M, N), (stride_m, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(q, tl.load(p, boundary_check=(0, 1)), boundary_check=(0, 1))
'''
    text = migrated(source)
    # the rows inside the block, which stride_m scales, the columns added to them, and each corner's row
    assert text.count("tl.int64") == 4
    # the range widened, not the sum: the offset is int32 in the block pointer too
    assert "o_m = r_m.to(tl.int64)" in lines(text) and "o_n = pid_n * BN + r_n.to(tl.int64)" in lines(text)
    assert "r_m = tl.arange(0, BM)" in lines(text) and "m_m = r_m < tl.maximum(M, 0) - pid_m * BM" in lines(text)
    assert "p = x + tl.cast(pid_m * BM, tl.int64) * stride_m + (o_m[:, None] * stride_m + o_n[None, :])" in lines(text)


def test_an_offset_used_in_one_branch_stays_in_it_and_a_bound_read_once_is_inline():
    source = '''def k(x, y, n, FLAG: tl.constexpr, B: tl.constexpr):
    pid = tl.program_id(0)
    if FLAG:
        p = tl.make_block_ptr(x, (n, 2), (2, 1), (pid * B, 0), (B, 2), (1, 0))
        tl.store(p, tl.zeros([B, 2], dtype=tl.float32), boundary_check=(0,))
        r = tl.make_block_ptr(x, (n, 2), (2, 1), (pid * B, 0), (B, 2), (1, 0))
        tl.store(r, tl.zeros([B, 2], dtype=tl.float32), boundary_check=(0,))
    q = tl.make_block_ptr(y, (n, 4), (4, 1), (0, pid), (B, 1), (1, 0))
    tl.store(q, tl.zeros([B, 1], dtype=tl.float32), boundary_check=(1,))
'''
    found = lines(migrated(source))
    # the branch may be dropped at compile time: what only it reads is defined in it
    after = found.index("q = y + (o_b[:, None] * 4 + (pid + r_1.to(tl.int64))[None, :])")
    branch = found[found.index("if FLAG:"):after]
    assert "m_b = r_b < tl.maximum(n, 0) - pid * B" in branch
    assert "tl.store(q, tl.zeros([B, 1], dtype=tl.float32), mask=(r_1 < 4 - pid)[None, :])" in found


def test_a_moving_block_pointer_keeps_its_pointers_and_each_access_adds_where_it_moved():
    text = (FIXTURES / "gemm_loop_advance" / "after.py").read_text()
    assert "+ tl.cast(pid_m * BLOCK_M, tl.int64) * stride_am" in lines(text)
    assert "+ (o_m[:, None] * stride_am + o_k[None, :] * stride_ak)" in lines(text)
    assert "a_bp + tl.cast(off_k, tl.int64) * stride_ak," in lines(text)
    assert "b_bp + tl.cast(off_k, tl.int64) * stride_bk," in lines(text)
    assert "a_bp +=" not in text and "b_bp +=" not in text
    source = '''def k(x, n, B: tl.constexpr):
    p = tl.make_block_ptr(x, (n,), (1,), (0,), (B,), (0,))
    acc = tl.zeros([B], dtype=tl.float32)
    for i in range(0, n, B):
        acc += tl.load(p, boundary_check=(0,))
        p = tl.advance(p, (B,))
    tl.store(x + tl.arange(0, B), acc)
'''
    found = lines(migrated(source))
    assert "p = x + tl.arange(0, B)" in found
    # unit stride: no widening; the bound compares the range with what is left of the shape, which cannot wrap
    assert "acc += tl.load(p + p_off0, mask=tl.arange(0, B) < tl.maximum(n, 0) - p_off0)" in found


def test_block_pointers_merged_from_branches_are_masked_where_created():
    text = (FIXTURES / "shared_offsets" / "after.py").read_text()
    assert "m_h = m_v[:, None] & m_k[None, :]" in lines(text)
    assert "m_h = m_k[:, None] & m_v[None, :]" in lines(text)
    assert "b_h = tl.load(p_h, mask=m_h)" in lines(text)
    assert "_shape0" not in text and "_range0" not in text


def test_a_type_query_reads_the_pointers_the_name_holds():
    text = (FIXTURES / "shared_offsets" / "after.py").read_text()
    assert "(b_o * b_g[:, None]).to(p_o.dtype.element_ty)," in lines(text)


def test_a_column_of_one_element_adds_nothing():
    source = '''def k(d, T, H, BT: tl.constexpr):
    i_t = tl.program_id(0)
    p = tl.make_block_ptr(d, (T, 1), (H, 1), (i_t * BT, 0), (BT, 1), (1, 0))
    tl.store(p, tl.zeros([BT, 1], dtype=tl.float32), boundary_check=(0, 1))
'''
    found = lines(migrated(source))
    assert "p = d + tl.cast(i_t * BT, tl.int64) * H + (r_t.to(tl.int64)[:, None] * H)" in found


def test_generated_names_leave_the_users_alone():
    source = '''def k(x, y, T, BT: tl.constexpr):
    i_t = tl.program_id(0)
    p = tl.make_block_ptr(x, (T,), (1,), (i_t * BT,), (BT,), (0,))
    v = tl.load(p, boundary_check=(0,))
    w = tl.load(p, boundary_check=(0,))
    o_t = i_t * BT + tl.arange(0, BT)
    m_t = o_t < T
    tl.store(y + o_t, v + w, mask=m_t)
'''
    text = migrated(source)
    assert "o_t = i_t * BT + tl.arange(0, BT)" in lines(text) and "m_t = o_t < T" in lines(text)
    # the user's m_t is assigned after these reads; the rewrite's reads as another word, not as `m_t2`
    assert "mask_t = tl.arange(0, BT) < tl.maximum(T, 0) - i_t * BT" in lines(text)
    assert "v = tl.load(p, mask=mask_t)" in lines(text)


def test_statements_the_rewrite_does_not_touch_keep_their_text():
    long = ("    w = tl.load(x + tl.arange(0, BT) * 2 + tl.arange(0, BT) * 3 + tl.arange(0, BT) * 5"
            " + tl.arange(0, BT))\n")
    source = f'''def k(x, y, T, BT: tl.constexpr):
    i_t = tl.program_id(0)
{long}    p = tl.make_block_ptr(y, (T,), (1,), (i_t * BT,), (BT,), (0,))
    tl.store(p, w, boundary_check=(0,))
'''
    assert long in migrated(source, layout=Layout(line_length=88))


def test_a_block_pointer_created_in_its_access_reads_the_shared_axes():
    """`tl.load(tl.make_block_ptr(...))` (Helion writes every access so) takes the ranges and bounds that the
    kernel's other accesses share, as a block pointer created by name does."""
    text = (FIXTURES / "inline_creation" / "after.py").read_text()
    assert lines(text).count("+ (o_m[:, None] * stride_xm + o_n[None, :]),") == 2
    assert "+ (o_m[:, None] * stride_ym + o_n[None, :])," in lines(text)
    assert "m_mn = m_m[:, None] & m_n[None, :]" in lines(text) and lines(text).count("mask=m_mn,") == 2


BOUNDS = '''import triton
import triton.language as tl


@triton.jit
def k(x, y, starts, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    start = tl.load(starts + pid)
    p = tl.make_block_ptr(x, (n,), (1,), (start,), (BLOCK,), (0,))
    v = tl.load(p, boundary_check=(0,), padding_option="zero")
    q = tl.make_block_ptr(y, (n,), (1,), (start,), (BLOCK,), (0,))
    tl.store(q, v + 1, boundary_check=(0,))
'''


@pytest.mark.parametrize("n", [-5, 0, 3, 16])
def test_one_unsigned_comparison_bounds_what_a_block_pointer_bounds(n, tmp_path):
    """`0 <= o < n` as `o.to(tl.uint64) < tl.maximum(n, 0)`: offsets before the tensor, past it and across
    both of its ends, over a shape that is negative, empty, shorter than a block and a block's length; the
    original's reads and writes, bit for bit (Triton 3.8 interpreter). Without the clamp, a negative shape
    becomes a huge unsigned one and every offset at or after 0 passes."""
    migrated_text = migrate_source(BOUNDS).new_source
    assert "(start + o_block.to(tl.int64)).to(tl.uint64) < tl.maximum(n, 0)" in migrated_text
    starts = torch.tensor([-20, -3, 0, 2, 5, 14, 40], dtype=torch.int32)
    results = []
    for name, text in (("before", BOUNDS), ("after", migrated_text)):
        (tmp_path / f"{name}.py").write_text(text)
        kernel = D.import_path(tmp_path / f"{name}.py", name).k
        x = torch.arange(64, dtype=torch.float32)[24:]  # memory on both sides of the tensor's n elements
        y = torch.full((64,), -1.0)
        kernel[(len(starts),)](x, y[24:], starts, n, BLOCK=8)
        results.append(y)
    assert torch.equal(results[0], results[1])


ROOM = '''import triton
import triton.language as tl


@triton.jit
def k(x, y, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    p = tl.make_block_ptr(x, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))
    v = tl.load(p, boundary_check=(0,), padding_option="zero")
    q = tl.make_block_ptr(y, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))
    tl.store(q, v + 1, boundary_check=(0,))
'''


def run_room(text: str, name: str, n: int, tmp_path) -> torch.Tensor:
    (tmp_path / f"{name}.py").write_text(text)
    kernel = D.import_path(tmp_path / f"{name}.py", name).k
    x = torch.arange(64, dtype=torch.float32)[24:]  # memory on both sides of the tensor's n elements
    y = torch.full((64,), -1.0)
    kernel[(3,)](x, y[24:], n, BLOCK=8)
    return y


@pytest.mark.parametrize("n", [-2**31 + 3, -5, 0, 3, 13, 24])
def test_the_room_left_in_the_shape_bounds_what_a_block_pointer_bounds(n, tmp_path):
    """`tl.arange(0, BLOCK) < tl.maximum(n, 0) - pid * BLOCK` for an offset known to be non-negative, over a shape
    that is negative, empty, inside the first block, across the second and the whole grid; the original's reads
    and writes, bit for bit (Triton 3.8 interpreter). Without the clamp, `n - 8` wraps past int32's least
    value to a huge room for n = -2^31 + 3, and the second block writes."""
    migrated_text = migrate_source(ROOM).new_source
    assert "m_block = o_block < tl.maximum(n, 0) - pid * BLOCK" in lines(migrated_text)
    before = run_room(ROOM, "room_before", n, tmp_path)
    assert torch.equal(before, run_room(migrated_text, "room_after", n, tmp_path))
    unclamped = migrated_text.replace("tl.maximum(n, 0)", "n")
    assert torch.equal(before, run_room(unclamped, "room_unclamped", n, tmp_path)) == (n != -2**31 + 3)

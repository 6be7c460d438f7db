"""Attention forward in the style of the Triton tutorial `06-fused-attention.py` (the block-pointer version of
Triton 2.x/3.0): an inner loop whose `tl.advance` moves K and V along the sequence and feeds `tl.dot`.

q, k, v, o are `[Z, H, N_CTX, HEAD_DIM]` views with arbitrary strides (a `[Z, N_CTX, H, HEAD_DIM]` tensor
transposed, as flash-attention's callers pass them, is the usual case); `BLOCK_D` is `HEAD_DIM` rounded up to a
power of two.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _attn_fwd_inner(
    acc,
    l_i,
    m_i,
    q,
    K_block_ptr,
    V_block_ptr,
    qk_scale,
    N_CTX,
    BLOCK_N: tl.constexpr,
):
    for start_n in range(0, N_CTX, BLOCK_N):
        # -- compute qk ----
        k = tl.load(K_block_ptr, boundary_check=(0, 1), padding_option="zero")
        qk = tl.dot(q, k)
        offs_n = start_n + tl.arange(0, BLOCK_N)
        qk = tl.where(offs_n[None, :] < N_CTX, qk * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        qk -= m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        # -- update m_i and l_i
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        # -- update output accumulator --
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
        V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
        K_block_ptr = tl.advance(K_block_ptr, (0, BLOCK_N))
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(
    Q,
    K,
    V,
    sm_scale,
    Out,
    stride_qz,
    stride_qh,
    stride_qm,
    stride_qk,
    stride_kz,
    stride_kh,
    stride_kn,
    stride_kk,
    stride_vz,
    stride_vh,
    stride_vk,
    stride_vn,
    stride_oz,
    stride_oh,
    stride_om,
    stride_on,
    H,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_D: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    qvk_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh

    # block pointers
    Q_block_ptr = tl.make_block_ptr(
        base=Q + qvk_offset,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_qm, stride_qk),
        offsets=(start_m * BLOCK_M, 0),
        block_shape=(BLOCK_M, BLOCK_D),
        order=(1, 0),
    )
    V_block_ptr = tl.make_block_ptr(
        base=V + off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_vk, stride_vn),
        offsets=(0, 0),
        block_shape=(BLOCK_N, BLOCK_D),
        order=(1, 0),
    )
    K_block_ptr = tl.make_block_ptr(
        base=K + off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh,
        shape=(HEAD_DIM, N_CTX),
        strides=(stride_kk, stride_kn),
        offsets=(0, 0),
        block_shape=(BLOCK_D, BLOCK_N),
        order=(0, 1),
    )
    O_block_ptr = tl.make_block_ptr(
        base=Out + off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_om, stride_on),
        offsets=(start_m * BLOCK_M, 0),
        block_shape=(BLOCK_M, BLOCK_D),
        order=(1, 0),
    )
    # initialize pointer to m and l
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/log(2)
    q = tl.load(Q_block_ptr, boundary_check=(0, 1), padding_option="zero")
    acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, qk_scale, N_CTX, BLOCK_N)
    acc = acc / l_i[:, None]
    tl.store(O_block_ptr, acc.to(Out.type.element_ty), boundary_check=(0, 1))


def attention(q, k, v, o, sm_scale, BLOCK_M=16, BLOCK_N=16):
    Z, H, N_CTX, HEAD_DIM = q.shape
    grid = (triton.cdiv(N_CTX, BLOCK_M), Z * H)
    _attn_fwd[grid](
        q,
        k,
        v,
        sm_scale,
        o,
        *q.stride(),
        *k.stride(),
        *v.stride(),
        *o.stride(),
        H,
        N_CTX,
        HEAD_DIM=HEAD_DIM,
        BLOCK_D=triton.next_power_of_2(HEAD_DIM),
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
    )
    return o

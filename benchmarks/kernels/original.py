"""Block-pointer kernels shaped like real ones: the originals the benchmark migrates.

Written after the code they imitate, block pointers and all:

* `gemm`: row-major GEMM with loop-carried advances; `gemm_bt`: the block-pointer matmul tutorial
  (grouped launch order, every stride a run-time argument) with B given as N x K and read through a
  transposed K x N view (`order=(0, 1)`), as `x @ W.T` layers do;
* `attn_fwd`: FlashAttention-2 forward as in Triton's fused-attention tutorial (Q, K^T view, V and O block
  pointers, advances in the inner loop, optional causal mask, logsumexp stored with plain pointers), with the
  inner loop inlined and key masking so that any sequence length works;
* `attn_bwd_dkdv`: the tutorial's dK/dV backward pass written with block pointers (a Q^T view, dO, and the
  per-row logsumexp and delta through 1-D block pointers);
* `gated_chunks`, `chunk_fwd_kernel_h`, `chunk_fwd_kernel_o`: flash-linear-attention ("fla") style chunk
  kernels that re-create block pointers inside their loops (K^T views with a literal unit stride, pointer
  arguments shifted by `+=`) and load per-head gates through strided 1-D block pointers;
* `rms_norm`, `layer_norm_fwd`: norms over rows (Liger/unsloth style, a whole row per block);
* `add_one`: 2-D elementwise; `bmm`: batched matmul through rank-3 block pointers (block (1, BM, BK));
* block pointers passed to `@triton.jit` helpers: `attn_fwd_staged`, the fused-attention tutorial as Triton
  3.0-3.2 shipped it (`_attn_fwd_inner` takes the K and V block pointers, advances them to its stage's range
  and loops; a causal program calls it twice), and `gemm_helper`, whose K loop calls `_dot_tile` with both
  block pointers on every iteration.

Every kernel runs in Triton's CPU interpreter. benchmarks/cases.py launches them; benchmarks/regenerate.py
writes the tool's output for this file to migrated.py and migrated_pointer.py.
"""

import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (pid_m * BM, 0), (BM, BK), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(a, boundary_check=(0, 1), padding_option="zero"),
                      tl.load(b, boundary_check=(0, 1), padding_option="zero"))
        a = tl.advance(a, (0, BK))
        b = tl.advance(b, (BK, 0))
    c = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c, acc.to(c.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def add_one(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_xm, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_ym, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(0, 1)) + 1, boundary_check=(0, 1))


@triton.jit
def rms_norm(x_ptr, w_ptr, y_ptr, M, stride_xm, stride_ym, eps, D: tl.constexpr, BM: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, D), (stride_xm, 1), (pid * BM, 0), (BM, D), (1, 0))
    w = tl.make_block_ptr(w_ptr, (D,), (1,), (0,), (D,), (0,))
    y = tl.make_block_ptr(y_ptr, (M, D), (stride_ym, 1), (pid * BM, 0), (BM, D), (1, 0))
    v = tl.load(x, boundary_check=(0,)).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(v * v, axis=1) / D + eps)
    out = v * rstd[:, None] * tl.load(w).to(tl.float32)[None, :]
    tl.store(y, out.to(y.dtype.element_ty), boundary_check=(0,))


@triton.jit
def gated_chunks(k_ptr, g_ptr, o_ptr, T, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    i_h = tl.program_id(0)
    b_h = tl.zeros((K,), dtype=tl.float32)
    for i_t in range(0, tl.cdiv(T, BT)):
        p_k = tl.make_block_ptr(k_ptr + i_h * K, (T, K), (H * K, 1), (i_t * BT, 0), (BT, K), (1, 0))
        p_g = tl.make_block_ptr(g_ptr + i_h, (T,), (H,), (i_t * BT,), (BT,), (0,))
        b_k = tl.load(p_k, boundary_check=(0, 1)).to(tl.float32)
        b_g = tl.load(p_g, boundary_check=(0,)).to(tl.float32)
        b_h = b_h * tl.exp(tl.sum(b_g)) + tl.sum(b_k * b_g[:, None], axis=0)
        p_o = tl.make_block_ptr(o_ptr + i_h * K, (T, K), (H * K, 1), (i_t * BT, 0), (BT, K), (1, 0))
        tl.store(p_o, (b_k + b_h[None, :]).to(p_o.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def gemm_bt(a_ptr, b_ptr, c_ptr, M, N, K,
            stride_am, stride_ak, stride_bn, stride_bk, stride_cm, stride_cn,
            BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
            GROUP_SIZE_M: tl.constexpr):
    # C = A @ B.T with B stored as N x K (a linear layer's weight).
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    a_block_ptr = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                    offsets=(pid_m * BLOCK_SIZE_M, 0), block_shape=(BLOCK_SIZE_M, BLOCK_SIZE_K),
                                    order=(1, 0))
    # B^T as a K x N view of the N x K weight: column-major, so order=(0, 1)
    b_block_ptr = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                    offsets=(0, pid_n * BLOCK_SIZE_N), block_shape=(BLOCK_SIZE_K, BLOCK_SIZE_N),
                                    order=(0, 1))
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_SIZE_K):
        a = tl.load(a_block_ptr, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block_ptr, boundary_check=(0, 1), padding_option="zero")
        accumulator = tl.dot(a, b, accumulator)
        a_block_ptr = tl.advance(a_block_ptr, (0, BLOCK_SIZE_K))
        b_block_ptr = tl.advance(b_block_ptr, (BLOCK_SIZE_K, 0))
    c = accumulator.to(c_ptr.dtype.element_ty)
    c_block_ptr = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                    offsets=(pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N),
                                    block_shape=(BLOCK_SIZE_M, BLOCK_SIZE_N), order=(1, 0))
    tl.store(c_block_ptr, c, boundary_check=(0, 1))


@triton.jit
def attn_fwd(Q, K, V, sm_scale, M, Out,
             stride_qz, stride_qh, stride_qm, stride_qk,
             stride_kz, stride_kh, stride_kn, stride_kk,
             stride_vz, stride_vh, stride_vk, stride_vn,
             stride_oz, stride_oh, stride_om, stride_on,
             Z, H, N_CTX,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_offset = off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_offset = off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_offset = off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh

    # block pointers
    Q_block_ptr = tl.make_block_ptr(
        base=Q + q_offset,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_qm, stride_qk),
        offsets=(start_m * BLOCK_M, 0),
        block_shape=(BLOCK_M, HEAD_DIM),
        order=(1, 0),
    )
    V_block_ptr = tl.make_block_ptr(
        base=V + v_offset,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_vk, stride_vn),
        offsets=(0, 0),
        block_shape=(BLOCK_N, HEAD_DIM),
        order=(1, 0),
    )
    K_block_ptr = tl.make_block_ptr(
        base=K + k_offset,
        shape=(HEAD_DIM, N_CTX),
        strides=(stride_kk, stride_kn),
        offsets=(0, 0),
        block_shape=(HEAD_DIM, BLOCK_N),
        order=(0, 1),
    )
    O_block_ptr = tl.make_block_ptr(
        base=Out + o_offset,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_om, stride_on),
        offsets=(start_m * BLOCK_M, 0),
        block_shape=(BLOCK_M, HEAD_DIM),
        order=(1, 0),
    )
    # initialize offsets
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    # initialize pointer to m and l
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale
    qk_scale *= 1.44269504  # 1/log(2)
    # load q: it will stay in SRAM throughout
    q = tl.load(Q_block_ptr, boundary_check=(0,), padding_option="zero")
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX
    # loop over k, v and update accumulator
    for start_n in range(0, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        # -- compute qk ----
        k = tl.load(K_block_ptr, boundary_check=(1,), padding_option="zero")
        qk = tl.dot(q, k)
        mask = (start_n + offs_n[None, :]) < N_CTX
        if CAUSAL:
            mask = mask & (offs_m[:, None] >= (start_n + offs_n[None, :]))
        qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        qk -= m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        # -- update m_i and l_i
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        # -- update output accumulator --
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr, boundary_check=(0,), padding_option="zero")
        acc = tl.dot(p.to(v.dtype), v, acc)
        # update m_i and l_i
        m_i = m_ij
        V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
        K_block_ptr = tl.advance(K_block_ptr, (0, BLOCK_N))
    # epilogue
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    m_ptrs = M + off_hz * N_CTX + offs_m
    tl.store(m_ptrs, m_i, mask=offs_m < N_CTX)
    tl.store(O_block_ptr, acc.to(Out.type.element_ty), boundary_check=(0,))


@triton.jit
def attn_bwd_dkdv(Q, K, V, sm_scale, DO, DK, DV, M, D,
                  # shared by Q/K/V/DO/DK/DV.
                  stride_z, stride_h, stride_tok, stride_d,
                  H, N_CTX,
                  BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
    # K arrives pre-scaled by sm_scale / ln(2) and M is the forward's log2-domain logsumexp, so
    # exp2(k . q - m) is the softmax probability; D = rowsum(O * dO).
    tl.static_assert(BLOCK_N1 % BLOCK_M1 == 0)
    bhid = tl.program_id(1)
    off_chz = (bhid * N_CTX).to(tl.int64)
    adj = (stride_h * (bhid % H) + stride_z * (bhid // H)).to(tl.int64)
    pid = tl.program_id(0)

    # offset pointers for batch/head
    Q += adj
    K += adj
    V += adj
    DO += adj
    DK += adj
    DV += adj
    M += off_chz
    D += off_chz

    start_n = pid * BLOCK_N1
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    k_block_ptr = tl.make_block_ptr(K, (N_CTX, HEAD_DIM), (stride_tok, stride_d), (start_n, 0),
                                    (BLOCK_N1, HEAD_DIM), (1, 0))
    v_block_ptr = tl.make_block_ptr(V, (N_CTX, HEAD_DIM), (stride_tok, stride_d), (start_n, 0),
                                    (BLOCK_N1, HEAD_DIM), (1, 0))
    # load K and V: they stay in SRAM throughout the inner loop.
    k = tl.load(k_block_ptr, boundary_check=(0,), padding_option="zero")
    v = tl.load(v_block_ptr, boundary_check=(0,), padding_option="zero")
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)

    if CAUSAL:
        start_m = start_n  # queries before this key block do not see it
    else:
        start_m = 0
    qT_block_ptr = tl.make_block_ptr(Q, (HEAD_DIM, N_CTX), (stride_d, stride_tok), (0, start_m),
                                     (HEAD_DIM, BLOCK_M1), (0, 1))
    do_block_ptr = tl.make_block_ptr(DO, (N_CTX, HEAD_DIM), (stride_tok, stride_d), (start_m, 0),
                                     (BLOCK_M1, HEAD_DIM), (1, 0))
    m_block_ptr = tl.make_block_ptr(M, (N_CTX,), (1,), (start_m,), (BLOCK_M1,), (0,))
    d_block_ptr = tl.make_block_ptr(D, (N_CTX,), (1,), (start_m,), (BLOCK_M1,), (0,))
    curr_m = start_m
    for _ in range(start_m, N_CTX, BLOCK_M1):
        qT = tl.load(qT_block_ptr, boundary_check=(1,), padding_option="zero")
        # Load m before computing qk to reduce pipeline stall.
        offs_m = curr_m + tl.arange(0, BLOCK_M1)
        m = tl.load(m_block_ptr, boundary_check=(0,), padding_option="zero")
        qkT = tl.dot(k, qT)
        pT = tl.math.exp2(qkT - m[None, :])
        mask = offs_m[None, :] < N_CTX
        # Autoregressive masking.
        if CAUSAL:
            mask = mask & (offs_m[None, :] >= offs_n[:, None])
        pT = tl.where(mask, pT, 0.0)
        do = tl.load(do_block_ptr, boundary_check=(0,), padding_option="zero")
        # Compute dV.
        ppT = pT.to(do.dtype)
        dv += tl.dot(ppT, do)
        Di = tl.load(d_block_ptr, boundary_check=(0,), padding_option="zero")
        # Compute dP and dS.
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = pT * (dpT - Di[None, :])
        dsT = dsT.to(qT.dtype)
        dk += tl.dot(dsT, tl.trans(qT))
        # Increment pointers.
        curr_m += BLOCK_M1
        qT_block_ptr = tl.advance(qT_block_ptr, (0, BLOCK_M1))
        do_block_ptr = tl.advance(do_block_ptr, (BLOCK_M1, 0))
        m_block_ptr = tl.advance(m_block_ptr, (BLOCK_M1,))
        d_block_ptr = tl.advance(d_block_ptr, (BLOCK_M1,))

    dv_block_ptr = tl.make_block_ptr(DV, (N_CTX, HEAD_DIM), (stride_tok, stride_d), (start_n, 0),
                                     (BLOCK_N1, HEAD_DIM), (1, 0))
    tl.store(dv_block_ptr, dv.to(DV.dtype.element_ty), boundary_check=(0,))
    # Write back dK.
    dk *= sm_scale
    dk_block_ptr = tl.make_block_ptr(DK, (N_CTX, HEAD_DIM), (stride_tok, stride_d), (start_n, 0),
                                     (BLOCK_N1, HEAD_DIM), (1, 0))
    tl.store(dk_block_ptr, dk.to(DK.dtype.element_ty), boundary_check=(0,))


@triton.jit(do_not_specialize=["T"])
def chunk_fwd_kernel_h(k, v, h, g, ht, T,
                       H: tl.constexpr, K: tl.constexpr, V: tl.constexpr,
                       BT: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr, STORE_FINAL_STATE: tl.constexpr):
    # k, v: [B, T, H, K|V]; g: [B, T, H] (fp32 log-decays); h: [B, NT, H, K, V], the state before each chunk.
    i_k, i_v, i_nh = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    i_n, i_h = i_nh // H, i_nh % H
    bos = i_n * T
    NT = tl.cdiv(T, BT)

    # [BK, BV]
    b_h = tl.zeros([BK, BV], dtype=tl.float32)
    for i_t in range(NT):
        p_k = tl.make_block_ptr(k + (bos * H + i_h) * K, (K, T), (1, H * K), (i_k * BK, i_t * BT), (BK, BT), (0, 1))
        p_v = tl.make_block_ptr(v + (bos * H + i_h) * V, (T, V), (H * V, 1), (i_t * BT, i_v * BV), (BT, BV), (1, 0))
        o_h = ((i_n * NT + i_t) * H + i_h).to(tl.int64) * K * V
        p_h = tl.make_block_ptr(h + o_h, (K, V), (V, 1), (i_k * BK, i_v * BV), (BK, BV), (1, 0))

        tl.store(p_h, b_h.to(p_h.dtype.element_ty), boundary_check=(0, 1))
        # [BK, BT]
        b_k = tl.load(p_k, boundary_check=(0, 1), padding_option="zero")
        # [BT, BV]
        b_v = tl.load(p_v, boundary_check=(0, 1), padding_option="zero")
        last_idx = min((i_t + 1) * BT, T) - 1

        # scalar decay
        b_g_last = tl.load(g + bos * H + last_idx * H + i_h)
        p_g = tl.make_block_ptr(g + bos * H + i_h, (T,), (H,), (i_t * BT,), (BT,), (0,))
        b_g = tl.load(p_g, boundary_check=(0,))
        b_h *= tl.exp(b_g_last)
        b_v = (b_v * tl.exp(b_g_last - b_g)[:, None]).to(b_v.dtype)
        b_h += tl.dot(b_k, b_v)

    if STORE_FINAL_STATE:
        p_ht = tl.make_block_ptr(ht + i_nh * K * V, (K, V), (V, 1), (i_k * BK, i_v * BV), (BK, BV), (1, 0))
        tl.store(p_ht, b_h.to(p_ht.dtype.element_ty), boundary_check=(0, 1))


@triton.jit(do_not_specialize=["T"])
def chunk_fwd_kernel_o(q, k, v, h, g, o, scale, T,
                       H: tl.constexpr, K: tl.constexpr, V: tl.constexpr,
                       BT: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr):
    i_v, i_t, i_bh = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    i_b, i_h = i_bh // H, i_bh % H
    NT = tl.cdiv(T, BT)
    i_tg = i_b * NT + i_t
    bos = i_b * T

    # offset calculation
    q += (bos * H + i_h) * K
    k += (bos * H + i_h) * K
    v += (bos * H + i_h) * V
    o += (bos * H + i_h) * V
    h += (i_tg * H + i_h).to(tl.int64) * K * V

    b_o = tl.zeros([BT, BV], dtype=tl.float32)
    b_A = tl.zeros([BT, BT], dtype=tl.float32)
    for i_k in range(tl.cdiv(K, BK)):
        p_q = tl.make_block_ptr(q, (T, K), (H * K, 1), (i_t * BT, i_k * BK), (BT, BK), (1, 0))
        p_k = tl.make_block_ptr(k, (K, T), (1, H * K), (i_k * BK, i_t * BT), (BK, BT), (0, 1))
        p_h = tl.make_block_ptr(h, (K, V), (V, 1), (i_k * BK, i_v * BV), (BK, BV), (1, 0))
        # [BT, BK]
        b_q = tl.load(p_q, boundary_check=(0, 1), padding_option="zero")
        # [BK, BT]
        b_k = tl.load(p_k, boundary_check=(0, 1), padding_option="zero")
        # [BK, BV]
        b_h = tl.load(p_h, boundary_check=(0, 1), padding_option="zero")
        # [BT, BK] @ [BK, BV] -> [BT, BV]
        b_o += tl.dot(b_q, b_h)
        # [BT, BK] @ [BK, BT] -> [BT, BT]
        b_A += tl.dot(b_q, b_k)

    g += bos * H + i_h
    p_g = tl.make_block_ptr(g, (T,), (H,), (i_t * BT,), (BT,), (0,))
    b_g = tl.load(p_g, boundary_check=(0,))
    b_o = b_o * tl.exp(b_g)[:, None]
    b_A = b_A * tl.exp(b_g[:, None] - b_g[None, :])

    o_t = i_t * BT + tl.arange(0, BT)
    m_t = o_t < T
    m_A = (o_t[:, None] >= o_t[None, :]) & (m_t[:, None] & m_t)
    b_A = tl.where(m_A, b_A, 0)

    p_v = tl.make_block_ptr(v, (T, V), (H * V, 1), (i_t * BT, i_v * BV), (BT, BV), (1, 0))
    p_o = tl.make_block_ptr(o, (T, V), (H * V, 1), (i_t * BT, i_v * BV), (BT, BV), (1, 0))
    b_v = tl.load(p_v, boundary_check=(0, 1), padding_option="zero")
    b_o = b_o * scale + tl.dot(b_A.to(b_v.dtype), b_v) * scale
    tl.store(p_o, b_o.to(p_o.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, M, N, stride_xm, stride_ym, eps,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # BLOCK_M rows per program, a whole row (BLOCK_N >= N) per block.
    pid = tl.program_id(0)
    x_block_ptr = tl.make_block_ptr(X, (M, N), (stride_xm, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    y_block_ptr = tl.make_block_ptr(Y, (M, N), (stride_ym, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    w_block_ptr = tl.make_block_ptr(W, (N,), (1,), (0,), (BLOCK_N,), (0,))
    b_block_ptr = tl.make_block_ptr(B, (N,), (1,), (0,), (BLOCK_N,), (0,))
    mean_block_ptr = tl.make_block_ptr(Mean, (M,), (1,), (pid * BLOCK_M,), (BLOCK_M,), (0,))
    rstd_block_ptr = tl.make_block_ptr(Rstd, (M,), (1,), (pid * BLOCK_M,), (BLOCK_M,), (0,))

    x = tl.load(x_block_ptr, boundary_check=(0, 1), padding_option="zero").to(tl.float32)
    # Compute mean and variance
    mean = tl.sum(x, axis=1) / N
    cols = tl.arange(0, BLOCK_N)
    xbar = tl.where(cols[None, :] < N, x - mean[:, None], 0.0)
    var = tl.sum(xbar * xbar, axis=1) / N
    rstd = 1 / tl.sqrt(var + eps)
    # Write mean / rstd
    tl.store(mean_block_ptr, mean, boundary_check=(0,))
    tl.store(rstd_block_ptr, rstd, boundary_check=(0,))
    # Normalize and apply linear transformation
    w = tl.load(w_block_ptr, boundary_check=(0,)).to(tl.float32)
    b = tl.load(b_block_ptr, boundary_check=(0,)).to(tl.float32)
    y = xbar * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(y_block_ptr, y.to(Y.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def bmm(a_ptr, b_ptr, c_ptr, M, N, K,
        stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, stride_cn,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # C[b] = A[b] @ B[b]: one batch entry per program along axis 2.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_b = tl.program_id(2)
    BATCH = tl.num_programs(2)
    a_bp = tl.make_block_ptr(a_ptr, (BATCH, M, K), (stride_ab, stride_am, stride_ak),
                             (pid_b, pid_m * BLOCK_M, 0), (1, BLOCK_M, BLOCK_K), (2, 1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (BATCH, K, N), (stride_bb, stride_bk, stride_bn),
                             (pid_b, 0, pid_n * BLOCK_N), (1, BLOCK_K, BLOCK_N), (2, 1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_bp, boundary_check=(0, 1, 2), padding_option="zero")
        b = tl.load(b_bp, boundary_check=(0, 1, 2), padding_option="zero")
        acc += tl.dot(tl.reshape(a, (BLOCK_M, BLOCK_K)), tl.reshape(b, (BLOCK_K, BLOCK_N)))
        a_bp = tl.advance(a_bp, (0, 0, BLOCK_K))
        b_bp = tl.advance(b_bp, (0, BLOCK_K, 0))
    c_bp = tl.make_block_ptr(c_ptr, (BATCH, M, N), (stride_cb, stride_cm, stride_cn),
                             (pid_b, pid_m * BLOCK_M, pid_n * BLOCK_N), (1, BLOCK_M, BLOCK_N), (2, 1, 0))
    tl.store(c_bp, tl.reshape(acc, (1, BLOCK_M, BLOCK_N)).to(c_ptr.dtype.element_ty), boundary_check=(0, 1, 2))


@triton.jit
def batched_transpose(x_ptr, y_ptr, M, N, stride_xb, stride_xm, stride_yb, stride_yn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # y[b] = x[b].T for x: (B, M, N), y: (B, N, M); the batch index comes from the grid, so it is not checked.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_b = tl.program_id(2)
    B = tl.num_programs(2)
    x_block_ptr = tl.make_block_ptr(x_ptr, shape=(B, M, N), strides=(stride_xb, stride_xm, 1),
                                    offsets=(pid_b, pid_m * BLOCK_M, pid_n * BLOCK_N),
                                    block_shape=(1, BLOCK_M, BLOCK_N), order=(2, 1, 0))
    y_block_ptr = tl.make_block_ptr(y_ptr, shape=(B, N, M), strides=(stride_yb, stride_yn, 1),
                                    offsets=(pid_b, pid_n * BLOCK_N, pid_m * BLOCK_M),
                                    block_shape=(1, BLOCK_N, BLOCK_M), order=(2, 1, 0))
    x = tl.load(x_block_ptr, boundary_check=(1, 2))
    tl.store(y_block_ptr, tl.permute(x, (0, 2, 1)), boundary_check=(1, 2))


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, start_m, qk_scale,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                    STAGE: tl.constexpr, offs_m, offs_n, N_CTX):
    # range of values handled by this stage
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    # causal = False
    else:
        lo, hi = 0, N_CTX
    K_block_ptr = tl.advance(K_block_ptr, (0, lo))
    V_block_ptr = tl.advance(V_block_ptr, (lo, 0))
    # loop over k, v and update accumulator
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        # -- compute qk ----
        k = tl.load(K_block_ptr)
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        # -- update m_i and l_i
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        # -- update output accumulator --
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr)
        acc = tl.dot(p.to(v.dtype), v, acc)
        # update m_i and l_i
        m_i = m_ij
        V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
        K_block_ptr = tl.advance(K_block_ptr, (0, BLOCK_N))
    return acc, l_i, m_i


@triton.jit
def attn_fwd_staged(Q, K, V, sm_scale, M, Out,
                    stride_qz, stride_qh, stride_qm, stride_qk,
                    stride_kz, stride_kh, stride_kn, stride_kk,
                    stride_vz, stride_vh, stride_vk, stride_vn,
                    stride_oz, stride_oh, stride_om, stride_on,
                    Z, H, N_CTX,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    # As the tutorial: N_CTX must be a multiple of BLOCK_M (no boundary checks).
    tl.static_assert(BLOCK_N <= HEAD_DIM)
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
        block_shape=(BLOCK_M, HEAD_DIM),
        order=(1, 0),
    )
    V_block_ptr = tl.make_block_ptr(
        base=V + qvk_offset,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_vk, stride_vn),
        offsets=(0, 0),
        block_shape=(BLOCK_N, HEAD_DIM),
        order=(1, 0),
    )
    K_block_ptr = tl.make_block_ptr(
        base=K + qvk_offset,
        shape=(HEAD_DIM, N_CTX),
        strides=(stride_kk, stride_kn),
        offsets=(0, 0),
        block_shape=(HEAD_DIM, BLOCK_N),
        order=(0, 1),
    )
    O_block_ptr = tl.make_block_ptr(
        base=Out + qvk_offset,
        shape=(N_CTX, HEAD_DIM),
        strides=(stride_om, stride_on),
        offsets=(start_m * BLOCK_M, 0),
        block_shape=(BLOCK_M, HEAD_DIM),
        order=(1, 0),
    )
    # initialize offsets
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    # initialize pointer to m and l
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    # load scales
    qk_scale = sm_scale
    qk_scale *= 1.44269504  # 1/log(2)
    # load q: it will stay in SRAM throughout
    q = tl.load(Q_block_ptr)
    # stage 1: off-band
    # For causal = True, STAGE = 3 and _attn_fwd_inner gets 1 as its STAGE
    # For causal = False, STAGE = 1, and _attn_fwd_inner gets 3 as its STAGE
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr,
                                        start_m, qk_scale,
                                        BLOCK_M, HEAD_DIM, BLOCK_N,
                                        4 - STAGE, offs_m, offs_n, N_CTX)
    # stage 2: on-band
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr,
                                        start_m, qk_scale,
                                        BLOCK_M, HEAD_DIM, BLOCK_N,
                                        2, offs_m, offs_n, N_CTX)
    # epilogue
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    m_ptrs = M + off_hz * N_CTX + offs_m
    tl.store(m_ptrs, m_i)
    tl.store(O_block_ptr, acc.to(Out.type.element_ty))


@triton.jit
def _dot_tile(acc, a_block, b_block):
    a = tl.load(a_block, boundary_check=(0, 1), padding_option="zero")
    b = tl.load(b_block, boundary_check=(0, 1), padding_option="zero")
    return tl.dot(a, b, acc)


@triton.jit
def gemm_helper(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (pid_m * BM, 0), (BM, BK), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc = _dot_tile(acc, a, b)
        a = tl.advance(a, (0, BK))
        b = tl.advance(b, (BK, 0))
    c = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c, acc.to(c.dtype.element_ty), boundary_check=(0, 1))

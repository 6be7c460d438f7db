import triton
import triton.language as tl


@triton.jit
def chunk_gate_kernel(
    q,
    k,
    g,
    o,
    chunk_indices,
    T,
    K: tl.constexpr,
    BT: tl.constexpr,
    BK: tl.constexpr,
    NK: tl.constexpr,
):
    i_c, i_k = tl.program_id(0), tl.program_id(1)
    i_t = tl.load(chunk_indices + i_c).to(tl.int32)
    o_k = tl.arange(0, BK)
    o_t = i_t * BT + tl.arange(0, BT)
    m_t = o_t < T

    # the tiles this program reads, and the one it writes
    p_q = tl.make_block_ptr(q, (T, K), (K, 1), (i_t * BT, i_k * BK), (BT, BK), (1, 0))

    p_k = tl.make_block_ptr(k, (T, K), (K, 1), (i_t * BT, i_k * BK), (BT, BK), (1, 0))
    p_g = tl.make_block_ptr(g, (T,), (1,), (i_t * BT,), (BT,), (0,))

    p_o = tl.make_block_ptr(o, (T, K), (K, 1), (i_t * BT, i_k * BK), (BT, BK), (1, 0))

    # [BT, BK]
    b_q = tl.load(p_q, boundary_check=(0, 1))
    # [BT, BK]
    b_k = tl.load(p_k, boundary_check=(0, 1))
    # [BT]
    b_g = tl.load(p_g, boundary_check=(0,))
    b_o = tl.where(m_t[:, None], b_q * b_k * b_g[:, None] + o_k[None, :], 0.0)
    tl.store(p_o, b_o, boundary_check=(0, 1))
    for i in range(1, NK):
        # the next column block of q, read again in every step
        p_q = tl.make_block_ptr(
            q, (T, K), (K, 1), (i_t * BT, (i_k + i) * BK), (BT, BK), (1, 0)
        )
        p_o = tl.make_block_ptr(
            o, (T, K), (K, 1), (i_t * BT, (i_k + i) * BK), (BT, BK), (1, 0)
        )
        # [BT, BK]
        b_q = tl.load(p_q, boundary_check=(0, 1))
        tl.store(p_o, b_q * b_g[:, None], boundary_check=(0, 1))

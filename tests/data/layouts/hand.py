import triton
import triton.language as tl


@triton.jit
def chunk_scale_kernel(
    q, o, T, s_t, row0, c0, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr, BK: tl.constexpr, NK: tl.constexpr
):
    i_t, i_h = tl.program_id(0), tl.program_id(1)
    p_q = tl.make_block_ptr(q + \
        i_h * K, (T, K), (s_t, 1),
        (row0  # the first row
         + i_t * BT, c0 * BK), (BT, BK), (1, 0))
    p_o = tl.make_block_ptr(
        o  # this head's output
        + i_h * K, shape=(T,
        K), strides=(s_t, 1), offsets=(row0 + i_t * BT,
            c0 \
            * BK), block_shape=(BT, BK), order=(1, 0),
    )
    for _ in range(NK):
        b_q = tl.load(p_q,
            boundary_check=(0, 1,),
        )
        tl.store(p_o, b_q * 2.0  # scale
                 + 1.0, boundary_check=(0, 1))
        p_q = tl.advance(p_q, (0,
            BK
        ))
        p_o = tl.advance(p_o, (0, BK,))

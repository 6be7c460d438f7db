# A DELIBERATELY WRONG "migration" of fixtures/gemm_loop_advance/before.py, used by
# tests/test_fixtures.py::test_wrong_migration_is_caught. The B descriptor is advanced
# along the wrong dimension (N instead of K), a classic hand-migration slip: offsets
# are swapped when `tl.advance(b_bp, (BLOCK_K, 0))` becomes integer bookkeeping.
# For K <= BLOCK_K (a single iteration) the result is still right, so only the
# multi-iteration cases catch it.
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, stride_ak], [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, stride_bn], [BLOCK_K, BLOCK_N])
    a_off_1 = 0
    b_off_0 = 0
    b_off_1 = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, a_off_1])
        b = b_desc.load([b_off_0, b_off_1])
        acc += tl.dot(a, b, input_precision="ieee")
        a_off_1 += BLOCK_K
        b_off_1 += BLOCK_K  # WRONG: should be b_off_0 += BLOCK_K
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, stride_cn], [BLOCK_M, BLOCK_N])
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc)

"""The benchmark suite's cases: inputs, output buffers and a launch for every kernel in kernels/original.py.

Device-agnostic. `suite("large")` holds the shapes the GPU timing uses (benchmarks/kernel_bench.py),
`suite("small")` shapes that Triton's CPU interpreter runs in seconds (tests/test_benchmarks.py). Both
include shapes that are not multiples of the block, and both launch with the same block sizes and launch
options, so what the tests check is what the GPU times.

    mem = Memory("cuda")                  # or Memory("cpu", padded=True) for the interpreter
    for case in suite("large"):
        setup = case.setup(mem)           # inputs, made once
        out = setup.new_outputs(mem)      # fresh sentinel-filled output buffers, one set per module
        setup.launch(module, out)         # module: kernels/original.py or one of its migrated forms

With `padded=True` every tensor (input and output) is a view inside a larger buffer filled with a sentinel
(a NaN with a payload no kernel computes, 0x7F bytes for integers): an out-of-bounds read shows up as a
sentinel in an output, an out-of-bounds write as an overwritten sentinel in the output's buffer. Kernels
that take strides get views with padded rows and outer dimensions (every row still a multiple of 16 bytes,
every base 16-byte aligned, as descriptors need); kernels that assume contiguous tensors get contiguous
views with sentinel cells before and after them. Without padding (the GPU timing) tensors are plain and
contiguous; outputs are still sentinel-filled, so a cell a kernel fails to write shows.

Only torch is imported here (never triton: the interpreter must be chosen before triton is imported).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import torch

# A NaN with a payload for floats (different bits from any NaN a kernel computes), 0x7F bytes otherwise;
# the same patterns as fixtures/_harness_util.py.
SENTINEL_BITS = {torch.float32: (torch.int32, 0x7FC0DEAD), torch.float16: (torch.int16, 0x7E5A),
                 torch.bfloat16: (torch.int16, 0x7FDA)}
_INT_OF_SIZE = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
_PAD = 2  # sentinel slices before and after every outer dimension (padded mode)
_DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32"}


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def sentinel_fill(t: torch.Tensor) -> torch.Tensor:
    if t.dtype in SENTINEL_BITS:
        int_type, bits = SENTINEL_BITS[t.dtype]
        t.view(int_type).fill_(bits)
    else:
        t.view(torch.uint8).fill_(0x7F)
    return t


def raw_bits(t: torch.Tensor) -> torch.Tensor:
    """The tensor's bits as integers of its element size (contiguous)."""
    return t.detach().contiguous().view(_INT_OF_SIZE[t.element_size()])


def identical(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit for bit, except that two NaNs a kernel computed are equal whatever their payload (NVIDIA's TMA
    fills padding="nan" with another NaN than a masked load); a sentinel never equals a computed NaN."""
    return not difference(a, b).any()


def difference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Where `a` and `b` differ, as `identical` counts it (same dtype and shape expected)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        raise ValueError(f"cannot compare {a.dtype}{tuple(a.shape)} with {b.dtype}{tuple(b.shape)}")
    bits_a, bits_b = raw_bits(a), raw_bits(b)
    differ = bits_a != bits_b
    if a.dtype in SENTINEL_BITS:
        sentinel = SENTINEL_BITS[a.dtype][1]
        computed_nans = a.isnan() & b.isnan() & (bits_a != sentinel) & (bits_b != sentinel)
        differ &= ~computed_nans
    return differ


def describe_difference(a: torch.Tensor, b: torch.Tensor) -> dict:
    """How far apart two buffers are: differing cells, the largest absolute difference between finite values
    and the largest distance in units in the last place (a rounding difference is a few ULP)."""
    differ = difference(a, b)
    cells = int(differ.sum())
    if not cells:
        return {"cells": 0}
    x, y = a[differ].float(), b[differ].float()
    finite = x.isfinite() & y.isfinite()
    bits_x, bits_y = raw_bits(a[differ]).long(), raw_bits(b[differ]).long()
    same_sign = (x < 0) == (y < 0)
    ulp = torch.where(same_sign & finite, (bits_x - bits_y).abs(), torch.full_like(bits_x, -1))
    return {"cells": cells, "of": differ.numel(),
            "max_abs": float((x - y)[finite].abs().max()) if finite.any() else None,
            "max_ulp": int(ulp.max()) if bool((ulp >= 0).all()) else None}  # None: a sign, NaN or sentinel differs


def view_mask(buffer: torch.Tensor, view: torch.Tensor) -> torch.Tensor:
    """A bool tensor shaped like `buffer`, True on the cells `view` (a view into it) covers."""
    mask = torch.zeros(buffer.shape, dtype=torch.bool, device=buffer.device)
    offset = view.storage_offset() - buffer.storage_offset()
    torch.as_strided(mask, view.shape, view.stride(), mask.storage_offset() + offset).fill_(True)
    return mask


class Out(NamedTuple):
    buffer: torch.Tensor  # the whole allocation: compared bit for bit
    view: torch.Tensor  # what the kernel is given


class Memory:
    """Makes the tensors of the cases on one device; random data comes from one seeded generator."""

    def __init__(self, device: str, padded: bool = False, seed: int = 0) -> None:
        self.device = device
        self.padded = padded
        self.seed = seed
        # "meta" (shapes only: the compile check) has no data and no generator
        self.generator = None if device == "meta" else torch.Generator(device=device).manual_seed(seed)

    def reseed(self, salt: str) -> None:
        """Each case's inputs depend on its name only, not on the cases before it."""
        if self.generator is not None:
            self.generator.manual_seed(self.seed * 1_000_003
                                       + sum(ord(c) * 131 ** i for i, c in enumerate(salt)) % 2**61)

    def alloc(self, shape, dtype, contiguous: bool = False) -> Out:
        shape = tuple(int(s) for s in shape)
        if not self.padded:
            t = torch.empty(shape, dtype=dtype, device=self.device)
            return Out(t, t)
        itemsize = torch.empty((), dtype=dtype).element_size()
        per16 = max(1, 16 // itemsize)  # elements in 16 bytes
        if contiguous:
            pad = 4 * per16
            numel = math.prod(shape)
            buffer = torch.empty((pad + cdiv(numel, per16) * per16 + pad,), dtype=dtype, device=self.device)
            view = buffer[pad:pad + numel].view(shape)
        else:
            inner = cdiv(per16 + shape[-1] + 1, per16) * per16  # 16 bytes of sentinel on the left, >= 1 on the right
            buffer = torch.empty(tuple(s + 2 * _PAD for s in shape[:-1]) + (inner,), dtype=dtype, device=self.device)
            view = buffer[tuple(slice(_PAD, _PAD + s) for s in shape[:-1]) + (slice(per16, per16 + shape[-1]),)]
        sentinel_fill(buffer)
        return Out(buffer, view)

    def output(self, shape, dtype, contiguous: bool = False) -> Out:
        out = self.alloc(shape, dtype, contiguous)
        sentinel_fill(out.buffer)
        return out

    def randn(self, shape, dtype, *, scale: float = 1.0, contiguous: bool = False) -> torch.Tensor:
        view = self.alloc(shape, dtype, contiguous).view
        if self.generator is not None:
            data = torch.randn(view.shape, generator=self.generator, device=self.device, dtype=torch.float32)
            view.copy_((data * scale).to(dtype))
        return view

    def rand(self, shape, dtype, *, low: float = 0.0, high: float = 1.0, contiguous: bool = False) -> torch.Tensor:
        view = self.alloc(shape, dtype, contiguous).view
        if self.generator is not None:
            data = torch.rand(view.shape, generator=self.generator, device=self.device, dtype=torch.float32)
            view.copy_((low + (high - low) * data).to(dtype))
        return view

    def copy_of(self, value: torch.Tensor, dtype=None, contiguous: bool = False) -> torch.Tensor:
        """`value` (any layout) in a tensor of this memory's layout."""
        view = self.alloc(value.shape, dtype or value.dtype, contiguous).view
        view.copy_(value)
        return view


@dataclass
class Setup:
    """A case with its inputs built: what it writes and how to launch it."""
    outputs: dict[str, tuple]  # name -> (shape, dtype) or (shape, dtype, contiguous)
    launch: Callable[[Any, dict[str, torch.Tensor]], None]  # launch(module, {name: output view})
    # The float32 results each output view should hold, computed with torch (small shapes only).
    reference: Callable[[], dict[str, torch.Tensor]] | None = None
    tolerance: dict[str, float] = field(default_factory=dict)  # per output, relative to its largest value

    def new_outputs(self, mem: Memory) -> dict[str, Out]:
        return {name: mem.output(*spec) for name, spec in self.outputs.items()}

    def run(self, module, outputs: dict[str, Out]) -> None:
        self.launch(module, {name: out.view for name, out in outputs.items()})


@dataclass(frozen=True)
class Case:
    name: str
    kernel: str  # the kernel it launches (a function of kernels/original.py)
    build: Callable[[Memory], Setup]

    def setup(self, mem: Memory) -> Setup:
        mem.reseed(self.name)
        return self.build(mem)


def _dt(dtype) -> str:
    return _DTYPE_NAMES[dtype]


# --------------------------------------------------------------------------------------------- GEMM
def gemm(M, N, K, dtype=torch.float16, kernel: str = "gemm") -> Case:
    def build(mem):
        a, b = mem.randn((M, K), dtype), mem.randn((K, N), dtype)

        def launch(mod, out):
            c = out["c"]
            getattr(mod, kernel)[(cdiv(M, 128), cdiv(N, 128))](a, b, c, M, N, K, a.stride(0), b.stride(0),
                                                               c.stride(0), BM=128, BN=128, BK=64, num_warps=8,
                                                               num_stages=3)
        return Setup({"c": ((M, N), dtype)}, launch, lambda: {"c": a.float() @ b.float()})
    return Case(f"{kernel} {M}x{N}x{K} {_dt(dtype)}", kernel, build)


def gemm_bt(M, N, K, dtype=torch.float16) -> Case:
    """C = A @ B.T with B stored N x K, as a linear layer's weight."""
    def build(mem):
        a, b = mem.randn((M, K), dtype), mem.randn((N, K), dtype)

        def launch(mod, out):
            c = out["c"]
            grid = (cdiv(M, 128) * cdiv(N, 128),)
            mod.gemm_bt[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                              c.stride(0), c.stride(1), BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64,
                              GROUP_SIZE_M=8, num_warps=8, num_stages=3)
        return Setup({"c": ((M, N), dtype)}, launch, lambda: {"c": a.float() @ b.float().T})
    return Case(f"gemm_bt {M}x{N}x{K} {_dt(dtype)}", "gemm_bt", build)


def bmm(batch, M, N, K, dtype=torch.float16) -> Case:
    def build(mem):
        a, b = mem.randn((batch, M, K), dtype), mem.randn((batch, K, N), dtype)

        def launch(mod, out):
            c = out["c"]
            mod.bmm[(cdiv(M, 128), cdiv(N, 128), batch)](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(),
                                                        BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8,
                                                        num_stages=3)
        return Setup({"c": ((batch, M, N), dtype)}, launch, lambda: {"c": a.float() @ b.float()})
    return Case(f"bmm {batch}x{M}x{N}x{K} {_dt(dtype)}", "bmm", build)


def gemm_helper(M, N, K, dtype=torch.float16) -> Case:
    """`gemm` with its loads in a helper called on every K step."""
    return gemm(M, N, K, dtype, kernel="gemm_helper")


# ------------------------------------------------------------------------------------ elementwise
def add_one(M, N, dtype=torch.float16) -> Case:
    def build(mem):
        x = mem.randn((M, N), dtype)

        def launch(mod, out):
            y = out["y"]
            mod.add_one[(cdiv(M, 64), cdiv(N, 128))](x, y, M, N, x.stride(0), y.stride(0), BM=64, BN=128)
        return Setup({"y": ((M, N), dtype)}, launch, lambda: {"y": x.float() + 1})
    return Case(f"add_one {M}x{N} {_dt(dtype)}", "add_one", build)


def batched_transpose(batch, M, N, dtype=torch.float16) -> Case:
    def build(mem):
        x = mem.randn((batch, M, N), dtype)

        def launch(mod, out):
            y = out["y"]
            mod.batched_transpose[(cdiv(M, 64), cdiv(N, 64), batch)](x, y, M, N, x.stride(0), x.stride(1),
                                                                    y.stride(0), y.stride(1), BLOCK_M=64,
                                                                    BLOCK_N=64, num_warps=4)
        return Setup({"y": ((batch, N, M), dtype)}, launch, lambda: {"y": x.float().transpose(1, 2)},
                     {"y": 0.0})
    return Case(f"batched_transpose {batch}x{M}x{N} {_dt(dtype)}", "batched_transpose", build)


# ------------------------------------------------------------------------------------------ norms
def rms_norm(M, D, dtype=torch.float16) -> Case:
    def build(mem):
        x, w = mem.randn((M, D), dtype), mem.randn((D,), dtype)

        def launch(mod, out):
            y = out["y"]
            mod.rms_norm[(cdiv(M, 64),)](x, w, y, M, x.stride(0), y.stride(0), 1e-6, D=D, BM=64)

        def reference():
            v = x.float()
            return {"y": v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()}
        return Setup({"y": ((M, D), dtype)}, launch, reference)
    return Case(f"rms_norm {M}x{D} {_dt(dtype)}", "rms_norm", build)


def layer_norm(M, N, dtype=torch.float16) -> Case:
    BLOCK_N = next_power_of_2(N)
    BLOCK_M = max(1, min(16, 16384 // BLOCK_N))

    def build(mem):
        x = mem.randn((M, N), dtype, scale=2.0)
        w, b = mem.rand((N,), dtype, low=0.5, high=1.5), mem.randn((N,), dtype)

        def launch(mod, out):
            y = out["y"]
            mod.layer_norm_fwd[(cdiv(M, BLOCK_M),)](x, y, w, b, out["mean"], out["rstd"], M, N, x.stride(0),
                                                    y.stride(0), 1e-5, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                                    num_warps=8 if BLOCK_N >= 4096 else 4)

        def reference():
            v = x.float()
            mean, var = v.mean(-1), v.var(-1, unbiased=False)
            rstd = torch.rsqrt(var + 1e-5)
            return {"y": (v - mean[:, None]) * rstd[:, None] * w.float() + b.float(), "mean": mean, "rstd": rstd}
        return Setup({"y": ((M, N), dtype), "mean": ((M,), torch.float32), "rstd": ((M,), torch.float32)},
                     launch, reference)
    return Case(f"layer_norm {M}x{N} {_dt(dtype)}", "layer_norm_fwd", build)


# -------------------------------------------------------------------------------------- attention
def _attention_probs(q, k, causal, sm_scale):
    s = (q.float() @ k.float().transpose(-1, -2)) * sm_scale
    if causal:
        n = q.shape[-2]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=s.device).triu(1), float("-inf"))
    return s


def attn_fwd(Z, H, N_CTX, HEAD_DIM, causal, dtype=torch.float16) -> Case:
    return _attention_forward("attn_fwd", Z, H, N_CTX, HEAD_DIM, causal, dtype, CAUSAL=causal)


def attn_fwd_staged(Z, H, N_CTX, HEAD_DIM, causal, dtype=torch.float16) -> Case:
    """The tutorial's forward with its `_attn_fwd_inner` helper; N_CTX a multiple of BLOCK_M, as it needs.
    It moves k, v and o by q's batch and head strides, as the tutorial does: same shape, same strides."""
    assert N_CTX % 128 == 0, "attn_fwd_staged has no boundary checks"
    return _attention_forward("attn_fwd_staged", Z, H, N_CTX, HEAD_DIM, causal, dtype, STAGE=3 if causal else 1)


def _attention_forward(kernel, Z, H, N_CTX, HEAD_DIM, causal, dtype, **mode_constexprs) -> Case:
    BLOCK_M, BLOCK_N = 128, 64
    sm_scale = HEAD_DIM ** -0.5

    def build(mem):
        q, k, v = (mem.randn((Z, H, N_CTX, HEAD_DIM), dtype) for _ in range(3))

        def launch(mod, out):
            o, m = out["o"], out["m"]
            getattr(mod, kernel)[(cdiv(N_CTX, BLOCK_M), Z * H)](
                q, k, v, sm_scale, m, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(), Z, H, N_CTX,
                HEAD_DIM=HEAD_DIM, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, **mode_constexprs,
                num_warps=4 if HEAD_DIM <= 64 else 8, num_stages=3)

        def reference():
            s = _attention_probs(q, k, causal, sm_scale)
            lse = torch.logsumexp(s, -1)
            return {"o": torch.softmax(s, -1) @ v.float(), "m": (lse / math.log(2)).reshape(Z * H, N_CTX)}
        return Setup({"o": ((Z, H, N_CTX, HEAD_DIM), dtype), "m": ((Z * H, N_CTX), torch.float32, True)},
                     launch, reference)
    mode = "causal" if causal else "full"
    return Case(f"{kernel} {Z}x{H}x{N_CTX}x{HEAD_DIM} {mode} {_dt(dtype)}", kernel, build)


def attn_bwd_dkdv(Z, H, N_CTX, HEAD_DIM, causal, dtype=torch.float16) -> Case:
    BLOCK_M1, BLOCK_N1 = 32, 128
    sm_scale = HEAD_DIM ** -0.5
    RCP_LN2 = 1.4426950408889634

    def build(mem):
        q, k, v, do = (mem.randn((Z, H, N_CTX, HEAD_DIM), dtype) for _ in range(4))
        # What the tutorial's backward receives: K pre-scaled, the forward's log2-domain logsumexp M and
        # delta = rowsum(O * dO), all computed here with torch, one head at a time.
        k_scaled = mem.copy_of(k * (sm_scale * RCP_LN2))
        lse = torch.empty((Z, H, N_CTX), dtype=torch.float32, device=mem.device)
        delta = torch.empty((Z, H, N_CTX), dtype=torch.float32, device=mem.device)
        for z in range(Z):
            for h in range(H):
                s = _attention_probs(q[z, h], k[z, h], causal, sm_scale)
                lse[z, h] = torch.logsumexp(s, -1) * RCP_LN2
                o = (torch.softmax(s, -1) @ v[z, h].float()).to(dtype)
                delta[z, h] = (o.float() * do[z, h].float()).sum(-1)
        m = mem.copy_of(lse, contiguous=True)
        d = mem.copy_of(delta, contiguous=True)

        def launch(mod, out):
            dk, dv = out["dk"], out["dv"]
            assert q.stride() == k_scaled.stride() == v.stride() == do.stride() == dk.stride() == dv.stride()
            mod.attn_bwd_dkdv[(cdiv(N_CTX, BLOCK_N1), Z * H)](
                q, k_scaled, v, sm_scale, do, dk, dv, m, d, q.stride(0), q.stride(1), q.stride(2), q.stride(3),
                H, N_CTX, BLOCK_M1=BLOCK_M1, BLOCK_N1=BLOCK_N1, HEAD_DIM=HEAD_DIM, CAUSAL=causal,
                num_warps=4, num_stages=5)

        def reference():
            qf, kf, vf = (t.float().detach().requires_grad_() for t in (q, k, v))
            o = torch.softmax(_attention_probs(qf, kf, causal, sm_scale), -1) @ vf
            o.backward(do.float())
            return {"dk": kf.grad, "dv": vf.grad}
        return Setup({"dk": ((Z, H, N_CTX, HEAD_DIM), dtype), "dv": ((Z, H, N_CTX, HEAD_DIM), dtype)},
                     launch, reference, {"dk": 3e-2, "dv": 3e-2})
    mode = "causal" if causal else "full"
    return Case(f"attn_bwd_dkdv {Z}x{H}x{N_CTX}x{HEAD_DIM} {mode} {_dt(dtype)}", "attn_bwd_dkdv", build)


# ---------------------------------------------------------------------- chunked linear attention (fla)
def gated_chunks(T, H, K, dtype=torch.float16) -> Case:
    BT = 64

    def build(mem):
        k = mem.randn((T, H, K), dtype, contiguous=True)
        g = mem.rand((T, H), dtype, low=-0.01, high=0.0, contiguous=True)

        def launch(mod, out):
            mod.gated_chunks[(H,)](k, g, out["o"], T, H=H, K=K, BT=BT)

        def reference():
            kf, gf = k.float(), g.float()
            o = torch.empty_like(kf)
            state = torch.zeros(H, K, dtype=torch.float32, device=kf.device)
            for t0 in range(0, T, BT):
                kc, gc = kf[t0:t0 + BT], gf[t0:t0 + BT]
                state = state * torch.exp(gc.sum(0))[:, None] + (kc * gc[:, :, None]).sum(0)
                o[t0:t0 + BT] = kc + state
            return {"o": o}
        return Setup({"o": ((T, H, K), dtype, True)}, launch, reference)
    return Case(f"gated_chunks T={T} H={H} K={K} {_dt(dtype)}", "gated_chunks", build)


def _chunk_local_cumsum(g: torch.Tensor, BT: int) -> torch.Tensor:
    """fla's chunk_local_cumsum over T (dim 1) of [B, T, H]: the running sum restarts at every chunk."""
    total = g.cumsum(1)
    T = g.shape[1]
    starts = (torch.arange(T, device=g.device) // BT) * BT
    before = torch.cat([torch.zeros_like(total[:, :1]), total], 1)[:, starts]
    return total - before


def _fla_inputs(mem, B, T, H, K, V, dtype, BT):
    k = mem.randn((B, T, H, K), dtype, scale=K ** -0.5, contiguous=True)
    v = mem.randn((B, T, H, V), dtype, contiguous=True)
    raw = mem.rand((B, T, H), torch.float32, low=-0.1, high=-0.001)
    g = mem.copy_of(_chunk_local_cumsum(raw, BT), contiguous=True)
    return k, v, g


def chunk_fwd_h(B, T, H, K, V, dtype=torch.bfloat16) -> Case:
    BT, BK, BV = 64, 64, 64
    NT = cdiv(T, BT)

    def build(mem):
        k, v, g = _fla_inputs(mem, B, T, H, K, V, dtype, BT)

        def launch(mod, out):
            mod.chunk_fwd_kernel_h[(cdiv(K, BK), cdiv(V, BV), B * H)](
                k, v, out["h"], g, out["ht"], T, H=H, K=K, V=V, BT=BT, BK=BK, BV=BV, STORE_FINAL_STATE=True,
                num_warps=4, num_stages=2)

        def reference():
            kf, vf, gf = k.float(), v.float(), g.float()
            h = torch.empty((B, NT, H, K, V), dtype=torch.float32, device=kf.device)
            state = torch.zeros((B, H, K, V), dtype=torch.float32, device=kf.device)
            for i_t in range(NT):
                t0, t1 = i_t * BT, min((i_t + 1) * BT, T)
                h[:, i_t] = state
                g_last = gf[:, t1 - 1]  # [B, H]
                vc = (vf[:, t0:t1] * torch.exp(g_last[:, None] - gf[:, t0:t1])[..., None]).to(dtype).float()
                state = state * torch.exp(g_last)[..., None, None] + torch.einsum("bthk,bthv->bhkv", kf[:, t0:t1], vc)
            return {"h": h, "ht": state}
        return Setup({"h": ((B, NT, H, K, V), dtype, True), "ht": ((B, H, K, V), torch.float32, True)},
                     launch, reference, {"h": 2e-2, "ht": 2e-2})
    return Case(f"chunk_fwd_h B={B} T={T} H={H} K={K} V={V} {_dt(dtype)}", "chunk_fwd_kernel_h", build)


def chunk_fwd_o(B, T, H, K, V, dtype=torch.bfloat16) -> Case:
    BT, BK, BV = 64, 64, 64
    NT = cdiv(T, BT)
    scale = K ** -0.5

    def build(mem):
        k, v, g = _fla_inputs(mem, B, T, H, K, V, dtype, BT)
        q = mem.randn((B, T, H, K), dtype, contiguous=True)
        h = mem.randn((B, NT, H, K, V), dtype, contiguous=True)

        def launch(mod, out):
            mod.chunk_fwd_kernel_o[(cdiv(V, BV), NT, B * H)](
                q, k, v, h, g, out["o"], scale, T, H=H, K=K, V=V, BT=BT, BK=BK, BV=BV, num_warps=4, num_stages=2)

        def reference():
            qf, kf, vf, hf, gf = q.float(), k.float(), v.float(), h.float(), g.float()
            o = torch.empty((B, T, H, V), dtype=torch.float32, device=qf.device)
            for i_t in range(NT):
                t0, t1 = i_t * BT, min((i_t + 1) * BT, T)
                qc, kc, vc, gc = qf[:, t0:t1], kf[:, t0:t1], vf[:, t0:t1], gf[:, t0:t1]  # [B, t, H, .]
                inter = torch.einsum("bthk,bhkv->bthv", qc, hf[:, i_t]) * torch.exp(gc)[..., None]
                A = torch.einsum("bihk,bjhk->bhij", qc, kc) * torch.exp(gc.transpose(1, 2)[..., :, None]
                                                                      - gc.transpose(1, 2)[..., None, :])
                A = A.tril().to(dtype).float()
                o[:, t0:t1] = (inter + torch.einsum("bhij,bjhv->bihv", A, vc)) * scale
            return {"o": o}
        return Setup({"o": ((B, T, H, V), dtype, True)}, launch, reference, {"o": 2e-2})
    return Case(f"chunk_fwd_o B={B} T={T} H={H} K={K} V={V} {_dt(dtype)}", "chunk_fwd_kernel_o", build)


# ------------------------------------------------------------------------------------------ suites
def suite(size: str = "large") -> list[Case]:
    """The cases at GPU-timing shapes ("large") or at interpreter shapes ("small")."""
    fp16, bf16 = torch.float16, torch.bfloat16
    if size == "large":
        cases = [
            gemm(4096, 4096, 4096), gemm(1000, 1000, 1000), gemm(512, 4096, 11008),
            gemm(4096, 4096, 4096, bf16), gemm(2000, 3000, 1000, bf16),
            gemm_bt(4096, 4096, 4096), gemm_bt(4096, 4096, 4096, bf16), gemm_bt(1000, 3000, 1000, bf16),
            bmm(16, 1024, 1024, 1024), bmm(24, 1000, 520, 72, bf16),
            add_one(8192, 8192), add_one(4097, 4104), batched_transpose(32, 2048, 2048),
            batched_transpose(64, 1000, 1000, bf16),
            rms_norm(65536, 128), layer_norm(16384, 4096), layer_norm(8192, 5120, bf16), layer_norm(4097, 1000),
            attn_fwd(4, 16, 4096, 64, False), attn_fwd(4, 16, 4096, 64, True), attn_fwd(2, 16, 1000, 128, True, bf16),
            attn_bwd_dkdv(4, 16, 4096, 64, True), attn_bwd_dkdv(2, 16, 1000, 64, False),
            attn_fwd_staged(4, 16, 4096, 64, True), attn_fwd_staged(4, 16, 4096, 64, False),
            attn_fwd_staged(2, 16, 1024, 128, True, bf16),
            gemm_helper(4096, 4096, 4096), gemm_helper(1000, 1000, 1000),
            gated_chunks(8192, 16, 64),
            chunk_fwd_h(4, 4096, 16, 128, 128), chunk_fwd_h(2, 1000, 8, 96, 96),
            chunk_fwd_o(4, 4096, 16, 128, 128), chunk_fwd_o(2, 1000, 8, 96, 96),
        ]
    elif size == "small":
        cases = [
            gemm(300, 260, 200), gemm(129, 136, 72, bf16),
            gemm_bt(300, 260, 200), gemm_bt(129, 136, 72, bf16),
            bmm(3, 200, 136, 72), bmm(2, 129, 130, 64, bf16),
            add_one(130, 260), batched_transpose(3, 100, 72), batched_transpose(2, 64, 136, bf16),
            rms_norm(100, 128), layer_norm(37, 1000), layer_norm(20, 264, bf16),
            attn_fwd(1, 2, 200, 64, False), attn_fwd(2, 1, 200, 64, True), attn_fwd(1, 2, 130, 128, True, bf16),
            attn_bwd_dkdv(1, 2, 200, 64, True), attn_bwd_dkdv(2, 1, 150, 64, False),
            attn_fwd_staged(1, 2, 256, 64, True), attn_fwd_staged(2, 1, 128, 64, False, bf16),
            gemm_helper(300, 260, 200), gemm_helper(129, 136, 72, bf16),
            gated_chunks(150, 3, 64),
            chunk_fwd_h(2, 100, 2, 64, 64, fp16), chunk_fwd_h(1, 150, 2, 96, 96),
            chunk_fwd_o(2, 100, 2, 64, 64, fp16), chunk_fwd_o(1, 150, 2, 96, 96),
        ]
    else:
        raise ValueError(f"unknown suite size {size!r}: large or small")
    names = [case.name for case in cases]
    assert len(set(names)) == len(names), "case names must be unique"
    return cases


def install_allocator(device: str) -> None:
    """Device-side tensor descriptors keep their tensormap in global scratch on NVIDIA sm_90+."""
    if str(device).startswith("cuda"):
        import triton

        triton.set_allocator(lambda size, align, stream: torch.empty(size, device=device, dtype=torch.int8))


def synchronize(device: str) -> None:
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()

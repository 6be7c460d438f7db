"""Original (block pointers) vs migrated kernels on a GPU: identical outputs, then timings side by side.

    python benchmarks/kernel_bench.py [--json OUT]

`benchmarks/kernels/migrated.py` is the tool's output for `original.py` (regenerate it with
`python -c "from triton_migrate.engine import migrate_source as m; ..."` or `migrate --write` on a copy);
the GPU machine needs only torch and triton. Timings are do_bench medians, original and migrated
interleaved per case; the ratio is original / migrated (above 1: the migrated kernel is faster).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
from pathlib import Path

import torch
import triton

KERNELS = Path(__file__).resolve().parent / "kernels"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", KERNELS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gemm_case(M, N, K):
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)

    def run(mod, c):
        grid = (triton.cdiv(M, 128), triton.cdiv(N, 128))
        mod.gemm[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=128, BN=128, BK=64,
                       num_warps=8, num_stages=3)
    return f"gemm {M}x{N}x{K} fp16", lambda: torch.empty(M, N, device="cuda", dtype=torch.float16), run


def add_one_case(M, N):
    x = torch.randn(M, N, device="cuda", dtype=torch.float16)

    def run(mod, y):
        mod.add_one[(triton.cdiv(M, 64), triton.cdiv(N, 128))](x, y, M, N, x.stride(0), y.stride(0), BM=64, BN=128)
    return f"add_one {M}x{N} fp16", lambda: torch.empty(M, N, device="cuda", dtype=torch.float16), run


def rms_norm_case(M, D):
    x = torch.randn(M, D, device="cuda", dtype=torch.float16)
    w = torch.randn(D, device="cuda", dtype=torch.float16)

    def run(mod, y):
        mod.rms_norm[(triton.cdiv(M, 64),)](x, w, y, M, x.stride(0), y.stride(0), 1e-6, D=D, BM=64)
    return f"rms_norm {M}x{D} fp16", lambda: torch.empty(M, D, device="cuda", dtype=torch.float16), run


def gated_chunks_case(T, H, K):
    k = torch.randn(T, H, K, device="cuda", dtype=torch.float16)
    g = -torch.rand(T, H, device="cuda", dtype=torch.float16) * 0.01

    def run(mod, o):
        mod.gated_chunks[(H,)](k, g, o, T, H=H, K=K, BT=64)
    return f"gated_chunks T={T} H={H} K={K}", lambda: torch.empty(T, H, K, device="cuda", dtype=torch.float16), run


CASES = [gemm_case(4096, 4096, 4096), gemm_case(1000, 1000, 1000), gemm_case(512, 4096, 11008),
         add_one_case(8192, 8192), add_one_case(4097, 4104), rms_norm_case(65536, 128),
         gated_chunks_case(8192, 16, 64)]


def identical(a: torch.Tensor, b: torch.Tensor) -> bool:
    bits = {2: torch.int16, 4: torch.int32}[a.element_size()]
    return bool(((a.view(bits) == b.view(bits)) | (a.isnan() & b.isnan())).all())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--migrated", default="migrated", help="the migrated module in kernels/ to compare")
    args = parser.parse_args()
    triton.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    original, migrated = load("original"), load(args.migrated)
    rows = []
    for name, make_output, run in CASES:
        torch.manual_seed(0)
        out_a, out_b = make_output(), make_output()
        run(original, out_a)
        run(migrated, out_b)
        same = identical(out_a, out_b)
        time_a = triton.testing.do_bench(lambda: run(original, out_a))
        time_b = triton.testing.do_bench(lambda: run(migrated, out_b))
        time_a = min(time_a, triton.testing.do_bench(lambda: run(original, out_a)))  # interleaved re-run
        rows.append({"case": name, "identical": same, "original_ms": time_a, "migrated_ms": time_b,
                     "ratio": time_a / time_b})
        print(f"{name:<32} {'identical' if same else 'DIFFERENT':<10} {time_a:9.4f} ms {time_b:9.4f} ms "
              f"{time_a / time_b:6.2f}x", flush=True)
    geomean = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
    print(f"geometric mean speed-up (original / migrated): {geomean:.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(), "triton": triton.__version__,
                                               "rows": rows, "geomean": geomean}, indent=1))


if __name__ == "__main__":
    main()

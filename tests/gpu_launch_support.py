"""The launch support on a CUDA GPU, where the interpreter cannot show it: a guarded kernel that takes
descriptors gets its scratch memory from `_triton_launch._scratch` on the default stream, on a stream of its
own, and inside a CUDA graph being captured (which must get memory of its own, kept by the graph, not the
buffer later launches reuse); each result bit for bit the block-pointer original's.

    python tests/gpu_launch_support.py          # exit 1 on any difference; prints one line per case
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from run_suite import load  # noqa: E402

sys.path.insert(0, str(BENCHMARKS / "kernels"))
import _triton_launch as support  # noqa: E402


def gemm(module, a, b, stream=None):
    c = torch.full((64, 64), float("nan"), device="cuda", dtype=torch.float16)
    with torch.cuda.stream(stream or torch.cuda.current_stream()):
        module.gemm[(1, 1)](a, b, c, 64, 64, 64, a.stride(0), b.stride(0), c.stride(0), BM=64, BN=64, BK=64)
    return c


def main() -> int:
    original, migrated = load("original"), load("migrated")
    a, b = (torch.randn(64, 64, device="cuda", dtype=torch.float16) for _ in range(2))
    expected = gemm(original, a, b)
    assert migrated.gemm.decide(a, b, None, 64, 64, 64, 64, 64, 64, 64, 64, 64), "the case must take descriptors"
    failures = 0

    def report(case, got, extra=True):
        nonlocal failures
        torch.cuda.synchronize()
        same = torch.equal(got.view(torch.int16), expected.view(torch.int16)) and extra
        failures += not same
        print(f"{'identical' if same else 'DIFFERS':<10} {case}")

    report("default stream", gemm(migrated, a, b))
    cached = dict(support._buffers)
    side = torch.cuda.Stream()
    report("stream of its own", gemm(migrated, a, b, side))
    graph, captured_on = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    side_buffers = dict(support._buffers)
    with torch.cuda.graph(graph, stream=captured_on):
        c = gemm(migrated, a, b, captured_on)
    c.fill_(float("nan"))
    graph.replay()
    # capture took memory of its own: the buffers later launches share are the ones from before it
    report("CUDA graph, captured and replayed", c, support._buffers == side_buffers)
    report("default stream after the graph", gemm(migrated, a, b), support._buffers.items() >= cached.items())
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

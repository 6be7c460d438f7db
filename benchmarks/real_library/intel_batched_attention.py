"""Intel's batched flash-attention benchmark, as its repository has it and as `migrate --write` writes it,
run side by side on a GPU: the same outputs, bit for bit, and each one's time.

    python benchmarks/real_library/intel_batched_attention.py ORIGINAL.py MIGRATED.py [--rounds 5]

The file is intel-xpu-backend-for-triton's `benchmarks/triton_kernels_benchmark/
batched_flash_attention_benchmark.py` at 915d706a4c (the corpus's pin). Its kernel loads through tensor
descriptors and stores the log-sum-exp `l` of each row through a rank-1 block pointer handed to `store_if`;
beside it, `load_if` is a helper nothing calls. The migration passes the block pointer to `store_if` as its
parts (TTD008), masks the store (TTD006) and removes `load_if` (TTD011). Its `batched_attention` returns only
the output, so this launches the kernel itself, as `batched_attention` does, to read `l` too, into a buffer
filled with NaN: a row the store should not touch shows. Segments of odd lengths (multiples of 2 tokens,
so that every descriptor's base stays 16-byte aligned, as the TMA requires), causal and not, with each of the
autotuner's configurations in turn.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import statistics
import sys
import types

import torch
import triton


def load(path: str, name: str):
    """The module at `path`; the benchmark suite it imports is only used by its `get_benchmark`."""
    sys.modules.setdefault("triton_kernels_benchmark", types.ModuleType("triton_kernels_benchmark"))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def case(lengths: list[int], heads: int, dim: int, seed: int) -> dict:
    generator = torch.Generator().manual_seed(seed)
    total = sum(lengths)
    bounds = torch.tensor([0, *lengths]).cumsum(0).to(torch.int32).cuda()
    bitmap = torch.zeros(total, dtype=torch.int64)
    bitmap[bounds[:-1].cpu().long()] = 1
    q, k, v = (torch.randn((total, heads, dim), generator=generator).half().cuda() for _ in range(3))
    return {"q": q, "k": k, "v": v, "bitmap": bitmap.cuda(), "bounds": bounds, "max_len": max(lengths)}


def run(module, inputs: dict, mask_opt: int) -> tuple[torch.Tensor, torch.Tensor]:
    q, k, v, bounds = inputs["q"], inputs["k"], inputs["v"], inputs["bounds"]
    total, heads, dim = q.shape
    o = torch.full_like(q, float("nan"))
    lse = torch.full((total, heads), float("nan"), device="cuda")

    def grid(meta):
        return triton.cdiv(inputs["max_len"], meta["BLOCK_M"]), heads, bounds.numel() - 1

    module.fa_fwd_kernel[grid](q, k, v, o, lse, inputs["bitmap"], inputs["bitmap"], bounds, bounds, heads, heads,
                               0.125, QK_DIM=dim, V_DIM=dim, MASK_FN=mask_opt, SPARSE_OPT=False)
    return o, lse


def pinned(module, config) -> None:
    """The kernel's autotuner left with one configuration: both files are timed with the same one, not each
    with the configuration its own tuning happened to pick."""
    module.fa_fwd_kernel.configs = [config]
    module.fa_fwd_kernel.cache.clear()


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return torch.equal(a.view(torch.int16 if a.element_size() == 2 else torch.int32),
                       b.view(torch.int16 if b.element_size() == 2 else torch.int32))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("original")
    parser.add_argument("migrated")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    modules = {"original": load(args.original, "original_fa"), "migrated": load(args.migrated, "migrated_fa")}
    configs = list(modules["original"].fa_fwd_kernel.configs)
    failures = 0
    for lengths, heads, dim in [([100, 36, 260, 2, 514], 4, 64), ([1000, 998, 30], 8, 64), ([4096, 2050], 8, 128)]:
        inputs = case(lengths, heads, dim, seed=sum(lengths))
        for mask_opt, config in itertools.product((0, 1), configs):
            for module in modules.values():
                pinned(module, config)
            outputs = {name: run(module, inputs, mask_opt) for name, module in modules.items()}
            same = all(same_bits(a, b) for a, b in zip(outputs["original"], outputs["migrated"]))
            times = {name: [] for name in modules}
            for _ in range(args.rounds):  # interleaved, so that a slow moment of the GPU costs both alike
                for name, module in modules.items():
                    times[name].append(triton.testing.do_bench(lambda m=module, i=inputs, f=mask_opt: run(m, i, f)))
            ratio = statistics.median(times["original"]) / statistics.median(times["migrated"])
            print(f"lengths={lengths} heads={heads} dim={dim} MASK_FN={mask_opt} {config}: bit-identical {same}, "
                  f"original {statistics.median(times['original']):.4f} ms, migrated "
                  f"{statistics.median(times['migrated']):.4f} ms ({ratio:.3f}x)", flush=True)
            failures += not same
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

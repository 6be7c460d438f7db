"""Each autotuning config of fla_ptx.py's first three kernels, and of the old chunked cumsum (issue 49), timed
on the GPU in several copies of fla (an experiment, not a test; it needs a GPU).

    python benchmarks/experiments/fla_config_times.py ORIGINAL_TREE MIGRATED_TREE... [--rounds 2]

fla's ops autotune every kernel in each tree's own process, so an op's kernel in two trees runs the same
code only where both picked the same config; a kernel slower in one tree is then the code's or the pick's.
This launches each config of each kernel with the inputs of the ops at B=2 T=1000 H=8 D=128 (bf16, fp32
gates) and times it with triton.testing.do_bench (median, L2 flushed before each run), per tree, so that the
code's share is seen config by config (the cumsum: at B=1 H=16, the varlen batch of kernel_times.py, in
trees whose fla/ops/utils/cumsum.py is 9406930f^'s: make_trees.py --file-from). Phases: every config is
compiled into Triton's cache by --jobs processes per tree at once (compiling needs the CPUs), then --rounds
rounds time every config, one tree at a time, the trees' order rotating.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from fla_ptx import FIRST_THREE, KERNELS, chosen, kernel_and_configs, label

B, T, H, D, BT = 2, 1000, 8, 128, 64
NT = -(-T // BT)
# the old cumsum's varlen batch (issue 49: S=100 ran at 0.54x there): kernel_times.py's, 16 heads
LENGTHS, CUMSUM_HEADS = (1111, 77, 2047, 861), 16


def inputs(name: str) -> dict:
    """The kernel's tensor arguments as the op passes them at B, T, H, D."""
    import torch

    generator = torch.Generator(device="cuda").manual_seed(0)

    def randn(*size, dtype=torch.bfloat16):
        return torch.randn(size, generator=generator, device="cuda").to(dtype)

    if name.startswith("chunk_global_cumsum_vector_kernel"):
        s = torch.randn(1, sum(LENGTHS), CUMSUM_HEADS, KERNELS[name]["constexprs"]["S"], generator=generator,
                        device="cuda")
        return {"s": s, "o": torch.empty_like(s),
                "cu_seqlens": torch.tensor([0, *LENGTHS], device="cuda").cumsum(0)}
    gate = -torch.rand(B, T, H, generator=generator, device="cuda")  # a chunk-local cumsum of log decays
    if name == "chunk_gated_delta_rule_fwd_kkt_solve_kernel":
        return {"k": randn(B, T, H, D), "g": gate, "beta": randn(B, T, H).sigmoid(),
                "A": torch.zeros(B, T, H, BT, device="cuda", dtype=torch.bfloat16)}
    if name == "chunk_fwd_kernel_o":
        return {"q": randn(B, T, H, D), "k": randn(B, T, H, D), "v": randn(B, T, H, D),
                "h": randn(B, NT, H, D, D) * 0.05, "g": gate, "o": randn(B, T, H, D), "scale": D ** -0.5}
    return {"k": randn(B, T, H, D), "v": randn(B, T, H, D), "h": randn(B, NT, H, D, D), "g": gate}


def grid(name: str, config) -> tuple:
    if name.startswith("chunk_global_cumsum_vector_kernel"):
        constexprs = KERNELS[name]["constexprs"]
        return (-(-constexprs["S"] // constexprs["BS"]), len(LENGTHS) * CUMSUM_HEADS)
    if name == "chunk_gated_delta_rule_fwd_kkt_solve_kernel":
        return (NT, B * H)
    if name == "chunk_fwd_kernel_o":
        return (-(-D // config.kwargs["BV"]), NT, B * H)
    return (-(-D // config.kwargs["BK"]), -(-D // config.kwargs["BV"]), B * H)


def launches(kernels: list[str], configs: str):
    """(kernel, config index, config, a function that launches it) for each config of each kernel."""
    for name in kernels:
        fn, tuned = kernel_and_configs(name)
        arguments = {arg: None for arg in fn.arg_names} | inputs(name) | {"T": T} | KERNELS[name]["constexprs"]
        for index in chosen(tuned, configs):
            config = tuned[index]
            launch_grid = grid(name, config)
            yield name, index, config, lambda fn=fn, g=launch_grid, c=config: fn[g](
                **(arguments | c.kwargs), num_warps=c.num_warps, num_stages=c.num_stages)


def worker(tree: Path, kernels: list[str], configs: str, part: str | None) -> None:
    """Compile the configs of this part ("i/n": every n-th from the i-th), or time every config."""
    sys.path.insert(0, str(tree))
    import torch
    from triton.testing import do_bench

    every, start = (int(part.split("/")[1]), int(part.split("/")[0])) if part else (1, 0)
    for position, (name, index, config, launch) in enumerate(launches(kernels, configs)):
        if position % every != start:
            continue
        launch()
        torch.cuda.synchronize()
        if part is None:
            ms = do_bench(launch, warmup=10, rep=40, return_mode="median")
            print(json.dumps({"kernel": name, "index": index, "config": label(config), "us": ms * 1000}), flush=True)


def run(tree: Path, args: argparse.Namespace, part: str | None = None) -> subprocess.Popen:
    command = [sys.executable, __file__, str(tree), "--worker", "--kernels", args.kernels, "--configs", args.configs]
    return subprocess.Popen(command + (["--part", part] if part else []), stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path, help="fla checkouts; ratios are to the first")
    parser.add_argument("--kernels", default=",".join(FIRST_THREE),
                        help="comma-separated, of fla_ptx.py's first three and its two cumsum entries")
    parser.add_argument("--configs", default="all", help="indices into each kernel's autotuning configs")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=8, help="compiling processes per tree")
    parser.add_argument("--json", type=Path, help="also write every time here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--part", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.trees[0].resolve(), args.kernels.split(","), args.configs, args.part)
        return
    compiling = [run(tree, args, f"{i}/{args.jobs}") for tree in args.trees for i in range(args.jobs)]
    if any(process.wait() for process in compiling):
        sys.exit("a compiling worker failed")
    times: dict[tuple, dict[str, list[float]]] = {}
    for round_ in range(args.rounds):
        order = args.trees[round_ % len(args.trees):] + args.trees[:round_ % len(args.trees)]
        for tree in order:
            process = run(tree, args)
            for line in filter(lambda line: line.startswith("{"), process.stdout):  # not a library's print
                found = json.loads(line)
                times.setdefault((found["kernel"], found["config"]), {}).setdefault(tree.name, []).append(found["us"])
            if process.wait():
                sys.exit(f"{tree}: the timing worker failed")
        report(times, [tree.name for tree in args.trees], round_ + 1)  # after every round: a run cut short
        if args.json:  # still leaves one
            args.json.write_text(json.dumps([{"kernel": k, "config": c, "us": t} for (k, c), t in times.items()]))


def report(times: dict, names: list[str], rounds: int) -> None:
    print(f"\nafter round {rounds}: µs, the fastest round, and the first tree's time / each other's", flush=True)
    for (kernel, config), per_tree in times.items():
        if any(name not in per_tree for name in names):
            continue
        fastest = {name: min(per_tree[name]) for name in names}
        ratios = " ".join(f"{fastest[names[0]] / fastest[name]:.3f}" for name in names[1:])
        cells = " ".join(f"{name[:10]} {fastest[name]:7.1f}" for name in names)
        print(f"{kernel[:43]:43} {config[:34]:34} {cells}  {ratios}", flush=True)


if __name__ == "__main__":
    main()

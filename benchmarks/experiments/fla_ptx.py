"""What three of flash-linear-attention's kernels compile to on NVIDIA sm_90 in several copies of fla (an
experiment, not a test; it needs no GPU).

    python benchmarks/experiments/fla_ptx.py ORIGINAL_TREE MIGRATED_TREE...   # fla checkouts (their roots)
    PYTHONPATH=.triton36 python benchmarks/experiments/fla_ptx.py ...         # with the GPU machine's Triton

On the H100 (Triton 3.6) fla at 7e46dffc migrated by the default policy ran three kernels slower than the
block-pointer original at T=1000 B=2 H=8 D=128 (results/fla-ops-t1000-h100-triton3.6-past640-kernels.txt):
chunk_gated_delta_rule_fwd_kkt_solve_kernel 0.845x, chunk_fwd_kernel_o with gates 0.883x, chunk_fwd_kernel_h
of chunk_simple_gla 0.916x. This compiles them from each tree as those ops launch them there (bf16 tensors,
fp32 gates, the launch's constexprs, 16-byte aligned pointers, every autotuning config or --configs of them)
and prints, per kernel, config and tree, what ptx_compare.py counts plus the binary's registers, spills
(local memory) and SASS instruction count, read from the cubin with the cuobjdump Triton ships.
Each tree is compiled in a process of its own, as the trees share the package name `fla`. Issue 49's slow
kernels are here too (the entries after the first three): the old chunked cumsum, chunk_gla_fwd_kernel_o,
KDA's inter_solve_fused on both paths, KDA's gate cumsum and the chunked cumsum of its gates
(results/default-form-registers-2026-12-05.txt).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

BF16, FP32 = "*bf16", "*fp32"


def old_cumsum(width: int) -> dict:
    """9406930f^'s chunk_global_cumsum_vector_kernel over S=width columns, as its varlen launch compiles it."""
    return {
        "function": "chunk_global_cumsum_vector_kernel",
        "module": "fla.ops.utils.cumsum",
        "types": {"s": FP32, "o": FP32, "cu_seqlens": "*i64", "T": "i32"},
        "constexprs": {"B": 1, "H": 16, "S": width, "BS": 32, "REVERSE": False, "HAS_SCALE": False,
                       "IS_VARLEN": True, "HEAD_FIRST": False},
        "globals": {},
    }


def inter_solve_fused(safe_gate: bool) -> dict:
    """KDA's chunk_kda_fwd_kernel_inter_solve_fused (fla/ops/kda/chunk_intra.py), on its fused or safe-gate path."""
    return {
        "function": "chunk_kda_fwd_kernel_inter_solve_fused",
        "module": "fla.ops.kda.chunk_intra",
        "types": {"q": BF16, "k": BF16, "g": FP32, "beta": BF16, "Aqk": BF16, "Akkd": FP32, "Akk": BF16,
                  "scale": "fp32", "T": "i32"},
        "constexprs": {"H": 16, "HV": 16, "K": 128, "BT": 64, "BC": 16, "NC": 4, "USE_SAFE_GATE": safe_gate,
                       "IS_VARLEN": False},
        "globals": {"SOLVE_TRIL_DOT_PRECISION": "tf32"},
    }


# kernel -> module, argument types (absent: constexpr None), constexprs of the launch, module globals the GPU's
# capability sets at import (fla imports on a machine without one as for a CPU), and where the capability
# also picks the autotuning configs, the H100's (chunk_h.py's BKV_LIST: [32, 64] where check_shared_mem())
KERNELS = {
    "chunk_gated_delta_rule_fwd_kkt_solve_kernel": {
        "module": "fla.ops.gated_delta_rule.chunk_fwd",
        "types": {"k": BF16, "g": FP32, "beta": BF16, "A": BF16, "T": "i32"},
        "constexprs": {"H": 8, "HV": 8, "K": 128, "BT": 64, "BC": 16, "USE_G": True, "IS_VARLEN": False},
        "globals": {"SOLVE_TRIL_DOT_PRECISION": "tf32"},
    },
    "chunk_fwd_kernel_o": {
        "module": "fla.ops.common.chunk_o",
        "types": {"q": BF16, "k": BF16, "v": BF16, "h": BF16, "g": FP32, "o": BF16, "scale": "fp32", "T": "i32"},
        "constexprs": {"H": 8, "HV": 8, "K": 128, "V": 128, "BT": 64, "USE_G": True, "USE_G_GAMMA": False,
                       "STATE_V_FIRST": False, "IS_VARLEN": False},
        "globals": {},
    },
    "chunk_fwd_kernel_h": {
        "module": "fla.ops.common.chunk_h",
        "types": {"k": BF16, "v": BF16, "h": BF16, "g": FP32, "T": "i32"},
        "constexprs": {"H": 8, "K": 128, "V": 128, "BT": 64, "BS": 64, "USE_G": True, "USE_G_GAMMA": False,
                       "USE_GK": False, "USE_GV": False, "USE_INITIAL_STATE": False, "STORE_FINAL_STATE": False,
                       "IS_VARLEN": False, "STATE_V_FIRST": False},
        "globals": {},
        "configs": [({"BK": bk, "BV": bv}, warps, stages) for bk in (32, 64) for bv in (32, 64)
                    for warps in (1, 2, 4, 8) for stages in (2, 3, 4)],
    },
    # issue 49's slow kernels (an entry named otherwise names its kernel in "function"): fla's old chunked
    # cumsum (as a triangular tl.dot; 9406930f^'s fla/ops/utils/cumsum.py, a tree of it: see RESULTS.md) at
    # the head dim where the default form ran 0.54x and the one where it ran 1.12x
    **{f"chunk_global_cumsum_vector_kernel.S{width}": old_cumsum(width) for width in (100, 128)},
    "chunk_gla_fwd_kernel_o": {
        "module": "fla.ops.gla.chunk",
        "types": {"q": BF16, "v": BF16, "g": FP32, "h": BF16, "o": BF16, "A": FP32, "cu_seqlens": "*i64",
                  "chunk_indices": "*i64", "scale": "fp32", "T": "i32"},
        "constexprs": {"H": 16, "HV": 16, "K": 128, "V": 128, "BT": 64, "STATE_V_FIRST": False, "IS_VARLEN": True},
        "globals": {},
    },
    **{f"chunk_kda_fwd_kernel_inter_solve_fused{suffix}": inter_solve_fused(safe) for suffix, safe in
       (("", False), (".safe_gate", True))},
    # KDA's gate cumsum (fla/ops/kda/gate.py, the gate fused in: dt_bias, no scale) and the plain chunked
    # cumsum of its gates (fla/ops/utils/cumsum.py), varlen; configs: the H100's BS_LIST, as the GPU imports them
    "kda_gate_chunk_cumsum_vector_kernel": {
        "module": "fla.ops.kda.gate",
        "types": {"s": BF16, "A_log": FP32, "dt_bias": FP32, "o": FP32, "cu_seqlens": "*i64",
                  "chunk_indices": "*i64", "T": "i32"},
        "constexprs": {"H": 16, "S": 128, "BT": 64, "REVERSE": False, "HAS_BIAS": True, "HAS_SCALE": False,
                       "IS_VARLEN": True, "USE_LOWER_BOUND": False},
        "globals": {},
        "configs": [({"BS": bs}, warps, 3) for bs in (32, 64) for warps in (2, 4, 8)],
    },
    "chunk_local_cumsum_vector_kernel": {
        "module": "fla.ops.utils.cumsum",
        "types": {"s": FP32, "o": FP32, "cu_seqlens": "*i64", "chunk_indices": "*i64", "T": "i32"},
        "constexprs": {"B": 1, "H": 16, "S": 128, "BT": 64, "REVERSE": False, "HAS_SCALE": False,
                       "IS_VARLEN": True, "HEAD_FIRST": False},
        "globals": {},
        "configs": [({"BS": bs}, warps, 3) for bs in (32, 64) for warps in (2, 4, 8)],
    },
}

# the kernels of the experiment as first written (fla_config_times.py makes inputs for these only)
FIRST_THREE = ("chunk_gated_delta_rule_fwd_kkt_solve_kernel", "chunk_fwd_kernel_o", "chunk_fwd_kernel_h")


def jit_function(launcher):
    """The triton.jit function under fla's heuristics and autotuner wrappers, and the autotuner's configs."""
    from triton.runtime.autotuner import Autotuner, Heuristics

    configs = None
    while isinstance(launcher, (Autotuner, Heuristics)):
        configs = getattr(launcher, "configs", configs)
        launcher = launcher.fn
    return launcher, configs


def kernel_and_configs(name: str):
    """The kernel's triton.jit function, imported from the fla on sys.path, and its autotuning configs."""
    import importlib

    import triton
    import triton.language as tl

    spec = KERNELS[name]
    module = importlib.import_module(spec["module"])
    for key, value in spec["globals"].items():
        setattr(module, key, tl.constexpr(value))
    fn, tuned = jit_function(getattr(module, spec.get("function", name)))
    if "configs" in spec:
        tuned = [triton.Config(kwargs, num_warps=warps, num_stages=stages) for kwargs, warps, stages in spec["configs"]]
    return fn, tuned


def chosen(tuned: list, configs: str) -> list[int]:
    return list(range(len(tuned))) if configs == "all" else [int(i) for i in configs.split(",")]


def label(config) -> str:
    return f"{config.kwargs} w{config.num_warps} s{config.num_stages}"


def ctas_per_sm(registers: int, shared: int, warps: int) -> int:
    """How many CTAs an sm_90 SM holds at once: 64K registers allocated per warp in units of 256, 228 KiB of
    shared memory with 1 KiB reserved per CTA, 64 warps, 32 CTAs."""
    per_warp = -(-registers * 32 // 256) * 256
    return min(65536 // (per_warp * warps), 233472 // (shared + 1024), 64 // warps, 32)


def binary(cubin: bytes, bin_dir: Path) -> dict[str, int]:
    """Registers, local memory (spills) and SASS instructions of the kernel in a cubin."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as file:
        file.write(cubin)
        file.flush()
        usage = subprocess.run([bin_dir / "cuobjdump", "-res-usage", file.name], capture_output=True,
                               text=True, check=True).stdout
        sass = subprocess.run([bin_dir / "cuobjdump", "-sass", file.name], capture_output=True, text=True,
                              check=True).stdout
    found = dict(re.findall(r"\b(REG|LOCAL):(\d+)", usage))
    return {"registers": int(found["REG"]), "local bytes": int(found["LOCAL"]),
            "SASS": len(re.findall(r"^\s+/\*[0-9a-f]{4}\*/\s", sass, re.MULTILINE))}


def compile_tree(tree: Path, kernels: list[str], configs: str, dump: Path | None) -> None:
    """Worker: compile the kernels from one tree, one JSON line per (kernel, config); their IR into dump."""
    sys.path.insert(0, str(tree))
    sys.path.insert(0, str(HERE))
    import triton
    from ptx_compare import summary
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    bin_dir = Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
    for name in kernels:
        spec = KERNELS[name]
        fn, tuned = kernel_and_configs(name)
        for index in chosen(tuned, configs):
            config = tuned[index]
            constexprs = {**spec["constexprs"], **config.kwargs}
            position = {arg: i for i, arg in enumerate(fn.arg_names)}
            signature = {arg: spec["types"].get(arg, "constexpr") for arg in fn.arg_names}
            values = {(position[arg],): constexprs.get(arg) for arg in fn.arg_names if signature[arg] == "constexpr"}
            aligned = {(position[arg],): [["tt.divisibility", 16]] for arg, kind in spec["types"].items()
                       if kind.startswith("*")}
            source = ASTSource(fn=fn, signature=signature, constexprs=values, attrs=aligned)
            kernel = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                                    options={"num_warps": config.num_warps, "num_stages": config.num_stages})
            found = summary(kernel)
            found.pop("sm_90 binary")
            found["async copies"] = dict(sorted(collections.Counter(
                re.findall(r"\bcp\.async\.c[ag]\.shared\.global \[[^]]*\], \[[^]]*\], (\w+)",
                           kernel.asm["ptx"])).items()))
            found.update(binary(kernel.asm["cubin"], bin_dir), shared=kernel.metadata.shared)
            found["CTAs/SM"] = ctas_per_sm(found["registers"], found["shared"], config.num_warps)
            if dump:
                for stage in ("ttir", "ttgir", "llir", "ptx"):
                    (dump / f"{tree.name}-{name}-{index}.{stage}").write_text(kernel.asm[stage])
            print(json.dumps({"kernel": name, "config": label(config), **found}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path, help="fla checkouts; the first is the reference")
    parser.add_argument("--kernels", default=",".join(FIRST_THREE), help="comma-separated, of KERNELS")
    parser.add_argument("--configs", default="all", help="indices into each kernel's autotuning configs")
    parser.add_argument("--dump", type=Path, help="a folder to write each compilation's IR and PTX into")
    parser.add_argument("--verbose", action="store_true", help="also the PTX's loads, stores and 64-bit operations")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    kernels = args.kernels.split(",")
    if args.worker:
        compile_tree(args.trees[0].resolve(), kernels, args.configs, args.dump)
        return
    import triton

    print(f"triton {triton.__version__}, sm_90")
    results = {}
    for tree in args.trees:
        out = subprocess.run([sys.executable, __file__, str(tree), "--worker", "--kernels", args.kernels,
                              "--configs", args.configs] + (["--dump", str(args.dump)] if args.dump else []),
                             capture_output=True, text=True,
                             env={**os.environ, "PYTHONWARNINGS": "ignore"})
        if out.returncode:
            sys.exit(f"{tree}: {out.stderr[-3000:]}")
        results[tree] = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    print(f"{'kernel':43} {'config':34} {'tree':10} {'regs':>4} {'local':>5} {'smem':>6} {'CTAs/SM':>7} {'SASS':>5} "
          f"{'PTX':>5}  PTX classes")
    for row, first in enumerate(results[args.trees[0]]):
        for tree in args.trees:
            found = results[tree][row]
            classes = {k: v for k, v in found.items() if isinstance(v, dict)}
            print(f"{first['kernel'][:43]:43} {first['config'][:34]:34} {tree.name[:10]:10} {found['registers']:4} "
                  f"{found['local bytes']:5} {found['shared']:6} {found['CTAs/SM']:7} {found['SASS']:5} "
                  f"{found['instructions']:5}  "
                  + (json.dumps(classes) if args.verbose else ""))


if __name__ == "__main__":
    main()

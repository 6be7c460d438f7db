"""Which operation rounds differently when a load becomes a tensor descriptor (an experiment, not a test; the
compile part needs no GPU).

    python benchmarks/experiments/descriptor_dot_bits.py minimal                  # small kernels, both forms
    python benchmarks/experiments/descriptor_dot_bits.py fla ORIGINAL MIGRATED    # fla checkouts (their roots)
    PYTHONPATH=.triton36 python benchmarks/experiments/descriptor_dot_bits.py ... # the GPU machine's Triton
    python benchmarks/experiments/descriptor_dot_bits.py minimal --device cuda    # run them: differing elements

On the H100 (Triton 3.6) fla's KDA intra-chunk kernels migrated with `assume = ["aligned"]` (descriptors)
differ from the block-pointer original at rounding level; migrated by default (masked pointers) they are
identical. The compile part compiles kernels for sm_90 in both forms and attributes every floating-point
instruction of the PTX (fma, mul, add, mma/wgmma, cvt.rna.tf32, shuffles of a reduction) to the source
statement it comes from (PTX `.loc`, inlined calls to their outermost line): a statement whose instruction
mix differs between the forms is one that rounds differently; one whose counts only scale is computed in
another layout (replicated elements), the same values. `minimal` does it for small kernels that load tiles
both ways (one helper, `_tile`, picks the form) and feed them to `tl.dot` (fp32 tf32/ieee, bf16, after
elementwise ops, through `tl.trans`), to a `tl.sum` of a product with a dot's result, to a dot's epilogue.
`--device cuda` runs the same kernels on random data both ways and counts the elements that differ.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import triton
import triton.language as tl

HERE = Path(__file__).resolve().parent

# The floating-point instructions that decide rounding, and a reduction's shuffles (its tree).
ROUNDING = re.compile(r"^\s*(fma\.rn\.f32|mul(?:\.rn)?\.f32|add(?:\.rn)?\.f32|sub(?:\.rn)?\.f32|cvt\.rna\.tf32\.f32"
                      r"|mma\.sync\.\S+|wgmma\.mma_async\.\S+|shfl\.sync\.bfly\.b32|ex2\.approx\S*)\s")
LOC = re.compile(r"^\s*\.loc\s+\d+\s+\d+\s+\d+\s*//\s*(.*)")


def statement_keys(source: Path) -> dict[int, str]:
    """Line -> the simple statement around it, named by what it assigns and which such statement of the file
    it is (`b_db#0`), so that a statement keeps its name when a migration rewrites its loads and adds others."""
    keys, seen = {}, collections.Counter()
    simple = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)
    for node in sorted((n for n in ast.walk(ast.parse(source.read_text())) if isinstance(n, simple)),
                       key=lambda n: n.lineno):
        target = getattr(node, "target", None) or (node.targets[0] if isinstance(node, ast.Assign) else None)
        name = ast.unparse(target) if target is not None else type(node).__name__.lower()
        key = f"{name}#{seen[name]}"
        seen[name] += 1
        keys.update({line: key for line in range(node.lineno, node.end_lineno + 1)})
    return keys


def rounding_by_statement(ptx: str, source: Path) -> dict[str, collections.Counter]:
    """Statement -> its floating-point instructions in the PTX, counted by kind."""
    keys, found, where = statement_keys(source), collections.defaultdict(collections.Counter), None
    for line in ptx.splitlines():
        loc = LOC.match(line)
        if loc:
            mine = [int(n) for file, n in re.findall(r"([\w.]+\.py):(\d+):\d+", loc.group(1)) if file == source.name]
            where = keys.get(mine[-1]) if mine else None
        elif where and (op := ROUNDING.match(line)):
            found[where][op.group(1)] += 1
    return found


def differences(a: dict, b: dict) -> list[str]:
    """The statements whose instruction mix differs (`rounds`: another kind of instruction, or another number of
    a reduction's shuffles), only its counts (`layout`), or that have instructions in one form only (`moved`:
    the migration added a statement that assigns the same name before it, which numbers it on)."""
    rows = []
    for key in sorted(set(a) | set(b), key=lambda k: (k.split("#")[0], int(k.split("#")[1]))):
        if a.get(key) != b.get(key):
            kinds = set(a.get(key, {})) != set(b.get(key, {}))
            tree = a.get(key, {}).get("shfl.sync.bfly.b32") != b.get(key, {}).get("shfl.sync.bfly.b32")
            verdict = "moved" if not a.get(key) or not b.get(key) else "rounds" if kinds or tree else "layout"
            rows.append(f"    {verdict:6} {key:16} {dict(a.get(key, {}))}  ->  {dict(b.get(key, {}))}")
    return rows


# ---------------------------------------------------------------- minimal kernels

@triton.jit
def _tile(ptr, row, col, R, C, BR: tl.constexpr, BC: tl.constexpr, DESC: tl.constexpr):
    """The [BR, BC] tile at (row, col) of a row-major R x C tensor: a descriptor's load (TMA) or masked
    pointers' (zeros past the end either way)."""
    if DESC:
        tile = tl.make_tensor_descriptor(ptr, [R, C], [C, 1], [BR, BC]).load([row, col])
    else:
        rows = row + tl.arange(0, BR)
        cols = col + tl.arange(0, BC)
        tile = tl.load(ptr + rows[:, None] * C + cols[None, :], mask=(rows[:, None] < R) & (cols[None, :] < C),
                       other=0.0)
    return tile

@triton.jit
def _store(ptr, row, R, C, value, BR: tl.constexpr, BC: tl.constexpr):
    rows = row + tl.arange(0, BR)
    cols = tl.arange(0, BC)
    tl.store(ptr + rows[:, None] * C + cols[None, :], value, mask=(rows[:, None] < R) & (cols[None, :] < C))

@triton.jit
def dot_kernel(a_ptr, b_ptr, g_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               PRECISION: tl.constexpr, GATED: tl.constexpr, TRANS_B: tl.constexpr, DESC: tl.constexpr):
    """c[BM, N] = sum over K of a @ b, a gated by exp2(g) first (fla's `b_k * exp2(b_gn - b_gk)`) or not,
    b stored [N, K] and transposed or stored [K, N]."""
    row = tl.program_id(0) * BM
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in range(0, K, BK):
        a = _tile(a_ptr, row, k, M, K, BM, BK, DESC)
        if GATED:
            a = a * tl.exp2(_tile(g_ptr, row, k, M, K, BM, BK, DESC))
        if TRANS_B:
            b = tl.trans(_tile(b_ptr, 0, k, N, K, BN, BK, DESC))
        else:
            b = _tile(b_ptr, k, 0, K, N, BK, BN, DESC)
        acc += tl.dot(a, b, input_precision=PRECISION)
    _store(c_ptr, row, M, N, acc, BM, BN)

@triton.jit
def sum_kernel(a_ptr, b_ptr, g_ptr, x_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               DOT: tl.constexpr, DESC: tl.constexpr):
    """c[:M] = the row sums of y * x, c[M:] = y + x, where y = (a @ b) * exp2(g) (fla's `b_db = tl.sum(b_dk2 *
    b_k, 1)`: `b_dk2` a dot's result, gated, `b_k` a loaded tile that another statement reads too) or a * exp2(g)."""
    row = tl.program_id(0) * BM
    if DOT:
        y = tl.zeros([BM, BN], dtype=tl.float32)
        for k in range(0, K, BK):
            y += tl.dot(_tile(a_ptr, row, k, M, K, BM, BK, DESC), _tile(b_ptr, k, 0, K, N, BK, BN, DESC))
    else:
        y = _tile(a_ptr, row, 0, M, N, BM, BN, DESC)
    y *= tl.exp2(_tile(g_ptr, row, 0, M, N, BM, BN, DESC))
    x = _tile(x_ptr, row, 0, M, N, BM, BN, DESC)
    rows = row + tl.arange(0, BM)
    tl.store(c_ptr + rows, tl.sum(y * x, 1), mask=rows < M)
    _store(c_ptr + M, row, M, N, y + x, BM, BN)


@triton.jit
def epilogue_kernel(a_ptr, b_ptr, x_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr, DESC: tl.constexpr):
    """c = (a @ b) * x + a dot's result scaled and shifted by loaded tiles (fla's `b_dg2 += ... * b_k + dg`)."""
    row = tl.program_id(0) * BM
    y = tl.dot(_tile(a_ptr, row, 0, M, K, BM, BK, DESC), _tile(b_ptr, 0, 0, K, N, BK, BN, DESC),
               input_precision="ieee")
    x = _tile(x_ptr, row, 0, M, N, BM, BN, DESC)
    _store(c_ptr, row, M, N, y * x + x, BM, BN)


KERNELS = {"dot": dot_kernel, "sum": sum_kernel, "epilogue": epilogue_kernel}


# case -> kernel, dtype of the tiles, constexprs, num_warps. 16x32x16 with 4 warps: mma.sync (fla's BC=16 tiles);
# 64x64x64: wgmma.
CASES = {
    "dot fp32 tf32 mma": ("dot", "fp32", {"BM": 16, "BN": 32, "BK": 16, "PRECISION": "tf32"}, 4),
    "dot fp32 tf32 wgmma": ("dot", "fp32", {"BM": 64, "BN": 64, "BK": 64, "PRECISION": "tf32"}, 4),
    "dot fp32 ieee mma": ("dot", "fp32", {"BM": 16, "BN": 32, "BK": 16, "PRECISION": "ieee"}, 4),
    "dot bf16 wgmma": ("dot", "bf16", {"BM": 64, "BN": 64, "BK": 64, "PRECISION": "ieee"}, 4),
    "dot gated fp32 tf32 mma": ("dot", "fp32", {"BM": 16, "BN": 32, "BK": 16, "PRECISION": "tf32", "GATED": True}, 4),
    "dot gated fp32 tf32 wgmma": ("dot", "fp32", {"BM": 64, "BN": 64, "BK": 64, "PRECISION": "tf32", "GATED": True},
                                  4),
    "dot trans fp32 tf32 mma": ("dot", "fp32", {"BM": 16, "BN": 32, "BK": 16, "PRECISION": "tf32", "TRANS_B": True},
                                4),
    "dot trans bf16 wgmma": ("dot", "bf16", {"BM": 64, "BN": 64, "BK": 64, "PRECISION": "ieee", "TRANS_B": True}, 4),
    "sum of dot*tile mma": ("sum", "fp32", {"BM": 16, "BN": 32, "BK": 16, "DOT": True}, 4),
    "sum of dot*tile wgmma": ("sum", "fp32", {"BM": 64, "BN": 64, "BK": 64, "DOT": True}, 4),
    "sum of tile*tile": ("sum", "fp32", {"BM": 16, "BN": 32, "BK": 32, "DOT": False}, 4),
    "sum of tile*tile wide": ("sum", "fp32", {"BM": 64, "BN": 64, "BK": 64, "DOT": False}, 4),
    "epilogue mma": ("epilogue", "fp32", {"BM": 16, "BN": 32, "BK": 16}, 4),
}
DEFAULTS = {"PRECISION": "ieee", "GATED": False, "TRANS_B": False, "DOT": False}


def case_constexprs(fn, constexprs: dict, desc: bool) -> dict:
    return {name: value for name, value in {**DEFAULTS, **constexprs, "DESC": desc}.items() if name in fn.arg_names}


def compile_case(fn, dtype: str, constexprs: dict, warps: int, desc: bool):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    values = case_constexprs(fn, constexprs, desc)
    index = {name: i for i, name in enumerate(fn.arg_names)}
    signature = {name: "constexpr" if name in values else ("i32" if name in "MNK" else
                                                            ("*fp32" if name == "c_ptr" else f"*{dtype}"))
                 for name in fn.arg_names}
    aligned = {(index[n],): [["tt.divisibility", 16]] for n, kind in signature.items() if kind != "constexpr"}
    source = ASTSource(fn=fn, signature=signature, constexprs={(index[n],): v for n, v in values.items()},
                       attrs=aligned)
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})


def dot_layouts(ttgir: str) -> str:
    """How each dot's operands arrive: the ops that produce them (a local_load from shared memory that the TMA
    wrote, a register operand, ...), in brief."""
    dots = re.findall(r"= (tt\.dot|ttng\.warp_group_dot) ([^,]+), ([^,]+),", ttgir)
    producers = dict(re.findall(r"(%[\w#]+)(?::\d+)? = ([\w.]+)", ttgir))
    return "; ".join(f"{op.split('.')[-1]}({producers.get(a, '?')}, {producers.get(b, '?')})" for op, a, b in dots)


def minimal_compile() -> None:
    source = Path(__file__)
    for name, (kernel, dtype, constexprs, warps) in CASES.items():
        fn = KERNELS[kernel]
        forms = {desc: compile_case(fn, dtype, constexprs, warps, desc) for desc in (False, True)}
        ptx = {desc: k.asm["ptx"] for desc, k in forms.items()}
        instructions = {desc: sorted(set(re.findall(r"\b(mma\.sync\S+|wgmma\.mma_async\S+)", p)))
                        for desc, p in ptx.items()}
        rows = differences(rounding_by_statement(ptx[False], source), rounding_by_statement(ptx[True], source))
        print(f"{name}: {'same' if not rows else 'DIFFERENT'} rounding")
        print(f"    dot instructions: pointer {instructions[False]}  descriptor {instructions[True]}")
        print(f"    cvt.rna.tf32: pointer {ptx[False].count('cvt.rna.tf32')}  descriptor "
              f"{ptx[True].count('cvt.rna.tf32')}")
        print(f"    dot operands: pointer {dot_layouts(forms[False].asm['ttgir'])}")
        print(f"                  descriptor {dot_layouts(forms[True].asm['ttgir'])}")
        print("\n".join(rows))


def minimal_run(device: str) -> None:
    import torch

    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device=device))
    generator = torch.Generator(device=device).manual_seed(0)
    M = 4096
    for name, (kernel, dtype, constexprs, warps) in CASES.items():
        fn = KERNELS[kernel]
        N, K = constexprs["BN"], constexprs["BK"] * (1 if kernel == "epilogue" else 4)  # a loop over K, 4 steps
        torch_dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[dtype]
        shapes = {"a_ptr": (M, N) if kernel == "sum" and not constexprs["DOT"] else (M, K),
                  "b_ptr": (N, K) if constexprs.get("TRANS_B") else (K, N),
                  "g_ptr": (M, N) if kernel == "sum" else (M, K), "x_ptr": (M, N)}
        inputs = {arg: (torch.randn(shape, device=device, generator=generator) * 0.5).to(torch_dtype)
                  for arg, shape in shapes.items() if arg in fn.arg_names}
        out_shape = (M + M * N,) if kernel == "sum" else (M, N)
        results = {}
        for desc in (False, True):
            out = torch.empty(out_shape, device=device, dtype=torch.float32)
            fn[(triton.cdiv(M, constexprs["BM"]),)](**inputs, c_ptr=out, M=M, N=N, K=K,
                                                    **case_constexprs(fn, constexprs, desc), num_warps=warps)
            results[desc] = out
        differ = results[False] != results[True]
        print(f"{name}: {int(differ.sum())} of {differ.numel()} elements differ, max "
              f"{float((results[False] - results[True]).abs().max()):.3g}")


# ---------------------------------------------------------------- fla's KDA kernels

BF16, FP32 = "*bf16", "*fp32"
# kernel -> module, argument types, constexprs as chunk_kda launches them at H=HV=8, K=128, BT=64 (fp32 gates,
# fp32 dA and gradients; the H100's Triton has tl.gather)
KDA = {
    "chunk_kda_fwd_kernel_inter_solve_fused": (
        "fla.ops.kda.chunk_intra",
        {"q": BF16, "k": BF16, "g": FP32, "beta": BF16, "Aqk": BF16, "Akkd": FP32, "Akk": BF16, "scale": "fp32",
         "T": "i32"},
        {"H": 8, "HV": 8, "K": 128, "BT": 64, "BC": 16, "NC": 4, "IS_VARLEN": False, "USE_SAFE_GATE": False}),
    "chunk_kda_bwd_kernel_intra": (
        "fla.ops.kda.chunk_intra",
        {"q": BF16, "k": BF16, "g": FP32, "beta": BF16, "dAqk": FP32, "dAkk": FP32, "dq": FP32, "dq2": FP32,
         "dk": FP32, "dk2": FP32, "dg": FP32, "dg2": FP32, "db": FP32, "B": "i32", "T": "i32"},
        {"H": 8, "HV": 8, "K": 128, "BT": 64, "BC": 16, "BK": 32, "NC": 4, "IS_VARLEN": False, "SAFE_GATE": False,
         "USE_GATHER": True}),
    "chunk_kda_fwd_kernel_intra_sub_chunk": (
        "fla.ops.kda.chunk_intra",
        {"q": BF16, "k": BF16, "g": FP32, "beta": BF16, "Aqk": BF16, "Akk": FP32, "scale": "fp32", "T": "i32"},
        {"H": 8, "HV": 8, "K": 128, "BT": 64, "BC": 16, "BK": 128, "IS_VARLEN": False, "USE_GATHER": True}),
    "chunk_kda_fwd_kernel_intra_token_parallel": (
        "fla.ops.kda.chunk_intra_token_parallel",
        {"q": BF16, "k": BF16, "g": FP32, "beta": BF16, "Aqk": BF16, "Akk": FP32, "scale": "fp32", "N": "i32",
         "T": "i32"},
        {"H": 8, "HV": 8, "K": 128, "BT": 64, "BC": 16, "IS_VARLEN": False}),
}


def fla_worker(tree: Path, kernels: list[str], safe_gate: bool) -> None:
    """Compile the kernels from one tree, every autotuning config: one JSON line each, its statements' counts."""
    import importlib

    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    sys.path[:0] = [str(tree), str(HERE)]
    from fla_ptx import jit_function

    for name in kernels:
        module_name, types, constexprs = KDA[name]
        module = importlib.import_module(module_name)
        fn, configs = jit_function(getattr(module, name))
        flags = {"SAFE_GATE": safe_gate, "USE_SAFE_GATE": safe_gate}
        for index, config in enumerate(configs):
            values = {**constexprs, **{k: v for k, v in flags.items() if k in constexprs}, **config.kwargs}
            position = {arg: i for i, arg in enumerate(fn.arg_names)}
            signature = {arg: types.get(arg, "constexpr") for arg in fn.arg_names}
            source = ASTSource(fn=fn, signature=signature,
                               constexprs={(position[a],): values.get(a) for a in fn.arg_names
                                           if signature[a] == "constexpr"},
                               attrs={(position[a],): [["tt.divisibility", 16]] for a, t in types.items()
                                      if t.startswith("*")})
            kernel = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                                    options={"num_warps": config.num_warps, "num_stages": config.num_stages})
            found = rounding_by_statement(kernel.asm["ptx"], Path(module.__file__))
            print(json.dumps({"kernel": name, "config": f"{config.kwargs} w{config.num_warps} s{config.num_stages}",
                              "statements": found}), flush=True)


def fla_compare(trees: list[Path], kernels: list[str], safe_gate: bool) -> None:
    print(f"triton {triton.__version__}, sm_90, SAFE_GATE={safe_gate}")
    runs = []
    for tree in trees:
        out = subprocess.run([sys.executable, __file__, "fla", str(tree), "--worker", "--kernels", ",".join(kernels)]
                             + (["--safe-gate"] if safe_gate else []), capture_output=True, text=True,
                             env={**os.environ, "PYTHONWARNINGS": "ignore"})
        if out.returncode:
            sys.exit(f"{tree}: {out.stderr[-3000:]}")
        runs.append([json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")])
    for original, migrated in zip(*runs):
        rows = differences(original["statements"], migrated["statements"])
        rounds = [row for row in rows if row.lstrip().startswith("rounds")]
        print(f"{original['kernel']} {original['config']}: "
              + (f"{len(rounds)} statement(s) round differently" if rounds else "same rounding"))
        print("\n".join(rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=("minimal", "fla"))
    parser.add_argument("trees", nargs="*", type=Path, help="fla: the original checkout, then the migrated one")
    parser.add_argument("--device", help="minimal: run the kernels there (cuda) instead of compiling")
    parser.add_argument("--kernels", default=",".join(KDA), help="fla: comma-separated, of the four")
    parser.add_argument("--safe-gate", action="store_true", help="fla: compile with SAFE_GATE (chunk_kda's safe_gate)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part == "minimal":
        minimal_run(args.device) if args.device else minimal_compile()
    elif args.worker:
        fla_worker(args.trees[0].resolve(), args.kernels.split(","), args.safe_gate)
    else:
        fla_compare(args.trees, args.kernels.split(","), args.safe_gate)


if __name__ == "__main__":
    main()

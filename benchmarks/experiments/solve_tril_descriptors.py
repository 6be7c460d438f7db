"""fla's solve_tril kernels in several copies of fla: how many descriptors each kernel creates (no GPU), and how
long each kernel takes and whether its output is the original's bit for bit (a GPU; an experiment, not a test).

    python benchmarks/experiments/solve_tril_descriptors.py count TREE...
    python benchmarks/experiments/solve_tril_descriptors.py compiled TREE...
    python benchmarks/experiments/solve_tril_descriptors.py time ORIGINAL_TREE TREE... [--rounds 3]

`count` lists, per kernel of fla/ops/utils/solve_tril.py (or of --file), the descriptor calls
(`make_tensor_descriptor`, the tool's and fla's own) and the distinct (base, shape, strides, block shape,
padding) among them. `compiled` (no GPU; TRITON_INTERPRET unset) compiles the kernels of solve_tril.py for sm_90
with USE_TMA=False, read out of the file without importing fla, and prints how many descriptors each creates
(`ttng.tensormap_create` in its TTGIR) and its global scratch bytes: Triton merges identical creations of one
block itself. `time` launches solve_tril_16x16_kernel, merge_16x16_to_32x32_inverse_kernel and
merge_16x16_to_64x64_inverse_kernel of each tree, each tree in a process of its own (fla autotunes them), with
USE_TMA=False (the block pointers' branch, which the migration rewrote) and USE_TMA=True (fla's own TMA
branch, the same code in every tree) at B=8 T=8192 H=16 (fp32 A, a chunk-local strictly lower-triangular
matrix), and prints the median of triton.testing.do_bench per kernel and tree, --rounds times, trees rotating.
Each tree's output is compared with the original's, bit for bit.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from pathlib import Path

SOLVE_TRIL = "fla/ops/utils/solve_tril.py"
KERNELS = {16: "solve_tril_16x16_kernel", 32: "merge_16x16_to_32x32_inverse_kernel",
           64: "merge_16x16_to_64x64_inverse_kernel"}
B, T, H = 8, 8192, 16


def descriptor_calls(path: Path) -> dict[str, tuple[int, int]]:
    """Kernel -> (descriptor calls, distinct argument lists among them)."""
    found = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef):
            calls = [call for call in ast.walk(node) if isinstance(call, ast.Call) and
                     (getattr(call.func, "attr", None) or getattr(call.func, "id", None)) == "make_tensor_descriptor"]
            if calls:
                views = {ast.dump(ast.Tuple([*call.args, *(k.value for k in call.keywords)], ast.Load()))
                         for call in calls}
                found[node.name] = (len(calls), len(views))
    return found


def count(trees: list[str], file: str) -> None:
    for tree in trees:
        for kernel, (calls, views) in descriptor_calls(Path(tree) / file).items():
            print(f"{tree}\t{kernel}\t{calls} calls\t{views} distinct")


def compiled(trees: list[str]) -> None:
    import importlib.util
    import tempfile

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    signature = {"A": "*fp32", "Ai": "*fp32", "cu_seqlens": "*i32", "chunk_indices": "*i32", "T": "i32",
                 **{name: "constexpr" for name in ("H", "BT", "USE_TMA", "IS_VARLEN", "DOT_PRECISION")}}
    for tree in trees:
        kernels = [node for node in ast.parse((Path(tree) / SOLVE_TRIL).read_text()).body
                   if isinstance(node, ast.FunctionDef) and node.name in KERNELS.values()]
        for node in kernels:
            node.decorator_list = [ast.parse("triton.jit", mode="eval").body]
        source = "\n\n".join(["import triton", "import triton.language as tl",
                               "make_tensor_descriptor = tl.make_tensor_descriptor", *map(ast.unparse, kernels)])
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as file:  # @triton.jit reads its source
            file.write(source)
        spec = importlib.util.spec_from_file_location(f"solve_tril_{abs(hash(tree))}", file.name)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for BT, name in KERNELS.items():
            constants = {"H": H, "BT": BT, "USE_TMA": False, "IS_VARLEN": False, "DOT_PRECISION": "ieee"}
            kernel = triton.compile(ASTSource(getattr(module, name), signature, constexprs=constants),
                                    target=GPUTarget("cuda", 90, 32))
            print(f"{tree}\t{name}\t{kernel.asm['ttgir'].count('ttng.tensormap_create')} descriptors created\t"
                  f"{kernel.metadata.global_scratch_size} bytes of global scratch")


def measure(tree: str, out: str) -> None:
    """In a process of its own (`measure TREE OUT`): each kernel's median time per USE_TMA, printed, and its
    outputs, saved to `out`."""
    sys.path.insert(0, tree)
    import torch
    import triton
    from fla.ops.utils import solve_tril as module

    # fla's own TMA branch (USE_TMA=True) creates descriptors too: every tree gets the same allocator
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    torch.manual_seed(0)
    times, outputs = {}, {}
    for BT, name in KERNELS.items():
        kernel = getattr(module, name)
        rows = torch.arange(T, device="cuda") % BT  # each row's place in its chunk: A is strictly lower there
        strictly_lower = rows[:, None] > torch.arange(BT, device="cuda")[None, :]
        A = torch.randn(B, T, H, BT, device="cuda") * 0.1 * strictly_lower[None, :, None, :]
        for use_tma in (False, True):
            Ai = torch.zeros_like(A)

            def launch():
                kernel[(triton.cdiv(T, BT), B * H)](A=A, Ai=Ai, cu_seqlens=None, chunk_indices=None, T=T, H=H,
                                                   BT=BT, USE_TMA=use_tma)

            launch()  # autotune, compile
            times[f"{name} USE_TMA={use_tma}"] = triton.testing.do_bench(launch, return_mode="median")
            outputs[f"{name} USE_TMA={use_tma}"] = Ai.cpu()
    torch.save(outputs, out)
    print(json.dumps(times))


def timed(trees: list[str], rounds: int) -> None:
    import torch

    results: dict[str, dict[str, list[float]]] = {tree: {} for tree in trees}
    saved = {tree: f"/tmp/solve_tril_{i}.pt" for i, tree in enumerate(trees)}
    for round_ in range(rounds):
        for tree in trees[round_ % len(trees):] + trees[:round_ % len(trees)]:
            line = subprocess.run([sys.executable, __file__, "measure", tree, saved[tree]], check=True,
                                  capture_output=True, text=True).stdout.strip().splitlines()[-1]
            for key, value in json.loads(line).items():
                results[tree].setdefault(key, []).append(value)
    original = torch.load(saved[trees[0]])
    for tree in trees:
        outputs = torch.load(saved[tree])
        for key, times in results[tree].items():
            same = torch.equal(outputs[key].view(torch.int32), original[key].view(torch.int32))
            print(f"{tree}\t{key}\t{sorted(times)[len(times) // 2] * 1000:.1f} us\t"
                  f"{'bit-identical' if same else 'DIFFERS'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("count", "compiled", "time", "measure"))
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--file", default=SOLVE_TRIL)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.mode == "count":
        count(args.trees, args.file)
    elif args.mode == "compiled":
        compiled(args.trees)
    elif args.mode == "time":
        timed(args.trees, args.rounds)
    else:
        measure(*args.trees)


if __name__ == "__main__":
    main()

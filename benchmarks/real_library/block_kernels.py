"""The kernels of a library checkout that hold block pointers: what kernel_times.py's coverage counts against.

    python benchmarks/real_library/block_kernels.py TREE [--json OUT]

Read from the source, not imported (no GPU, no Triton needed): a kernel is a `@triton.jit` function that some
file of the tree launches (`name[grid](...)`); it holds block pointers when its body calls `make_block_ptr`
or `advance`, or calls a `@triton.jit` helper of the same file that does (helpers are inlined into the kernel
that calls them, so the profiler only ever names the kernel). Prints one `path: kernel` line per kernel.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

BLOCK_POINTER_CALLS = {"make_block_ptr", "advance"}
# another vendor's kernels (fla dispatches to them only on Ascend NPUs): never launched on a CUDA GPU
OTHER_VENDORS = ("/backends/triton_ascend/",)


def is_jit(function: ast.FunctionDef) -> bool:
    """Decorated by triton.jit (bare, called, or as `jit`), under any autotune/heuristics above it."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "jit":
            return True
    return False


def called_names(function: ast.FunctionDef) -> set[str]:
    """The last name of everything the function calls: `tl.make_block_ptr` -> make_block_ptr, `helper` -> helper."""
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            target = node.func
            names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return names


def launched_names(tree: ast.Module) -> set[str]:
    """Names launched as kernels in a module: `name[grid](...)`."""
    return {node.func.value.id for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript)
            and isinstance(node.func.value, ast.Name)}


def jit_functions(module: ast.Module) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in module.body if isinstance(node, ast.FunctionDef) and is_jit(node)}


def with_block_pointers(functions: dict[str, ast.FunctionDef]) -> set[str]:
    """The jit functions of one module that hold block pointers themselves or through helpers of the module."""
    calls = {name: called_names(function) for name, function in functions.items()}
    holding = {name for name, names in calls.items() if names & BLOCK_POINTER_CALLS}
    while grown := {name for name, names in calls.items() if names & holding} - holding:
        holding |= grown
    return holding


def block_pointer_kernels(root: Path, package: str = "fla") -> dict[str, str]:
    """kernel name -> path (relative to root) of every launched jit function that holds block pointers."""
    modules = {}
    for path in sorted((root / package).rglob("*.py")):
        if any(part in path.as_posix() for part in OTHER_VENDORS):
            continue
        try:
            modules[path.relative_to(root).as_posix()] = ast.parse(path.read_text())
        except SyntaxError as error:
            print(f"skipped {path}: {error}", file=sys.stderr)
    launched = set().union(*map(launched_names, modules.values()))
    found = {}
    for path, module in modules.items():
        for name in sorted(with_block_pointers(jit_functions(module)) & launched):
            found.setdefault(name, path)  # a name defined twice: the first file's (the profiler cannot tell them apart)
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path, help="the library's checkout (its root)")
    parser.add_argument("--package", default="fla")
    parser.add_argument("--json", type=Path, help="also write {kernel: path} here")
    args = parser.parse_args(argv)
    kernels = block_pointer_kernels(args.tree, args.package)
    for name, path in sorted(kernels.items(), key=lambda item: (item[1], item[0])):
        print(f"{path}: {name}")
    print(f"{len(kernels)} kernels with block pointers in {len(set(kernels.values()))} files", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(kernels, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

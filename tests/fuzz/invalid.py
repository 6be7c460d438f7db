"""Kernels Triton rejects: a generated kernel with one block-pointer call broken. The codemod must refuse them
(a diagnostic that leaves the site) or keep them rejected, never fail inside and never migrate them into a kernel
that runs.

A mutation touches a call of a statement at the top of the kernel's body, which every launch runs, so that
Triton's rejection does not depend on a branch; `tests/test_fuzz_grammar.py` checks that Triton 3.8 rejects
every kind.
"""

from __future__ import annotations

import ast
import random
import tempfile
from pathlib import Path

from fuzz import grammar

KINDS = ("order-not-permutation", "order-length", "shape-length", "seven-positional", "missing-argument",
         "boundary-out-of-range", "padding-unknown", "mask-with-block-pointer", "advance-length")
MAKE_KINDS = KINDS[:5]
ACCESS_KINDS = KINDS[5:8]


def _name(call: ast.Call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")


def _args(call: ast.Call) -> list[ast.expr]:
    """A make_block_ptr call's six arguments, in order, whatever their spelling."""
    names = ("base", "shape", "strides", "offsets", "block_shape", "order")
    keywords = {k.arg: k.value for k in call.keywords}
    return list(call.args) + [keywords[n] for n in names[len(call.args):]]


def _tuple(items) -> ast.Tuple:
    return ast.Tuple([ast.Constant(i) if isinstance(i, int) else i for i in items], ast.Load())


def mutate(call: ast.Call, kind: str, rank: int) -> ast.Call:
    if kind in MAKE_KINDS:
        base, shape, strides, offsets, blocks, order = _args(call)
        if kind == "order-not-permutation":
            order = _tuple([0] * rank if rank > 1 else [1])
        elif kind == "order-length":
            order = _tuple(list(range(rank + 1)))
        elif kind == "shape-length":
            shape = _tuple(shape.elts[:-1] if rank > 1 else [*shape.elts, shape.elts[0]])
        args = [base, shape, strides, offsets, blocks, order]
        if kind == "seven-positional":
            args.append(ast.Constant(0))
        elif kind == "missing-argument":
            args.pop()
        return ast.Call(call.func, args, [])
    keywords = [k for k in call.keywords if k.arg not in ("boundary_check", "padding_option", "mask")]
    if kind == "boundary-out-of-range":
        keywords.append(ast.keyword("boundary_check", _tuple([rank])))
    elif kind == "padding-unknown":
        keywords += [ast.keyword("boundary_check", _tuple(list(range(rank)))),
                     ast.keyword("padding_option", ast.Constant("one"))]
    elif kind == "mask-with-block-pointer":
        keywords.append(ast.keyword("mask", ast.Compare(ast.Name("pid", ast.Load()), [ast.GtE()], [ast.Constant(0)])))
    elif kind == "advance-length":
        pointer, delta = call.args
        return ast.Call(call.func, [pointer, _tuple([*delta.elts, ast.Constant(0)])], [])
    return ast.Call(call.func, call.args, keywords)


def _targets(source: str, kind: str) -> list[ast.Call]:
    kernel = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "kernel")
    wanted = ({"make_block_ptr"} if kind in MAKE_KINDS else {"advance"} if kind == "advance-length"
              else {"load", "store"})
    calls = [n for statement in kernel.body if not isinstance(statement, (ast.If, ast.For, ast.While))
             for n in ast.walk(statement) if isinstance(n, ast.Call) and _name(n) in wanted]
    if kind in ACCESS_KINDS:  # accesses through block pointers, not the reductions' `tl.sum` and the like
        calls = [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr in ("load", "store")]
    if kind == "padding-unknown":
        calls = [c for c in calls if c.func.attr == "load"]
    if kind == "advance-length":
        calls = [c for c in calls if len(c.args) == 2 and isinstance(c.args[1], ast.Tuple)]
    return calls


def generate(seed: int) -> tuple[str, str, int]:
    """(source, kind, launch): a generated kernel (as Triton 3.8 runs it) with one call broken."""
    rng = random.Random(seed)
    while True:
        program = grammar.generate(rng.randrange(1 << 30))
        kind = rng.choice(KINDS)
        calls = _targets(program.reference, kind)
        if calls:
            break
    call = rng.choice(calls)
    lines = program.reference.splitlines(keepends=True)
    line = lines[call.lineno - 1]
    new = ast.unparse(mutate(call, kind, program.launch["rank"]))
    lines[call.lineno - 1] = line[:call.col_offset] + new + line[call.end_col_offset:]
    return "".join(lines), kind, program.launch


def check(drawn) -> str:
    """How the codemod took one invalid kernel: "refused: KIND", "still rejected: KIND" (migrated, and Triton
    3.8 rejects the output as it rejected the input: an error kept on purpose, TTD115's `tl.static_assert`),
    "internal-error: KIND: ERROR", or "migrated as if valid: KIND" (the output runs)."""
    from fuzz import runner
    from triton_migrate import engine

    source, kind, launch = drawn
    try:
        outcome = engine.migrate_source(source)
    except engine.SourceError:
        return f"refused (source error): {kind}"
    except Exception as error:  # noqa: BLE001 - what this looks for
        return f"internal-error: {kind}: {type(error).__name__}"
    if outcome.refused or outcome.new_source is None:
        return f"refused: {kind}"
    with tempfile.TemporaryDirectory(prefix="fuzz_invalid_") as directory:
        path = Path(directory) / "migrated.py"
        path.write_text(outcome.new_source)
        if isinstance(runner.run_file(path, launch), str):
            return f"still rejected: {kind}"
    return f"migrated as if valid: {kind}"

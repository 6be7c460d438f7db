"""Property: for generated block-pointer kernels, the migrated kernel computes the same bits in Triton's
interpreter, or the tool reports the site it refused. Never a silent mismatch.

Kernels vary rank (1-3), layout (row-major or transposed), block shape (including widths under 16
bytes), offsets (aligned, unaligned, negative), boundary_check subsets, padding, loop advances (zero,
positive, negative, run-time deltas, inline `tl.load(tl.advance(...))`), the store's boundary_check, and
how the block-pointer calls are laid out (black, yapf, by hand with backslashes and comments).
Inputs sit inside sentinel-filled buffers with margins, so reads past the logical tensor (unchecked
dimensions) are deterministic and writes past it show.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import tempfile
import textwrap
from pathlib import Path

import libcst as cst
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Policy

GRID = 3
MARGIN = 64  # elements of sentinel on every side of every logical tensor, at least
SENTINEL = -7.25
EXAMPLES = int(os.environ.get("TRITON_MIGRATE_PROPERTY_EXAMPLES", "200"))
_counter = itertools.count()


@st.composite
def kernels(draw):
    rank = draw(st.integers(1, 3))
    unit = draw(st.sampled_from([rank - 1, 0])) if rank > 1 else 0
    blocks = [draw(st.sampled_from([2, 4, 8, 16])) for _ in range(rank)]
    if draw(st.integers(0, 3)):  # mostly legal widths (>= 16 bytes of fp32) for input and output
        blocks[unit], blocks[-1] = max(blocks[unit], 4), max(blocks[-1], 4)
    shape = [draw(st.integers(1, 3 * b + 5)) for b in blocks]
    offsets = [draw(st.sampled_from(["pid * B{d}", "0", "pid * B{d} + 1", "pid * B{d} - B{d}", "B{d} * 2"]))
               .format(d=d) for d in range(rank)]
    deltas = [[draw(st.sampled_from(["0", "B{d}", "-B{d}", "2 * B{d}", "step"])).format(d=d) for d in range(rank)]
              for _ in range(draw(st.integers(0, 2)))]
    checked = list(range(rank)) if draw(st.integers(0, 2)) else draw(
        st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
    # Triton 3.8's emulation rejects a padding without any checked dimension ("`other` cannot be provided
    # without `mask`"), so such kernels never existed on 3.8; keep to ones that run there.
    padding = draw(st.sampled_from(['""', '"zero"', '"nan"'])) if checked else '""'
    store_checked = draw(st.sampled_from([list(range(rank)), [0], []]))
    inline = draw(st.booleans())
    step = draw(st.sampled_from([0, 1, 4, 16]))
    layout = draw(st.sampled_from(["flat", "black", "yapf", "hand"]))
    return dict(rank=rank, unit=unit, blocks=blocks, shape=shape, offsets=offsets, deltas=deltas,
                checked=sorted(checked), padding=padding, store_checked=store_checked, inline=inline, step=step,
                layout=layout)


def kernel_source(k) -> str:
    r = range(k["rank"])
    tup = lambda items: "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"  # noqa: E731
    strides = ["1" if d == k["unit"] else f"sx{d}" for d in r]
    order = [k["unit"]] + [d for d in reversed(r) if d != k["unit"]]
    block = tup([f"B{d}" for d in r])
    load = f"tl.load({{ptr}}, boundary_check={tup([str(d) for d in k['checked']])}, padding_option={k['padding']})"
    body = [f"acc = tl.zeros({block}, dtype=tl.float32)"]
    for delta in k["deltas"]:
        if k["inline"]:
            body.append("acc += " + load.format(ptr=f"tl.advance(p, {tup(delta)})"))
        else:
            body += ["acc += " + load.format(ptr="p"), f"p = tl.advance(p, {tup(delta)})"]
    body.append("acc += " + load.format(ptr="p"))
    params = ", ".join([f"S{d}" for d in r] + [f"sx{d}" for d in r] + [f"sy{d}" for d in r] + ["step"]
                       + [f"B{d}: tl.constexpr" for d in r])
    store_offsets = tup(["pid * B0"] + ["0"] * (k["rank"] - 1))
    y_shape = tup(["S0"] + [f"B{d}" for d in r][1:])
    y_strides = tup([f"sy{d}" for d in r[:-1]] + ["1"])
    body += [f"q = tl.make_block_ptr(y_ptr, {y_shape}, {y_strides}, {store_offsets}, {block}, "
             f"{tup([str(d) for d in reversed(r)])})",
             f"tl.store(q, acc, boundary_check={tup([str(d) for d in k['store_checked']])})"]
    header = textwrap.dedent(f"""\
        import triton
        import triton.language as tl


        @triton.jit
        def kernel(x_ptr, y_ptr, {params}):
            pid = tl.program_id(0)
            p = tl.make_block_ptr(x_ptr, {tup([f"S{d}" for d in r])}, {tup(strides)}, {tup(k["offsets"])}, """
                             f"""{block}, {tup([str(o) for o in order])})
        """)
    source = header + "".join(f"    {line}\n" for line in body)
    if k["layout"] == "flat":
        return source
    return cst.MetadataWrapper(cst.parse_module(source)).visit(Relayout(k["layout"])).code


def _break(indent: int, comment: str | None = None) -> cst.ParenthesizedWhitespace:
    spacing = cst.SimpleWhitespace("  " if comment else "")
    return cst.ParenthesizedWhitespace(cst.TrailingWhitespace(spacing, cst.Comment(comment) if comment else None),
                                       last_line=cst.SimpleWhitespace(" " * indent))


class Relayout(cst.CSTTransformer):
    """The block-pointer calls' arguments laid out as formatters and people do: "black" (one per line, a
    magic trailing comma, `+`/`-` at the start of a line), "yapf" (aligned under the opening bracket,
    operators at the end of a line), "hand" (a comment after the first argument, backslashes)."""

    CALLS = ("make_block_ptr", "advance", "load", "store")
    METADATA_DEPENDENCIES = (cst.metadata.PositionProvider,)

    def __init__(self, layout: str) -> None:
        self.layout, self.depth, self.columns = layout, 0, []

    def ours(self, call: cst.Call) -> bool:
        return isinstance(call.func, cst.Attribute) and call.func.attr.value in self.CALLS

    def visit_Call(self, node: cst.Call) -> None:
        if self.ours(node):  # where its arguments start: only whitespace after a comma changes, so it stays
            start = self.get_metadata(cst.metadata.PositionProvider, node).start.column
            self.columns.append(start + len(cst.Module([]).code_for_node(node.func)) + 1)
            self.depth += 1

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if not self.ours(original):
            return updated
        self.depth -= 1
        indent, column = 4 + 4 * self.depth, self.columns.pop()
        args = list(updated.args)
        if self.layout == "black":
            breaks = [_break(indent + 4)] * (len(args) - 1) + [_break(indent)]  # `)` on a line of its own
            args = [a.with_changes(comma=cst.Comma(whitespace_after=w)) for a, w in zip(args, breaks)]
            return updated.with_changes(whitespace_before_args=_break(indent + 4), args=args)
        if self.layout == "yapf":
            args[:-1] = [a.with_changes(comma=cst.Comma(whitespace_after=_break(column))) for a in args[:-1]]
        elif len(args) > 1:
            args[0] = args[0].with_changes(comma=cst.Comma(whitespace_after=_break(indent + 8, "# by hand")))
        return updated.with_changes(args=args)

    def leave_BinaryOperation(self, original, updated):
        if not self.depth or not isinstance(updated.operator, (cst.Add, cst.Subtract)):
            return updated
        indent = 8 + 4 * self.depth
        where = {"black": {"whitespace_before": _break(indent)},
                 "yapf": {"whitespace_after": _break(self.columns[-1])},
                 "hand": {"whitespace_before": cst.SimpleWhitespace(" \\\n" + " " * indent)}}[self.layout]
        return updated.with_changes(operator=updated.operator.with_changes(**where))


def reach(k, d: int) -> int:
    """How far past its logical extent, either way, the kernel's loads can go in dimension `d`: offsets
    up to 2 blocks (+1) or one block below zero, every advance, and the block itself. Reads of unchecked
    dimensions land there (and the interpreter may touch masked lanes too), so the margin must hold
    sentinels, not memory outside the allocation."""
    block = k["blocks"][d]
    needed = 3 * block + 1 + len(k["deltas"]) * max(2 * block, k["step"]) + 8
    return max(MARGIN, (needed + 3) // 4 * 4)  # whole 16-byte groups keep the view's base aligned


def padded(shape, unit, margins):
    """A sentinel buffer with margins; the logical tensor is a view whose `unit` dimension has stride 1
    and whose other strides are multiples of 16 bytes (descriptors require it)."""
    order = [d for d in range(len(shape)) if d != unit] + [unit]
    physical = [shape[d] + 2 * margins[d] for d in order]
    physical[-1] = (physical[-1] + 3) // 4 * 4
    buffer = torch.full(physical, SENTINEL, dtype=torch.float32)
    view = buffer[tuple(slice(margins[d], margins[d] + shape[d]) for d in order)]
    return buffer, view.permute([order.index(d) for d in range(len(shape))])


def run(path: str, k) -> torch.Tensor:
    spec = importlib.util.spec_from_file_location(f"prop_{next(_counter)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    x_buffer, x = padded(k["shape"], k["unit"], [reach(k, d) for d in range(k["rank"])])
    x.copy_(torch.randn(x.shape))
    y_shape = [k["shape"][0]] + k["blocks"][1:]
    y_buffer, y = padded(y_shape, len(y_shape) - 1, [MARGIN] * len(y_shape))
    args = [*k["shape"], *x.stride(), *y.stride(), k["step"]]
    module.kernel[(GRID,)](x, y, *args, **{f"B{d}": b for d, b in enumerate(k["blocks"])})
    return y_buffer


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(k=kernels(), policy=st.sampled_from([Policy(), Policy(strict=True), Policy(target="descriptor"),
                                             Policy(target="pointer")]))
def test_migrated_kernel_matches_or_is_reported(k, policy):
    with tempfile.TemporaryDirectory(prefix="triton-migrate-prop-") as directory:
        check_example(k, policy, Path(directory))


def check_example(k, policy, directory: Path) -> None:
    source = kernel_source(k)
    before = directory / "before.py"
    before.write_text(source)
    outcome = migrate_source(source, policy=policy)
    refused = outcome.refused
    assert len(outcome.diagnostics) == 2, outcome.diagnostics  # one per make_block_ptr: migrated or refused
    assert bool(refused) <= (policy.target == "descriptor"), "only --target descriptor may leave sites behind"
    decisions = sorted(d.decision if d.fixed else d.code for d in outcome.diagnostics)
    event(f"{policy.target}{'/strict' if policy.strict else ''}: {decisions}")
    if outcome.new_source is None:
        assert refused, "nothing migrated and nothing reported"
        return
    after = directory / "after.py"
    after.write_text(outcome.new_source)
    expected = run(str(before), k)
    try:
        actual = run(str(after), k)
    except Exception as error:  # noqa: BLE001 - only one loud failure is acceptable, checked below
        assert_predicted_narrow_block_error(error, k)
        event("migrated kernel failed loudly: block width parameter under 16 bytes")
        return
    assert torch.equal(expected.view(torch.int32), actual.view(torch.int32)), (
        f"silent mismatch\n{source}\n--- migrated ---\n{outcome.new_source}")


def assert_predicted_narrow_block_error(error: Exception, k) -> None:
    """A block width that is a constexpr *parameter* is invisible to the codemod; if it is under 16 bytes
    the migrated kernel must fail loudly at trace time (Triton's own check), never compute wrong data."""
    narrow = k["blocks"][k["unit"]] * 4 < 16 or k["blocks"][-1] * 4 < 16  # fp32 input / output widths
    assert narrow and "16 bytes" in str(error), f"migrated kernel failed unexpectedly: {error!r}"

"""TTD001 block-pointer-to-descriptor: `tl.make_block_ptr` becomes `tl.make_tensor_descriptor`.

What it matches: `name = tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)`, with
positional or keyword arguments and any import alias of `triton.language`.

The rewrite: `name_desc = tl.make_tensor_descriptor(base, [shape], [strides], [block_shape])`. The
descriptor carries no position, so the offsets become plain integers: inline expressions where the
block pointer never moves, `name_off<d>` variables where it is advanced or where control-flow paths
disagree. One descriptor is created per distinct padding (`name_desc_nan` for `padding_option="nan"`).
Contiguity comes from the strides, not from `order`: when the unit stride
is not the last one, the descriptor describes the native layout with the dimensions permuted and every
load/store transposes (TTD003). `order` is only used to pick the unit-stride dimension when no stride
is a literal 1 (a stride passed as a kernel argument equal to 1 is specialised to a constant by the
JIT; any other value then fails loudly at compile time instead of silently reading wrong data).

Fixtures: gemm_loop_advance, keyword_args, alias_module, rank1, rank3_batched, rank5.
"""

from __future__ import annotations

import libcst as cst

from ._syntax import keyword

CODE = "TTD001"
NAME = "block-pointer-to-descriptor"
SUMMARY = "`tl.make_block_ptr` → `tl.make_tensor_descriptor` with integer offsets"
KEPT_ARGUMENTS = ("base", "shape", "strides", "block_shape")


def as_list(node: cst.BaseExpression, permutation: list[int]) -> cst.List:
    """`(M, N)` → `[M, N]`, keeping each element's own text; reordered by `permutation`."""
    elements = [node.elements[i] for i in permutation]
    commas = [e.comma for e in node.elements]
    rebuilt = [e.with_changes(comma=commas[i] if i < len(elements) - 1 else cst.MaybeSentinel.DEFAULT)
               for i, e in enumerate(elements)]
    return cst.List(rebuilt)


def descriptor_call(call: cst.Call, func: cst.BaseExpression, permutation: list[int], padding: str,
                    shift: int = 0) -> cst.Call:
    """The descriptor constructor for one `make_block_ptr` call, formatted like the original.

    `shift` is how many columns further right the opening parenthesis now sits; continuation lines
    aligned with it move along (hanging indents, which start after a newline, stay).
    """
    from triton_migrate.analysis.calls import bind

    bound = bind(call, "make_block_ptr")
    kept = [arg for arg in call.args if _parameter(arg, bound) in KEPT_ARGUMENTS]
    args = []
    for position, arg in enumerate(kept):
        if _parameter(arg, bound) != "base":
            arg = arg.with_changes(value=as_list(arg.value, permutation))
        comma_source = call.args[position] if position < len(kept) - 1 else call.args[-1]
        args.append(arg.with_changes(comma=_shifted(comma_source.comma, shift, call)))
    if padding == "nan":
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(keyword("padding_option", cst.SimpleString('"nan"')))
    return call.with_changes(func=func, args=args)


def _shifted(comma, shift: int, call: cst.Call):
    visual = not isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace)
    if not visual or not isinstance(comma, cst.Comma) or not isinstance(comma.whitespace_after,
                                                                          cst.ParenthesizedWhitespace):
        return comma
    after = comma.whitespace_after
    indent = max(0, len(after.last_line.value) + shift)
    return comma.with_changes(whitespace_after=after.with_changes(last_line=cst.SimpleWhitespace(" " * indent)))


def _parameter(arg: cst.Arg, bound: dict[str, cst.Arg]) -> str:
    return next(name for name, value in bound.items() if value is arg)

"""The descriptor form (TTD001, TTD003): `tl.make_tensor_descriptor` for a `make_block_ptr` call, and
`desc.load` / `desc.store` / `desc.dtype` for the accesses and type queries of its block pointer."""

from __future__ import annotations

from typing import cast

import libcst as cst

from ..build import keyword, movable

KEPT_ARGUMENTS = ("base", "shape", "strides", "block_shape")


def as_list(node: cst.BaseExpression, permutation: list[int]) -> cst.List:
    """`(M, N)` → `[M, N]`, keeping each element's own text; reordered by `permutation`."""
    literal = cast("cst.Tuple | cst.List", node)  # the parts a make_block_ptr spells as literals
    elements = [literal.elements[i] for i in permutation]
    commas = [e.comma for e in literal.elements]
    rebuilt = [e.with_changes(comma=commas[i] if i < len(elements) - 1 else cst.MaybeSentinel.DEFAULT)
               for i, e in enumerate(elements)]
    return cst.List(rebuilt)


def descriptor_call(call: cst.Call, bound: dict[str, cst.Arg], func: cst.BaseExpression, permutation: list[int],
                    padding: str, shift: int = 0) -> cst.Call:
    """The descriptor constructor for one `make_block_ptr` call (`bound`: its arguments by parameter), formatted
    like the original.

    `shift` is how many columns further right the opening parenthesis now sits; continuation lines
    aligned with it move along (hanging indents, which start after a newline, stay).
    """
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


def _offsets(offsets: list[cst.BaseExpression], permutation: list[int]) -> cst.List:
    return cst.List([cst.Element(offsets[i]) for i in permutation])


def _reorder(language: cst.BaseExpression, tile: cst.BaseExpression, permutation: list[int]) -> cst.BaseExpression:
    if permutation == sorted(permutation):
        return tile
    if len(permutation) == 2:
        return cst.Call(cst.Attribute(language, cst.Name("trans")), [cst.Arg(tile)])
    dims = cst.List([cst.Element(cst.Integer(str(d))) for d in permutation])
    return cst.Call(cst.Attribute(language, cst.Name("permute")), [cst.Arg(tile), cst.Arg(dims)])


def _inverse(permutation: list[int]) -> list[int]:
    return [permutation.index(d) for d in range(len(permutation))]


def load(language: cst.BaseExpression, desc: str, offsets: list[cst.BaseExpression],
         permutation: list[int]) -> cst.BaseExpression:
    call = cst.Call(cst.Attribute(cst.Name(desc), cst.Name("load")), [cst.Arg(_offsets(offsets, permutation))])
    return _reorder(language, call, _inverse(permutation))


def store(language: cst.BaseExpression, desc: str, offsets: list[cst.BaseExpression], permutation: list[int],
          value: cst.BaseExpression, block: list[cst.BaseExpression], is_tile: bool) -> cst.Call:
    shape = cst.List([cst.Element(block[i]) for i in permutation])
    if is_scalar_literal(value):
        dtype = cst.Attribute(cst.Name(desc), cst.Name("dtype"))
        value = cst.Call(cst.Attribute(language, cst.Name("full")), [cst.Arg(shape), cst.Arg(value), cst.Arg(dtype)])
    elif is_tile:
        value = _reorder(language, value, permutation)
    else:
        original_shape = cst.List([cst.Element(b) for b in block])
        value = cst.Call(cst.Attribute(language, cst.Name("broadcast_to")), [cst.Arg(value), cst.Arg(original_shape)])
        value = _reorder(language, value, permutation)
    return cst.Call(cst.Attribute(cst.Name(desc), cst.Name("store")),
                    [cst.Arg(_offsets(offsets, permutation)), cst.Arg(movable(value))])


def is_scalar_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return is_scalar_literal(node.expression)
    if isinstance(node, cst.Name):
        return node.value in ("True", "False")
    return isinstance(node, (cst.Integer, cst.Float))


def compile_error(language: cst.BaseExpression, message: str) -> cst.Call:
    """`tl.static_assert(False, "...")`: an access Triton rejects at compile time (a `boundary_check` naming a
    dimension the block pointer lacks, in a constexpr branch its callers never take) stays one, with the reason."""
    return cst.Call(cst.Attribute(language, cst.Name("static_assert")),
                    [cst.Arg(cst.Name("False")), cst.Arg(cst.SimpleString(repr(message).replace("'", '"')))])


def queried_pointer(node: cst.Attribute) -> cst.Name | None:
    """The name whose element type `node` asks for, if `node` is such a query."""
    chain = []
    current: cst.BaseExpression = node
    while isinstance(current, cst.Attribute):
        chain.append(current.attr.value)
        current = current.value
    if isinstance(current, cst.Name) and chain[-1:] in (["dtype"], ["type"]) and chain[:-1] in (
            ["element_ty"], ["element_ty", "element_ty"]):
        return current
    return None


def dtype_of(desc: str) -> cst.Attribute:
    return cst.Attribute(cst.Name(desc), cst.Name("dtype"))

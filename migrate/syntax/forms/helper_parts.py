"""The helper-parts form (TTD008): a block-pointer argument and parameter as its parts."""

from __future__ import annotations

import libcst as cst

from ..build import in_place_of, keyword


def expand(original: cst.Call, updated: cst.Call, parts: dict) -> cst.Call:
    """`updated` with each block-pointer argument (by the id of its `original` Arg) replaced by its parts."""
    args = []
    for before, after in zip(original.args, updated.args):
        passed = parts.get(id(before))
        if passed is None:
            args.append(after)
            continue
        args.extend(in_place_of(after, [keyword(n, v) if before.keyword is not None else cst.Arg(v)
                                        for n, v in zip(passed.names, passed.values)]))
    return updated.with_changes(args=args)


def parameters(params: cst.Parameters, replaced: dict[str, list[tuple[str, bool]]], language) -> cst.Parameters:
    """The helper's parameters with each block-pointer parameter replaced by its parts
    (`replaced`: name -> [(part name, is constexpr)])."""
    new = []
    for param in params.params:
        parts = replaced.get(param.name.value)
        if parts is None:
            new.append(param)
            continue
        annotation = cst.Annotation(cst.Attribute(language, cst.Name("constexpr")))
        new.extend(in_place_of(param, [cst.Param(cst.Name(name), annotation=annotation if constexpr else None)
                                       for name, constexpr in parts]))
    return params.with_changes(params=new)

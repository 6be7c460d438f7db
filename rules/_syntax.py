"""Small libcst builders the rules share (not a rule: the registry lists only `ttdNNN_*` modules)."""

from __future__ import annotations

import libcst as cst

_NO_SPACE = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    """`name=value`, spelled the way Triton code spells keyword arguments."""
    return cst.Arg(value, keyword=cst.Name(name), equal=_NO_SPACE)


def member_call(owner: cst.BaseExpression, member: str, args: list[cst.Arg]) -> cst.Call:
    """`owner.member(args...)`, e.g. `tl.load(...)` or `compat.make_tile(...)`."""
    return cst.Call(cst.Attribute(owner, cst.Name(member)), args)

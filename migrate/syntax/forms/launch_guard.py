"""The launch-guard form (TTD009): the constexpr flag, the two variants it picks between and the decorator
that sets it at launch."""

from __future__ import annotations

import libcst as cst

from ..build import appended


def guarded(flag: str, descriptor: cst.BaseExpression, pointers: cst.BaseExpression,
            grouped: bool = True) -> cst.IfExp:
    """`(descriptor if FLAG else pointers)`: Triton evaluates only the branch the constexpr picks. Grouped,
    since it may land inside an expression (`acc += load(...) * w`); the rewriter drops the parentheses
    where it is a statement's whole value."""
    parentheses = ([cst.LeftParen()], [cst.RightParen()]) if grouped else ([], [])
    return cst.IfExp(test=cst.Name(flag), body=descriptor, orelse=pointers, lpar=parentheses[0],
                     rpar=parentheses[1])


def only_with(flag: str, statements: list) -> cst.If:
    """`if FLAG:` around the descriptors' creation: the variant without them never creates one."""
    return cst.If(cst.Name(flag), cst.IndentedBlock([cst.SimpleStatementLine([s]) for s in statements]))


def with_flag(parameters: cst.Parameters, flag: str, language: cst.BaseExpression) -> cst.Parameters:
    """The parameters and `FLAG: tl.constexpr = False` after them, laid out as they are (one a line with a
    trailing comma, or running on); each comment stays with the parameter it followed."""
    new = cst.Param(cst.Name(flag), cst.Annotation(cst.Attribute(language, cst.Name("constexpr"))),
                    default=cst.Name("False"), equal=cst.AssignEqual())
    return parameters.with_changes(params=appended(list(parameters.params), new))


def decorator(guard: str, flag: str, check: str, checks: list) -> cst.Decorator:
    """`@guard({"FLAG": lambda args: check(...) and check(...)})`, one check (guards.Check) a line."""
    tests = "\n    and ".join(_call(check, c) for c in checks)
    expression = cst.parse_expression(f'{guard}({{\n    "{flag}": lambda args: {tests},\n}})')
    return cst.Decorator(expression)


def _call(check: str, c) -> str:
    arguments = [f'args["{c.tensor}"]', c.width, *c.multiples]
    if c.unit_stride is not None:
        arguments.append(f"unit_stride={c.unit_stride}")
    return f"{check}({', '.join(arguments)})"

"""Small libcst builders the rules share (not a rule: the registry lists only `ttdNNN_*` modules)."""

from __future__ import annotations

from typing import cast

import libcst as cst

from .nodes import tuple_elements

_NO_SPACE = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
_code = cst.Module([]).code_for_node


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    """`name=value`, spelled the way Triton code spells keyword arguments."""
    return cst.Arg(value, keyword=cst.Name(name), equal=_NO_SPACE)


def member_call(owner: cst.BaseExpression, member: str, args: list[cst.Arg]) -> cst.Call:
    """`owner.member(args...)`, e.g. `tl.load(...)` or `compat.make_tile(...)`."""
    return cst.Call(cst.Attribute(owner, cst.Name(member)), args)


def movable(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` as a rewrite may copy it anywhere, e.g. out of a call's parentheses into `x_ptrs = ...`.

    An argument may span lines (black puts `+ offset` on its own line) only because the call's brackets
    enclose it; out of them the newlines are a syntax error. Such an expression is re-flowed onto one line,
    as one writes an expression one moves; one that holds a comment is parenthesised instead, which keeps
    the comment where its author put it. One line (nearly every argument) is returned as it is.
    """
    if type(node) in (cst.Name, cst.Integer):
        return node
    code = _code(node)
    if "\n" not in code:
        return node
    if "#" in code and _has_comment(node):
        return node if node.lpar else node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cast(cst.BaseExpression, node.visit(_OneLine()))


def movable_elements(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The elements of a literal tuple or list, each `movable`; None if `node` is anything else."""
    elements = tuple_elements(node)
    return None if elements is None else [movable(element) for element in elements]


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found = True


def _has_comment(node: cst.CSTNode) -> bool:
    visitor = _Comments()
    node.visit(visitor)
    return visitor.found


def _spans_lines(whitespace) -> bool:
    return isinstance(whitespace, cst.ParenthesizedWhitespace) or "\\" in whitespace.value


_NONE = cst.SimpleWhitespace("")


def _tight(updated, original, *fields: str):
    """`updated` with no space in those of `fields` that spanned lines in `original`."""
    return updated.with_changes(**{f: _NONE for f in fields if _spans_lines(getattr(original, f))})


class _OneLine(cst.CSTTransformer):
    """Every line break becomes one space, none just inside a bracket or around a dot; trailing commas go
    (one that makes a one-element tuple, or a tuple index, stays)."""

    def leave_ParenthesizedWhitespace(self, original, updated):
        return cst.SimpleWhitespace(" ")

    def leave_SimpleWhitespace(self, original, updated):
        return cst.SimpleWhitespace(" ") if "\\" in original.value else updated

    def _after_opening(self, original, updated):
        return _tight(updated, original, "whitespace_after")

    def _before_closing(self, original, updated):
        return _tight(updated, original, "whitespace_before")

    leave_LeftParen = leave_LeftSquareBracket = leave_LeftCurlyBrace = _after_opening
    leave_RightParen = leave_RightSquareBracket = leave_RightCurlyBrace = _before_closing

    def leave_Dot(self, original, updated):
        return _tight(updated, original, "whitespace_before", "whitespace_after")

    def leave_Arg(self, original, updated):  # the last one's is the space before the closing parenthesis
        return _tight(updated, original, "whitespace_after_star", "whitespace_after_arg")

    def leave_Call(self, original, updated):
        updated = _tight(updated, original, "whitespace_before_args")
        return updated.with_changes(args=_without_trailing_comma(updated.args, keep_single=False))

    def leave_Tuple(self, original, updated):
        return updated.with_changes(elements=_without_trailing_comma(updated.elements, keep_single=True))

    def leave_List(self, original, updated):
        return updated.with_changes(elements=_without_trailing_comma(updated.elements, keep_single=False))

    def leave_Set(self, original, updated):
        return updated.with_changes(elements=_without_trailing_comma(updated.elements, keep_single=False))

    def leave_Dict(self, original, updated):
        return updated.with_changes(elements=_without_trailing_comma(updated.elements, keep_single=False))

    def leave_Subscript(self, original, updated):
        return updated.with_changes(slice=_without_trailing_comma(updated.slice, keep_single=True))


def _without_trailing_comma(items, keep_single: bool) -> list:
    items = list(items)
    if not items or not isinstance(items[-1].comma, cst.Comma):
        return items
    if keep_single and len(items) == 1:
        items[-1] = items[-1].with_changes(comma=items[-1].comma.with_changes(whitespace_after=_NONE))
    else:
        items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return items


# --- parameters and arguments added to a list that may carry comments ------------------------------------------
#
# In libcst the comment that ends an item's line lives in the whitespace after the item's comma, or, for a last
# item without one, in the item's own whitespace after it (`whitespace_after_param`, `whitespace_after_arg`).
# Moving commas between items moves their comments: these keep each comment on the line of the item it follows.

_SPACE = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _after_field(item) -> str:
    return "whitespace_after_param" if isinstance(item, cst.Param) else "whitespace_after_arg"


def in_place_of(item, parts: list) -> list:
    """`parts` on one line in the place of `item` (a Param or an Arg): the comment that followed `item`, and the
    line break before the closing bracket if it was last, follow the last part."""
    field = _after_field(item)
    last = parts[-1].with_changes(comma=item.comma, **{field: getattr(item, field)})
    return [part.with_changes(comma=_SPACE) for part in parts[:-1]] + [last]


def appended(items: list, new) -> list:
    """`items` and `new` after them, laid out as the items are: one a line (after a separator like the one
    between the last two items, without its comments), or running on. The last item keeps the comment that
    ended its line; what followed it (a trailing comma, comment lines and the line break before the closing
    bracket) follows `new` now."""
    if not items:
        return [new]
    field = _after_field(new)
    last = items[-1]
    trailing = last.comma if isinstance(last.comma, cst.Comma) else None
    after = trailing.whitespace_after if trailing is not None else getattr(last, field)
    separator = items[-2].comma.whitespace_after if len(items) > 1 and isinstance(items[-2].comma, cst.Comma) \
        else cst.SimpleWhitespace(" ")
    between: cst.BaseParenthesizableWhitespace
    closing: cst.BaseParenthesizableWhitespace
    if isinstance(after, cst.ParenthesizedWhitespace) and isinstance(separator, cst.ParenthesizedWhitespace):
        between = separator.with_changes(first_line=after.first_line, empty_lines=[])
        closing = after.with_changes(first_line=cst.TrailingWhitespace())
    else:  # running on: `new` joins the last item's line, before the comment that ends it
        between, closing = cst.SimpleWhitespace(" "), after
    comma = (trailing or cst.Comma()).with_changes(whitespace_after=between)
    last = last.with_changes(comma=comma, **{field: cst.SimpleWhitespace("")})
    if trailing is not None:
        new = new.with_changes(comma=trailing.with_changes(whitespace_after=closing))
    else:
        new = new.with_changes(**{field: closing})
    return [*items[:-1], last, new]

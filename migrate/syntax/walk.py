"""A read-only walk over libcst trees, several times faster than `node.visit(visitor)`.

libcst's visit rebuilds every node it passes (visiting and transforming share one code path), and
`node.children` does the same for one level: on kernel files that was most of the time of a check.
`walk(visitor, node)` calls the same `visit_<Type>` / `leave_<Type>` methods of a CSTVisitor in the same
order (source order; a `visit_` that returns False skips the children) without building anything.
Whitespace and punctuation are not visited: nothing here looks at them.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

_TRIVIA = (cst.BaseParenthesizableWhitespace, cst.EmptyLine, cst.TrailingWhitespace, cst.Newline,
           cst.LeftParen, cst.RightParen, cst.Comma, cst.Dot, cst.Semicolon, cst.Colon, cst.AssignEqual)
# Fields that only ever hold punctuation or whitespace: skipped without looking at their values.
_PUNCTUATION = {"lpar", "rpar", "comma", "semicolon", "colon", "equal", "dot", "header", "footer",
                "leading_lines", "lines_after_decorators", "trailing_whitespace", "newline"}
_METHODS: dict[type, dict] = {}  # visitor type -> node type -> (visit, leave)
_IS_KIND: dict[type, dict[type, bool]] = {}  # kind -> node type -> whether it is one (descendants)


class _AllFields(dict):
    """Per node type, its fields in source order (the order libcst's own child visit goes through them),
    less those that hold text."""

    def __missing__(self, kind: type[cst.CSTNode]) -> tuple[str, ...]:
        # The method visits each field by its name, a string constant: its code's constants hold them in the
        # order they are first written (a field visited in two branches, ImportFrom's names, once). Reading
        # them from the method's source instead cost every process a file read and a tokenization per type.
        names = dict.fromkeys(c for c in kind._visit_and_replace_children.__code__.co_consts if type(c) is str)
        declared = {f.name: f.type for f in dataclasses.fields(kind)}
        ordered = [n for n in names if n in declared] + [n for n in declared if n not in names]
        found = self[kind] = tuple(n for n in ordered if declared[n] not in ("str", str))
        return found


class _Fields(dict):
    """The same, less the fields that only hold whitespace or punctuation."""

    def __missing__(self, kind: type) -> tuple[str, ...]:
        found = self[kind] = tuple(n for n in ALL_FIELDS[kind] if not n.startswith("whitespace")
                                   and n not in _PUNCTUATION)
        return found


class _Wanted(dict):
    def __missing__(self, kind: type) -> bool:
        wanted = self[kind] = issubclass(kind, cst.CSTNode) and not issubclass(kind, _TRIVIA)
        return wanted


class _Pushers(dict):
    """Per node type, a function that appends a node's children to a list, last child first (a walk's stack
    pops them in source order). Generated, as ast_tree's constructors are, with one attribute read per
    field: a loop over the field names, and a list per node reversed onto the stack, cost a third more on
    every node of every walk."""

    def __missing__(self, kind: type):
        lines = ["def push(node, stack):", "    pass"]
        for name in reversed(_FIELDS[kind]):
            lines += [f"    value = node.{name}",
                      "    if type(value) is tuple or type(value) is list:",
                      "        for item in reversed(value):",
                      "            if _WANTED[type(item)]:",
                      "                stack.append(item)",
                      "    elif _WANTED[type(value)]:",
                      "        stack.append(value)"]
        namespace = {"_WANTED": _WANTED}
        exec("\n".join(lines), namespace)
        found = self[kind] = namespace["push"]
        return found


ALL_FIELDS, _FIELDS, _WANTED, _PUSH = _AllFields(), _Fields(), _Wanted(), _Pushers()


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's children in source order, without whitespace and punctuation."""
    found: list = []
    _PUSH[type(node)](node, found)
    found.reverse()
    return found


def descendants(node: cst.CSTNode, kind: type) -> list:
    """Every node of type `kind` in `node`'s tree, itself included, in source order."""
    # libcst's node classes are ABCs, whose isinstance is a call into `abc`: asked once per node type
    is_kind = _IS_KIND.setdefault(kind, {})
    found, stack = [], [node]
    while stack:
        node = stack.pop()
        node_type = type(node)
        matches = is_kind.get(node_type)
        if matches is None:
            matches = is_kind[node_type] = issubclass(node_type, kind)
        if matches:
            found.append(node)
        _PUSH[node_type](node, stack)
    return found


def walk(visitor: cst.CSTVisitor, node: cst.CSTNode) -> None:
    # A stack, not recursion: this meets every node of every module a check reads. A pushed (leave, node)
    # pair stands for the leave_ call due after the node's children.
    own = _METHODS.setdefault(type(visitor), {})  # node type -> its (visit, leave) methods on this visitor
    stack: list = [node]
    while stack:
        item = stack.pop()  # a node, or a (leave, node) pair
        kind = type(item)
        if kind is tuple:
            item[0](visitor, item[1])
            continue
        methods = own.get(kind)
        if methods is None:
            methods = own[kind] = (_own(visitor, f"visit_{kind.__name__}"), _own(visitor, f"leave_{kind.__name__}"))
        visit, leave = methods
        if leave is not None:
            stack.append((leave, item))
        if visit is None or visit(visitor, item) is not False:
            _PUSH[kind](item, stack)


def _own(visitor: cst.CSTVisitor, name: str):
    """The visitor's method, or None where it is CSTVisitor's do-nothing default (most of them)."""
    method = getattr(type(visitor), name, None)
    return None if method is None or method is getattr(cst.CSTVisitor, name, None) else method


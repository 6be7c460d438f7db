"""A helper that returns a block pointer it creates, `p = _g_block_ptr(g_base, g, T, i_t, BC, G_T_CONTIG, HV)`:
the call site is read as the creation itself, the helper's parameters replaced by the call's arguments.

    @triton.jit
    def _g_block_ptr(g_base, g, T, offset, BC, G_T_CONTIG: tl.constexpr, HV: tl.constexpr):
        if G_T_CONTIG:
            return tl.make_block_ptr(g_base, (T,), (1,), (offset,), (BC,), (0,))
        return tl.make_block_ptr(g, (T,), (HV,), (offset,), (BC,), (0,))

A part that differs between the branches becomes a conditional expression on the branch's condition,
`tl.make_block_ptr(g_base if G_T_CONTIG else g, (T,), (1 if G_T_CONTIG else HV,), (i_t,), (BC,), (0,))`,
which Triton resolves at compile time since the condition is a constexpr: the code the original ran, with no
call. Exact only for a helper that does nothing else: its body is `name = expression` lines (`offset = row *
stride0`, read as their expressions), then `if`/`else` and `return` statements, its conditions read only
constexpr parameters, every part reads only parameters (their literal defaults where the call passes none) and
those lines, the block shape and the order are the same in every branch (a block size must stay a
compile-time constant), and neither the arguments nor the lines the parts read hold a call (they are evaluated
where the block pointer is used, maybe more than once). A condition the call decides with a literal (or a
default) keeps only its branch: a helper that returns a block pointer on one branch and a raw pointer on the
other (`if USE_BP: return tl.make_block_ptr(...)` / `return base + offsets`) is read so at a call that passes
`True`; one that leaves the choice to a constexpr of the caller is refused, saying so (TTD201).
"""

from __future__ import annotations

from typing import Callable, Optional, Union, cast

import libcst as cst

from triton_migrate.syntax.forms import advance
from triton_migrate.syntax.nodes import canonical_code, free_names, tuple_elements

from .calls import UnboundCall, bind

# A branch tree: a `make_block_ptr` call, something else returned (`_Other`), or (condition, taken, otherwise).
Tree = Union[cst.Call, "_Other", tuple]
Nested = Optional[Callable[[cst.Call], Optional[cst.Call]]]
_ATOMIC = (cst.Name, cst.Integer, cst.Float, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString)
_TUPLES = ("shape", "strides", "offsets", "block_shape", "order")


def inlined_creation(helper: cst.FunctionDef, arguments: dict[str, cst.Arg], member,
                     language: cst.BaseExpression, nested: Nested = None) -> cst.Call | None:
    """The `make_block_ptr` call a call of `helper` with `arguments` (parameter -> argument) amounts to, or
    None if the helper is not one this reads exactly. `member(func)`: the `triton.language` member a callee
    names, in the helper's module; `nested(call)`: the creation a call in the helper's body amounts to, where
    it returns another helper's block pointer (`return _tile(base, ..., pid * BR, ...)`), or None."""
    params = {p.name.value: p for p in helper.params.params}
    constexprs = {name for name, p in params.items() if p.annotation is not None
                  and canonical_code(p.annotation.annotation).split(".")[-1] == "constexpr"}
    statements, values, made = _values(helper, arguments, member)
    tree = _returned(statements, member, nested or (lambda call: None), made)
    tree = _decided(tree, _Substitute(values)) if tree is not None else None
    if tree is None or not _conditions(tree) <= constexprs or any(isinstance(leaf, _Other) for leaf in _leaves(tree)):
        return None  # a branch the call may take returns something else (a raw pointer: no creation to read)
    found = [_parts(call) for call in _leaves(tree)]
    leaves = [leaf for leaf in found if leaf is not None]
    if len(leaves) < len(found) or len({len(leaf[k]) for leaf in leaves for k in _TUPLES}) != 1:
        return None  # tuples of different lengths (Triton rejects the creation), or ranks that differ
    for fixed in ("block_shape", "order"):
        if len({tuple(canonical_code(e) for e in leaf[fixed]) for leaf in leaves}) != 1:
            return None
    used = set().union(*(free_names(e) for leaf in leaves for part in leaf.values() for e in part),
                       *(free_names(c) for c in _condition_nodes(tree)))
    if not used <= set(values):
        return None
    substitute = _Substitute({name: values[name] for name in used})

    parts_of = {id(call): leaf for call, leaf in zip(_leaves(tree), leaves)}

    def merged(key: str, index: int) -> cst.BaseExpression:
        return _merge(tree, lambda call: parts_of[id(call)][key][index], substitute)

    rank = len(leaves[0]["shape"])
    args = [cst.Arg(merged("base", 0))]
    for key in _TUPLES:
        args.append(cst.Arg(cst.Tuple([cst.Element(merged(key, d)) for d in range(rank)])))
    return cst.Call(cst.Attribute(language, cst.Name("make_block_ptr")), args)


def returned_kinds(helper: cst.FunctionDef, member) -> set[str]:
    """What the branches of a helper made of `if`s and `return`s hand back: "creation" (a `make_block_ptr`),
    "other" (anything else, a raw pointer, say); empty for any other helper. Both: a call that does not decide
    the branch with a literal is no creation."""
    statements, _, made = _values(helper, {}, member)
    tree = _returned(statements, member, lambda call: None, made)
    if tree is None:
        return set()
    return {"other" if isinstance(leaf, _Other) else "creation" for leaf in _leaves(tree)}


def returned_tuple(helper: cst.FunctionDef, arguments: dict[str, cst.Arg]) -> list | None:
    """The elements of the tuple a call of `helper` with `arguments` returns, if the helper only returns a tuple
    of expressions of its parameters (`return (M, N)`), each argument they read holding no call (it is then
    evaluated where the block pointer is made, perhaps more than once); None otherwise."""
    body, values, _ = _values(helper, arguments)
    statement = body[0].body[0] if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) else None
    value = statement.value if isinstance(statement, cst.Return) else None
    elements = tuple_elements(value) if value is not None else None
    if elements is None:
        return None
    used = set().union(*(free_names(e) for e in elements))
    if not used <= set(values):
        return None
    substitute = _Substitute({name: values[name] for name in used})
    return [element.visit(substitute) for element in elements]


def _values(helper: cst.FunctionDef, arguments: dict[str, cst.Arg], member=None) -> tuple[list, dict, dict]:
    """The helper's statements after its leading `name = expression` lines, what each name the rest may read
    stands for at this call: a parameter its argument (or its literal default, `REVERSE: tl.constexpr =
    False`), a local of those lines its expression in them (`offset = row * stride0`), and the block pointers
    those lines make (`_made`). An argument or a local that holds a call stands for nothing: it would be
    evaluated where the block pointer is used, perhaps more than once."""
    values: dict[str, cst.BaseExpression] = {}
    made: dict[str, cst.Call] = {}
    for param in helper.params.params:
        name = param.name.value
        if name in arguments and not _has_call(arguments[name].value):
            values[name] = _grouped(arguments[name].value)
        elif name not in arguments and param.default is not None and (literal := _literal(param.default)) is not None:
            values[name] = literal
    statements = _body(helper)
    while statements and (local := _local(statements[0])) is not None:
        name, value = local
        creation = _made(value, made, member) if member is not None else None
        made = {p: call for p, call in made.items() if name not in free_names(call)}  # it read the old `name`
        values.pop(name, None)
        if creation is not None:
            made[name] = creation
        elif free_names(value) <= set(values) and not _has_call(value):
            values[name] = _grouped(cast(cst.BaseExpression, value.visit(_Substitute(values))))
        statements = statements[1:]
    return statements, values, made


def _made(value: cst.BaseExpression, made: dict, member) -> cst.Call | None:
    """The creation a local line makes: `tl.make_block_ptr(...)` itself, or `tl.advance(p, deltas)` of one an
    earlier line made, as the creation at the advanced offsets (`tl.make_block_ptr(..., (row + BLOCK, 0),
    ...)`: `row + BLOCK`); None for anything else."""
    if not isinstance(value, cst.Call):
        return None
    if member(value.func) == "make_block_ptr":
        return value
    if member(value.func) != "advance":
        return None
    try:
        bound = bind(value, "advance")
    except UnboundCall:
        return None
    base = bound["base"].value
    source = made.get(base.value) if isinstance(base, cst.Name) else None
    if source is None or "offsets" not in bound:
        return None
    parts, deltas = _parts(source), tuple_elements(bound["offsets"].value)
    if parts is None or deltas is None or len(deltas) != len(parts["offsets"]):
        return None
    offsets = [advance.plus(o, d) for o, d in zip(parts["offsets"], deltas)]
    tuples = [cst.Tuple([cst.Element(e) for e in (offsets if key == "offsets" else parts[key])]) for key in _TUPLES]
    return source.with_changes(args=[cst.Arg(parts["base"][0]), *(cst.Arg(t) for t in tuples)])


def _local(statement) -> tuple[str, cst.BaseExpression] | None:
    """`name = expression` on a line of its own."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value, small.value
    return None


def _literal(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """A literal default (`False`, `1`), also wrapped in `tl.constexpr(...)`."""
    if isinstance(node, cst.Call) and len(node.args) == 1 and canonical_code(node.func).split(".")[-1] == "constexpr":
        node = node.args[0].value
    literal = isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)) or \
        isinstance(node, cst.Name) and node.value in ("True", "False", "None")
    return node if literal else None


def _body(helper: cst.FunctionDef) -> list:
    """The helper's statements, less a docstring."""
    body = list(helper.body.body)
    first = body[0] if body else None
    if isinstance(first, cst.SimpleStatementLine) and isinstance(first.body[0], cst.Expr) and \
            isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        body = body[1:]
    return body


class _Other:
    """A branch that returns something else than a block pointer (a raw pointer): a call that may take it is no
    creation; one that decides, with a literal, to take another branch is (`_decided`)."""


def _returned(statements: list, member, nested, made: dict) -> Tree | None:
    """The branch tree of statements that are only `if`/`else` and `return tl.make_block_ptr(...)` (or the
    return of a call `nested` reads as one, or of a name a leading line `made`, or anything else: `_Other`)."""
    if not statements:
        return None
    first, rest = statements[0], statements[1:]
    if isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and not rest:
        value = first.body[0].value if isinstance(first.body[0], cst.Return) else None
        if value is None:
            return None
        creation = value if isinstance(value, cst.Call) and member(value.func) == "make_block_ptr" else \
            nested(value) if isinstance(value, cst.Call) else made.get(value.value) if isinstance(value, cst.Name) \
            else None
        return creation if creation is not None else _Other()
    if not isinstance(first, cst.If):
        return None
    if first.orelse is not None and rest:
        return None
    otherwise = [first.orelse] if isinstance(first.orelse, cst.If) else \
        first.orelse.body.body if first.orelse is not None else rest
    taken, other = _returned(list(first.body.body), member, nested, made), \
        _returned(list(otherwise), member, nested, made)
    return None if taken is None or other is None else (first.test, taken, other)


def _decided(tree: Tree, substitute: _Substitute) -> Tree:
    """The tree less the branches the call rules out: a condition that reads, at this call, `True` or `False`
    (a literal argument, or a default)."""
    if not isinstance(tree, tuple):
        return tree
    condition, taken, other = tree
    test = condition.visit(substitute)
    if isinstance(test, cst.Name) and test.value in ("True", "False"):
        return _decided(taken if test.value == "True" else other, substitute)
    return condition, _decided(taken, substitute), _decided(other, substitute)


def _leaves(tree: Tree) -> list:
    return _leaves(tree[1]) + _leaves(tree[2]) if isinstance(tree, tuple) else [tree]


def _condition_nodes(tree: Tree) -> list:
    return [tree[0]] + _condition_nodes(tree[1]) + _condition_nodes(tree[2]) if isinstance(tree, tuple) else []


def _conditions(tree: Tree) -> set[str]:
    """The names the conditions read (a condition with a call reads as unknown)."""
    nodes = _condition_nodes(tree)
    if any(_has_call(n) for n in nodes):
        return {"<call>"}
    return set().union(*(free_names(n) for n in nodes)) if nodes else set()


def _parts(call: cst.Call) -> dict | None:
    try:
        bound = bind(call, "make_block_ptr")
    except UnboundCall:
        return None
    if set(bound) != {"base", *_TUPLES}:
        return None
    parts = {key: tuple_elements(bound[key].value) for key in _TUPLES}
    if any(v is None for v in parts.values()):
        return None
    return {"base": (bound["base"].value,), **parts}


def _merge(tree: Tree, part, substitute: _Substitute) -> cst.BaseExpression:
    """One part of the creation: the branch's own where every branch agrees, else `a if C else b`."""
    if isinstance(tree, cst.Call):
        return _bare(part(tree).visit(substitute))
    condition, taken, other = cast(tuple, tree)  # (a tree with an _Other leaf is no creation: never merged)
    test = condition.visit(substitute)
    if isinstance(test, cst.Name) and test.value in ("True", "False"):  # a default, or a literal argument
        return _merge(taken if test.value == "True" else other, part, substitute)
    a, b = _merge(taken, part, substitute), _merge(other, part, substitute)
    if canonical_code(a) == canonical_code(b):
        return a
    return cst.IfExp(test, a, b, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    """A whole part (an argument, a tuple's element, a branch of `a if C else b`) needs no parentheses of its
    own: `pid * BR`, not `(pid * BR)`. Only a conditional expression (it may be a branch) and what the
    parentheses make (a tuple, a generator) keep theirs."""
    keep = (cst.IfExp, cst.Lambda, cst.NamedExpr, cst.Tuple, cst.GeneratorExp, cst.Yield)
    return node.with_changes(lpar=[], rpar=[]) if node.lpar and not isinstance(node, keep) else node


class _Substitute(cst.CSTTransformer):
    """Parameters -> the call's arguments (attribute names and keywords are no parameters)."""

    def __init__(self, arguments: dict[str, cst.BaseExpression]) -> None:
        self.arguments = arguments

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return True

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.arguments.get(original.value, updated)


def _grouped(node: cst.BaseExpression) -> cst.BaseExpression:
    if node.lpar or isinstance(node, _ATOMIC):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class _Calls(cst.CSTVisitor):
    found = False

    def visit_Call(self, node: cst.Call) -> None:
        self.found = True


def _has_call(node: cst.CSTNode) -> bool:
    visitor = _Calls()
    node.visit(visitor)
    return visitor.found

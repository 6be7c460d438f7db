"""libcst nodes built from the stdlib ast, for the analyses that only report (`--check`, `report`).

libcst's parser costs some eight times the stdlib's, and a check never prints code: the analysis reads
only a tree's structure. So the module is parsed with `ast` and rebuilt as libcst nodes of the same kinds
in the same shape as libcst's own parse, with every whitespace and punctuation field left at its
default. One analysis then serves both the check and the rewrite. What differs is text, never structure:
code generated from these nodes is formatted as libcst's defaults have it, so comparisons of code go
through `values.canonical_code`.

Syntax this module does not rebuild (a `match` statement, say) raises `Unsupported`, and the caller
parses with libcst instead. `tests/test_ast_tree.py` holds the two trees of real files side by side.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import re
from typing import TYPE_CHECKING, Any, Callable, TypeVar, Union

import libcst as cst

from .source_text import parenthesized, string_tokens

_new, _set = object.__new__, object.__setattr__
_Node = TypeVar("_Node", bound=cst.CSTNode)
# The ast nodes that know where they are in the source
_Located = Union[ast.expr, ast.stmt, ast.arg, ast.keyword, ast.excepthandler]


class Unsupported(Exception):
    """Syntax that is not rebuilt here: parse with libcst."""


class _Constructors(dict):
    """Per libcst node type, a function that builds one from keyword arguments, the fields not given at
    their defaults (shared: nodes are immutable), without libcst's validation, which a tree from a
    successful parse cannot fail. Generated, as dataclasses generates `__init__`: this builds every node
    of every file a check reads, and a loop over the fields cost a third more."""

    if TYPE_CHECKING:  # dict's own lookup at run time: this builds every node
        def __getitem__(self, kind: type[_Node]) -> Callable[..., _Node]: ...

    def __missing__(self, kind: type) -> Callable[..., cst.CSTNode]:
        defaults, parameters = {}, []
        for field in dataclasses.fields(kind):
            if field.default is not dataclasses.MISSING:
                defaults[field.name] = field.default
            elif field.default_factory is not dataclasses.MISSING:
                defaults[field.name] = field.default_factory()
            parameters.append(f"{field.name}=_defaults[{field.name!r}]" if field.name in defaults else field.name)
        lines = [f"def build({', '.join(['*'] + parameters if parameters else [])}):", "    node = _new(_kind)"]
        lines += [f"    _set(node, {field.name!r}, {field.name})" for field in dataclasses.fields(kind)]
        namespace: dict[str, Any] = {"_new": _new, "_set": _set, "_kind": kind, "_defaults": defaults}
        exec("\n".join(lines + ["    return node"]), namespace)
        found = self[kind] = namespace["build"]
        return found


_make = _Constructors()


def _operators(pairs: dict) -> dict:
    return {getattr(ast, a): _make[getattr(cst, c)]() for a, c in pairs.items()}


_BINARY = _operators({"Add": "Add", "Sub": "Subtract", "Mult": "Multiply", "Div": "Divide", "FloorDiv": "FloorDivide",
                      "Mod": "Modulo", "Pow": "Power", "LShift": "LeftShift", "RShift": "RightShift",
                      "BitOr": "BitOr", "BitXor": "BitXor", "BitAnd": "BitAnd", "MatMult": "MatrixMultiply"})
_AUGMENTED = {a: _make[getattr(cst, f"{type(c).__name__}Assign")]() for a, c in _BINARY.items()}
_UNARY = _operators({"UAdd": "Plus", "USub": "Minus", "Not": "Not", "Invert": "BitInvert"})
_BOOLEAN = _operators({"And": "And", "Or": "Or"})
_COMPARISON = _operators({"Eq": "Equal", "NotEq": "NotEqual", "Lt": "LessThan", "LtE": "LessThanEqual",
                          "Gt": "GreaterThan", "GtE": "GreaterThanEqual", "Is": "Is", "IsNot": "IsNot", "In": "In",
                          "NotIn": "NotIn"})
_ASYNC = _make[cst.Asynchronous]()
_SELF_DOCUMENTING = re.compile(r"=\s*[!:}]")
_PARENTHESES = {"lpar": (_make[cst.LeftParen](),), "rpar": (_make[cst.RightParen](),)}
# Operands of these kinds are printed in parentheses: the ast does not say where the source had them, and
# code printed from this tree must still mean what the source means (values.canonical_code).
_LOOSE = {cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp, cst.Lambda,
          cst.NamedExpr, cst.Await, cst.Yield}


def _name(value: str) -> cst.Name:
    """_make's work for the commonest node, without the keyword arguments."""
    node = _new(cst.Name)
    _set(node, "value", value)
    _set(node, "lpar", ())
    _set(node, "rpar", ())
    return node


def _dotted(name: str) -> cst.BaseExpression:
    head, *rest = name.split(".")
    node: cst.BaseExpression = _name(head)
    for part in rest:
        node = _make[cst.Attribute](value=node, attr=_name(part))
    return node


class Builder:
    """One module's ast rebuilt as libcst nodes; `positions` holds where each node starts, as (line,
    column in UTF-8 bytes) for nodes that come from an ast node, the same places libcst reports."""

    def __init__(self, source: str) -> None:
        self.lines = io.StringIO(source, newline="").readlines()  # the tokenizer's lines: \n, \r\n or \r
        self.encoded: dict[int, bytes] = {}
        self.positions: dict[int, tuple[int, int]] = {}

    # --- source text ---------------------------------------------------------------------------------------

    def _line(self, number: int) -> bytes:
        found = self.encoded.get(number)
        if found is None:
            found = self.encoded[number] = self.lines[number - 1].encode()
        return found

    def text(self, node: ast.expr) -> str:
        first, last = node.lineno, node.end_lineno or node.lineno  # (None only in a tree built by hand)
        if first == last:
            return self._line(first)[node.col_offset:node.end_col_offset].decode()
        middle = b"".join(self._line(n) for n in range(first + 1, last))
        return (self._line(first)[node.col_offset:] + middle + self._line(last)[:node.end_col_offset]).decode()

    def starts_line(self, node: ast.stmt) -> bool:
        """Nothing but indentation before it, on a line that does not continue the one before (`\\`):
        libcst starts a new line (or an indented block) there."""
        if self._line(node.lineno)[:node.col_offset].strip():
            return False
        return node.lineno == 1 or not self._line(node.lineno - 1).rstrip(b"\r\n").endswith(b"\\")

    # --- statements ----------------------------------------------------------------------------------------

    def statements(self, body: list[ast.stmt]) -> list[cst.BaseStatement]:
        found: list = []
        line: list = []
        for statement in body:
            handler = _COMPOUND.get(type(statement))
            if handler is not None:
                found.append(self.at(statement, handler(self, statement)))
                continue
            if line and self.starts_line(statement):
                line = []
            if not line:
                found.append(_make[cst.SimpleStatementLine](body=line))
                self.positions[id(found[-1])] = (statement.lineno, statement.col_offset)
            line.append(self.small(statement))
        for item in found:  # each line's statements were gathered in a list; libcst keeps tuples
            if type(item) is cst.SimpleStatementLine:
                _set(item, "body", tuple(item.body))
        return found

    def block(self, body: list[ast.stmt]) -> cst.BaseSuite:
        if self.starts_line(body[0]):
            return _make[cst.IndentedBlock](body=tuple(self.statements(body)))
        return _make[cst.SimpleStatementSuite](body=tuple(self.small(s) for s in body))

    def small(self, statement: ast.stmt) -> cst.BaseSmallStatement:
        handler = _SMALL.get(type(statement))
        if handler is None:
            raise Unsupported(type(statement).__name__)
        return self.at(statement, handler(self, statement))

    def at(self, origin: _Located, node: _Node) -> _Node:
        self.positions[id(node)] = (origin.lineno, origin.col_offset)
        return node

    def orelse(self, body: list[ast.stmt]):
        return _make[cst.Else](body=self.block(body)) if body else None

    def function(self, node) -> cst.FunctionDef:
        name = _name(node.name)
        self.positions[id(name)] = name_position(self._line, node)  # diagnostics may point at it
        return _make[cst.FunctionDef](
            name=name, params=self.parameters(node.args), body=self.block(node.body),
            decorators=tuple(_make[cst.Decorator](decorator=self.expr(d)) for d in node.decorator_list),
            returns=self.annotation(node.returns),
            asynchronous=_ASYNC if isinstance(node, ast.AsyncFunctionDef) else None)

    def class_(self, node: ast.ClassDef) -> cst.ClassDef:
        return _make[cst.ClassDef](
            name=_name(node.name), body=self.block(node.body), bases=tuple(self.argument(b) for b in node.bases),
            keywords=tuple(self.keyword(k) for k in node.keywords),
            decorators=tuple(_make[cst.Decorator](decorator=self.expr(d)) for d in node.decorator_list))

    def if_(self, node: ast.If) -> cst.If:
        orelse = node.orelse
        if len(orelse) == 1 and type(orelse[0]) is ast.If and self._line(orelse[0].lineno)[orelse[0].col_offset:] \
                .startswith(b"elif"):
            tail = self.at(orelse[0], self.if_(orelse[0]))
        else:
            tail = self.orelse(orelse)
        return _make[cst.If](test=self.expr(node.test), body=self.block(node.body), orelse=tail)

    def for_(self, node) -> cst.For:
        return _make[cst.For](
            target=self.expr(node.target), iter=self.expr(node.iter), body=self.block(node.body),
            orelse=self.orelse(node.orelse), asynchronous=_ASYNC if isinstance(node, ast.AsyncFor) else None)

    def while_(self, node: ast.While) -> cst.While:
        return _make[cst.While](test=self.expr(node.test), body=self.block(node.body), orelse=self.orelse(node.orelse))

    def with_(self, node) -> cst.With:
        items = tuple(_make[cst.WithItem](
            item=self.expr(i.context_expr),
            asname=None if i.optional_vars is None else _make[cst.AsName](name=self.expr(i.optional_vars)))
            for i in node.items)
        return _make[cst.With](items=items, body=self.block(node.body),
                               asynchronous=_ASYNC if isinstance(node, ast.AsyncWith) else None)

    def try_(self, node: ast.Try) -> cst.Try:
        handlers = tuple(self.at(h, _make[cst.ExceptHandler](
            body=self.block(h.body), type=self.optional(h.type),
            name=None if h.name is None else _make[cst.AsName](name=_name(h.name)))) for h in node.handlers)
        return _make[cst.Try](
            body=self.block(node.body), handlers=handlers, orelse=self.orelse(node.orelse),
            finalbody=_make[cst.Finally](body=self.block(node.finalbody)) if node.finalbody else None)

    def assign(self, node: ast.Assign) -> cst.Assign:
        return _make[cst.Assign](targets=tuple(_make[cst.AssignTarget](target=self.expr(t)) for t in node.targets),
                                 value=self.expr(node.value))

    def import_(self, node) -> cst.Import | cst.ImportFrom:
        names = tuple(_make[cst.ImportAlias](
            name=_dotted(a.name), asname=None if a.asname is None else _make[cst.AsName](name=_name(a.asname)))
            for a in node.names)
        if isinstance(node, ast.Import):
            return _make[cst.Import](names=names)
        star = len(node.names) == 1 and node.names[0].name == "*"
        return _make[cst.ImportFrom](module=None if node.module is None else _dotted(node.module),
                                     names=_make[cst.ImportStar]() if star else names,
                                     relative=tuple(_make[cst.Dot]() for _ in range(node.level)))

    # --- expressions ---------------------------------------------------------------------------------------

    def expr(self, node: ast.expr) -> cst.BaseExpression:
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            raise Unsupported(type(node).__name__)
        built = handler(self, node)
        self.positions[id(built)] = (node.lineno, node.col_offset)
        return built

    def operand(self, node: ast.expr) -> cst.BaseExpression:
        built = self.expr(node)
        if type(built) in _LOOSE:
            for name, value in _PARENTHESES.items():
                _set(built, name, value)
        return built

    def optional(self, node: ast.expr | None):
        return None if node is None else self.expr(node)

    def annotation(self, node: ast.expr | None):
        return None if node is None else _make[cst.Annotation](annotation=self.expr(node))

    def constant(self, node: ast.Constant) -> cst.BaseExpression:
        value = node.value
        if value is None or value is True or value is False:
            return _name(str(value))
        if value is ...:
            return _make[cst.Ellipsis]()
        text = self.text(node)
        if isinstance(value, (str, bytes)):
            return self.strings(string_tokens(text))
        kind = cst.Integer if isinstance(value, int) else cst.Float if isinstance(value, float) else cst.Imaginary
        return _make[kind](value=text)

    def formatted(self, node: ast.JoinedStr) -> cst.BaseString:
        text = self.text(node)
        if _SELF_DOCUMENTING.search(text):  # f"{x=}": the ast has it as text and a value, libcst as one part
            raise Unsupported("a self-documenting f-string")
        tokens = string_tokens(text)
        if len(tokens) == 1:
            return _make[cst.FormattedString](parts=self.formatted_parts(node.values))
        return self.strings(tokens)

    def strings(self, tokens: list[str]) -> cst.BaseString:
        """libcst's tree of string literals: one, or a right-nested concatenation of them."""
        *heads, built = [self.string(t) for t in tokens]
        for head in reversed(heads):
            built = _make[cst.ConcatenatedString](left=head, right=built)
        return built

    def string(self, token: str) -> cst.BaseString:
        if "f" not in token[:token.index(token[-1])].lower():
            return _make[cst.SimpleString](value=token)
        # One f-string of a concatenation, which the ast merged: parsed alone (its names' places are lost).
        joined = ast.parse(token, mode="eval").body
        assert isinstance(joined, ast.JoinedStr)
        alone = Builder(token).formatted_parts(joined.values)
        return _make[cst.FormattedString](parts=alone)

    def formatted_parts(self, values: list[ast.expr]) -> tuple:
        parts: list[cst.BaseFormattedStringContent] = []
        for value in values:
            if type(value) is ast.Constant:
                parts.append(_make[cst.FormattedStringText](value=str(value.value)))
                continue
            assert isinstance(value, ast.FormattedValue) and isinstance(value.format_spec, (ast.JoinedStr, type(None)))
            spec = None if value.format_spec is None else self.formatted_parts(value.format_spec.values)
            parts.append(_make[cst.FormattedStringExpression](
                expression=self.expr(value.value), conversion=None if value.conversion < 0 else chr(value.conversion),
                format_spec=spec))
        return tuple(parts)

    def call(self, node: ast.Call) -> cst.Call:
        arguments: list[ast.expr | ast.keyword] = [*node.args, *node.keywords]
        arguments.sort(key=lambda a: (a.lineno, a.col_offset))
        return _make[cst.Call](
            func=self.operand(node.func),
            args=tuple(self.keyword(a) if isinstance(a, ast.keyword) else self.argument(a) for a in arguments))

    def argument(self, node: ast.expr) -> cst.Arg:
        if type(node) is ast.Starred:
            return self.at(node, _make[cst.Arg](value=self.expr(node.value), star="*"))
        return self.at(node, _make[cst.Arg](value=self.expr(node)))

    def keyword(self, node: ast.keyword) -> cst.Arg:
        if node.arg is None:
            return self.at(node, _make[cst.Arg](value=self.expr(node.value), star="**"))
        return self.at(node, _make[cst.Arg](value=self.expr(node.value), keyword=_name(node.arg)))

    def parameters(self, node: ast.arguments) -> cst.Parameters:
        positional = [*node.posonlyargs, *node.args]
        defaults = [None] * (len(positional) - len(node.defaults)) + list(node.defaults)
        params = [self.parameter(a, d) for a, d in zip(positional, defaults)]
        posonly, params = params[:len(node.posonlyargs)], params[len(node.posonlyargs):]
        star_arg: cst.Param | cst.ParamStar | cst.MaybeSentinel
        if node.vararg is not None:
            star_arg = self.parameter(node.vararg, None, "*")
        else:
            star_arg = _make[cst.ParamStar]() if node.kwonlyargs else cst.MaybeSentinel.DEFAULT
        return _make[cst.Parameters](
            params=tuple(params), posonly_params=tuple(posonly),
            posonly_ind=_make[cst.ParamSlash]() if posonly else cst.MaybeSentinel.DEFAULT, star_arg=star_arg,
            kwonly_params=tuple(self.parameter(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults)),
            star_kwarg=None if node.kwarg is None else self.parameter(node.kwarg, None, "**"))

    def parameter(self, node: ast.arg, default: ast.expr | None, star: str = "") -> cst.Param:
        return self.at(node, _make[cst.Param](name=self.at(node, _name(node.arg)),
                                              annotation=self.annotation(node.annotation),
                                              default=self.optional(default), star=star))

    def attribute(self, node: ast.Attribute) -> cst.Attribute:
        attr = _name(node.attr)
        assert node.end_lineno is not None and node.end_col_offset is not None  # (None only in a tree built by hand)
        self.positions[id(attr)] = (node.end_lineno, node.end_col_offset - len(node.attr.encode()))
        return _make[cst.Attribute](value=self.operand(node.value), attr=attr)

    def subscript(self, node: ast.Subscript) -> cst.Subscript:
        index = node.slice
        items = index.elts if type(index) is ast.Tuple and not parenthesized(self.text(index)) else [index]
        return _make[cst.Subscript](value=self.operand(node.value),
                                    slice=tuple(_make[cst.SubscriptElement](slice=self.index(i)) for i in items))

    def index(self, node: ast.expr) -> cst.BaseSlice:
        if type(node) is ast.Slice:
            return self.at(node, _make[cst.Slice](lower=self.optional(node.lower), upper=self.optional(node.upper),
                                                  step=self.optional(node.step)))
        return self.at(node, _make[cst.Index](value=self.expr(node)))

    def elements(self, values: list[ast.expr]) -> tuple:
        return tuple(self.at(v, _make[cst.StarredElement](value=self.expr(v.value))) if type(v) is ast.Starred
                     else self.at(v, _make[cst.Element](value=self.expr(v))) for v in values)

    def boolean(self, node: ast.BoolOp) -> cst.BaseExpression:
        left, *rest = node.values
        built = self.operand(left)
        for right in rest:
            built = _make[cst.BooleanOperation](left=built, operator=_BOOLEAN[type(node.op)],
                                                right=self.operand(right))
        return built

    def compare(self, node: ast.Compare) -> cst.Comparison:
        targets = tuple(_make[cst.ComparisonTarget](operator=_COMPARISON[type(o)], comparator=self.operand(c))
                        for o, c in zip(node.ops, node.comparators))
        return _make[cst.Comparison](left=self.operand(node.left), comparisons=targets)

    def comprehension(self, generators: list[ast.comprehension]):
        inner = None
        for g in reversed(generators):
            inner = _make[cst.CompFor](target=self.expr(g.target), iter=self.expr(g.iter), inner_for_in=inner,
                                       ifs=tuple(_make[cst.CompIf](test=self.expr(t)) for t in g.ifs),
                                       asynchronous=_ASYNC if g.is_async else None)
        return inner

    def dict_(self, node: ast.Dict) -> cst.Dict:
        return _make[cst.Dict](elements=tuple(
            _make[cst.StarredDictElement](value=self.expr(v)) if k is None else
            _make[cst.DictElement](key=self.expr(k), value=self.expr(v)) for k, v in zip(node.keys, node.values)))


def _each(kind: type, handler: Callable) -> Callable:
    return lambda builder, node: _make[kind](**handler(builder, node))


_COMPOUND: dict[type, Callable[[Builder, Any], cst.BaseCompoundStatement]] = {
    ast.FunctionDef: Builder.function, ast.AsyncFunctionDef: Builder.function, ast.ClassDef: Builder.class_,
    ast.If: Builder.if_, ast.For: Builder.for_, ast.AsyncFor: Builder.for_, ast.While: Builder.while_,
    ast.With: Builder.with_, ast.AsyncWith: Builder.with_, ast.Try: Builder.try_,
}
_SMALL: dict[type, Callable[[Builder, Any], cst.BaseSmallStatement]] = {
    ast.Expr: _each(cst.Expr, lambda b, n: {"value": b.expr(n.value)}),
    ast.Assign: Builder.assign,
    ast.AugAssign: _each(cst.AugAssign, lambda b, n: {"target": b.expr(n.target), "operator": _AUGMENTED[type(n.op)],
                                                      "value": b.expr(n.value)}),
    ast.AnnAssign: _each(cst.AnnAssign, lambda b, n: {"target": b.expr(n.target), "value": b.optional(n.value),
                                                      "annotation": b.annotation(n.annotation)}),
    ast.Return: _each(cst.Return, lambda b, n: {"value": b.optional(n.value)}),
    ast.Pass: _each(cst.Pass, lambda b, n: {}),
    ast.Break: _each(cst.Break, lambda b, n: {}),
    ast.Continue: _each(cst.Continue, lambda b, n: {}),
    ast.Raise: _each(cst.Raise, lambda b, n: {"exc": b.optional(n.exc), "cause": None if n.cause is None else
                                              _make[cst.From](item=b.expr(n.cause))}),
    ast.Assert: _each(cst.Assert, lambda b, n: {"test": b.expr(n.test), "msg": b.optional(n.msg)}),
    ast.Delete: _each(cst.Del, lambda b, n: {"target": b.expr(n.targets[0]) if len(n.targets) == 1 else
                                             _make[cst.Tuple](elements=b.elements(n.targets), lpar=(), rpar=())}),
    ast.Global: _each(cst.Global, lambda b, n: {"names": tuple(_make[cst.NameItem](name=_name(x)) for x in n.names)}),
    ast.Nonlocal: _each(cst.Nonlocal, lambda b, n: {"names": tuple(_make[cst.NameItem](name=_name(x))
                                                                   for x in n.names)}),
    ast.Import: Builder.import_, ast.ImportFrom: Builder.import_,
}
_EXPRESSIONS: dict[type, Callable[[Builder, Any], cst.BaseExpression]] = {
    ast.Name: lambda b, n: _name(n.id),
    ast.Constant: Builder.constant,
    ast.Attribute: Builder.attribute,
    ast.Call: Builder.call,
    ast.Subscript: Builder.subscript,
    ast.BinOp: _each(cst.BinaryOperation, lambda b, n: {"left": b.operand(n.left), "operator": _BINARY[type(n.op)],
                                                        "right": b.operand(n.right)}),
    ast.UnaryOp: _each(cst.UnaryOperation, lambda b, n: {"operator": _UNARY[type(n.op)],
                                                         "expression": b.operand(n.operand)}),
    ast.BoolOp: Builder.boolean,
    ast.Compare: Builder.compare,
    ast.IfExp: _each(cst.IfExp, lambda b, n: {"test": b.operand(n.test), "body": b.operand(n.body),
                                              "orelse": b.operand(n.orelse)}),
    ast.Tuple: _each(cst.Tuple, lambda b, n: {"elements": b.elements(n.elts)}),
    ast.List: _each(cst.List, lambda b, n: {"elements": b.elements(n.elts)}),
    ast.Set: _each(cst.Set, lambda b, n: {"elements": b.elements(n.elts)}),
    ast.Dict: Builder.dict_,
    ast.Starred: _each(cst.StarredElement, lambda b, n: {"value": b.expr(n.value)}),
    ast.Lambda: _each(cst.Lambda, lambda b, n: {"params": b.parameters(n.args), "body": b.expr(n.body)}),
    ast.NamedExpr: _each(cst.NamedExpr, lambda b, n: {"target": b.expr(n.target), "value": b.expr(n.value)}),
    ast.Await: _each(cst.Await, lambda b, n: {"expression": b.operand(n.value)}),
    ast.Yield: _each(cst.Yield, lambda b, n: {"value": b.optional(n.value)}),
    ast.YieldFrom: _each(cst.Yield, lambda b, n: {"value": _make[cst.From](item=b.expr(n.value))}),
    ast.JoinedStr: Builder.formatted,
    ast.ListComp: _each(cst.ListComp, lambda b, n: {"elt": b.expr(n.elt), "for_in": b.comprehension(n.generators)}),
    ast.SetComp: _each(cst.SetComp, lambda b, n: {"elt": b.expr(n.elt), "for_in": b.comprehension(n.generators)}),
    ast.GeneratorExp: _each(cst.GeneratorExp, lambda b, n: {"elt": b.expr(n.elt),
                                                            "for_in": b.comprehension(n.generators)}),
    ast.DictComp: _each(cst.DictComp, lambda b, n: {"key": b.expr(n.key), "value": b.expr(n.value),
                                                    "for_in": b.comprehension(n.generators)}),
}


def name_position(line: Callable[[int], bytes], node: ast.stmt) -> tuple[int, int]:
    """Where the name of a `def` (or `async def`) starts, as (line, column in UTF-8 bytes): the ast only
    knows where the statement does. `line(number)`: that line of the source, encoded."""
    number, offset = node.lineno, node.col_offset
    for keyword in (b"async", b"def") if isinstance(node, ast.AsyncFunctionDef) else (b"def",):
        offset += len(keyword)
        text = line(number)
        while text[offset:offset + 1] in (b" ", b"\t", b"\f", b"\\"):
            if text[offset:offset + 1] == b"\\":  # a continued line: the name is further down
                number, offset, text = number + 1, 0, line(number + 1)
            else:
                offset += 1
    return number, offset


def build(source: str, tree: ast.Module) -> tuple[cst.Module, dict[int, tuple[int, int]]]:
    """The module as libcst nodes, and where they start; raises Unsupported for syntax not rebuilt here."""
    builder = Builder(source)
    return _make[cst.Module](body=builder.statements(tree.body)), builder.positions

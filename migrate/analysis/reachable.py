"""Which `@triton.jit` functions of a module a block pointer can reach: the names that tie the files importing
them to it (packages.py). Read from the stdlib ast, without libcst.

A function is reachable if it has a block-pointer site of its own (its migration then depends on who calls
it: a kernel called from another module is no launched kernel), or if one of its parameters can hold a
block pointer: used where Triton accepts one (`tl.load`, `tl.store`, `tl.advance`), passed to or returned
towards other code, or not used at all. A parameter used only in arithmetic, as the value of an attribute
(`x.to(...)`), subscripted, or as an argument of Triton's other functions (`tl.exp(x)`) cannot: were
a block pointer passed there, the engine would refuse it whether or not it sees the helper. This keeps
the many math helpers that every kernel file imports (`exp`, `safe_dot`) from tying a whole library into
one group, whose analysis then takes the time of all its files in one process.
"""

from __future__ import annotations

import ast
import warnings

from triton_migrate.syntax.ast_walk import ast_nodes

from .prefilter import SITE_KEYWORDS, SITE_MEMBERS

_POINTER_MEMBERS = ("load", "store", "advance")
# (node type, field): a parameter found there is used as a value that no block pointer can be.
_VALUE_USES = {(ast.Attribute, "value"), (ast.BinOp, "left"), (ast.BinOp, "right"), (ast.UnaryOp, "operand"),
               (ast.Subscript, "value"), (ast.AugAssign, "value")}


def reachable_names(data: bytes) -> set[str] | None:
    """The module-level names (functions, and classes for their static methods) that a block pointer can
    reach; None: the module does not parse here, any name may."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    triton = _triton_names(tree)
    found = set()
    for statement, owner in _definitions(tree.body, None):
        if _is_jit(statement) and _reachable(statement, triton):
            found.add(owner or statement.name)
    return found


def _triton_names(tree: ast.Module) -> set[str]:
    """The local names that module-level imports bind to Triton or anything in it (`tl`, `tldevice`, a
    `load` from `triton.language`)."""
    found = set()
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            found |= {(a.asname or a.name).partition(".")[0] for a in statement.names if _is_triton(a.name)}
        elif isinstance(statement, ast.ImportFrom) and not statement.level and _is_triton(statement.module or ""):
            found |= {a.asname or a.name for a in statement.names}
    return found


def _is_triton(module: str) -> bool:
    return module.partition(".")[0] == "triton"


def _callee(func: ast.expr, triton: set[str]) -> tuple[bool, str | None]:
    """Whether a call's callee is Triton's own API, and its last name."""
    last = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
    while type(func) is ast.Attribute:
        func = func.value
    return type(func) is ast.Name and func.id in triton, last


def _definitions(body: list[ast.stmt], owner: str | None):
    """(function, class name or None) at module level, inside `if`/`try`/`with` too, and one class deep:
    the functions the engine's program indexes (program.py)."""
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield statement, owner
        elif isinstance(statement, ast.ClassDef) and owner is None:
            yield from _definitions(statement.body, statement.name)
        elif isinstance(statement, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody"):
                yield from _definitions(getattr(statement, field, []), owner)
            for handler in getattr(statement, "handlers", []):
                yield from _definitions(handler.body, owner)


def _is_jit(function: ast.FunctionDef) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)) == "jit":
            return True
    return False


def _reachable(function: ast.FunctionDef, triton: set[str]) -> bool:
    arguments = function.args
    parameters = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
                  if not _constexpr(a)} | {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    used, held = set(), set()  # parameters used at all, and those used where a block pointer may be

    def use(name: ast.expr, accepts: bool) -> None:
        if type(name) is ast.Name and name.id in parameters and type(name.ctx) is ast.Load:
            used.add(name.id)
            if accepts:
                held.add(name.id)

    for node in (n for statement in function.body for n in ast_nodes(statement)):
        kind = type(node)
        if kind is ast.Call:
            api, last = _callee(node.func, triton)
            keywords = {k.arg for k in node.keywords}
            if last in SITE_MEMBERS or (last in ("load", "store") and keywords & set(SITE_KEYWORDS)):
                return True  # by its name alone: a site of the engine's (which resolves imports) is one too
            use(node.func, False)
            for value in (*node.args, *(k.value for k in node.keywords)):
                use(value, not api or last in _POINTER_MEMBERS)
        elif kind is not ast.keyword:  # a keyword's value: its call's argument, seen there
            compared = kind is ast.Compare and not any(type(op) in (ast.Is, ast.IsNot) for op in node.ops)
            for field, value in ast.iter_fields(node):
                for item in value if type(value) is list else (value,):
                    use(item, (kind, field) not in _VALUE_USES and not compared)
    return bool(held or parameters - used)


def _constexpr(argument: ast.arg) -> bool:
    annotation = argument.annotation
    return annotation is not None and "constexpr" in ast.dump(annotation)

"""What one module of the program holds that the call graph is built from (program.py): its `@triton.jit`
functions, its imports, its `__all__`, its calls and every other reference to a name; and the `Key` and `Helper`
that name a jit function of the program."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from triton_migrate.syntax.walk import walk

from .calls import is_jit
from .facts import FunctionFacts
from .naming import Namer
from .triton_names import TritonNames, dotted_name


class Sites(Protocol):
    """What the program reads of a module's scan (engine/scanning.py's ModuleScan)."""

    @property
    def with_sites(self) -> set[int]: ...  # ids of the functions with a block-pointer site of their own


class Unit(Protocol):
    """What the program reads of the engine's unit of a module (engine/scanning.py's Unit)."""

    @property
    def module_name(self) -> str: ...

    @property
    def module(self) -> cst.Module: ...

    @property
    def namer(self) -> Namer: ...

    @property
    def names(self) -> TritonNames: ...

    @property
    def scan(self) -> Sites: ...

    def facts_of(self, function: cst.FunctionDef) -> FunctionFacts: ...


@dataclass(frozen=True)
class Key:
    module: str
    qualname: str


@dataclass
class Helper:
    key: Key
    node: cst.FunctionDef
    unit: Unit  # the engine's unit of the module that defines it


class ModuleIndex(cst.CSTVisitor):
    """Jit functions (module level and static methods), imports, `__all__`, and every reference to a name."""

    def __init__(self) -> None:
        self.functions: dict[str, cst.FunctionDef] = {}
        self.imports: dict[str, tuple] = {}  # local -> (level, module, attribute or None) as written
        self.public: set[str] = set()
        self.calls: list[tuple[cst.Call, cst.FunctionDef | None]] = []
        self.references: list[cst.BaseExpression] = []  # names and attributes outside call position
        self._class: list[str] = []
        self._function: list[cst.FunctionDef] = []
        self._callee_ids: set[int] = set()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._class.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._class.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if len(self._function) == 0 and len(self._class) <= 1 and any(is_jit(d) for d in node.decorators):
            self.functions[".".join(self._class + [node.name.value])] = node
        self._function.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._function.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append((node, self._function[-1] if self._function else None))
        self._callee_ids.add(id(node.func))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._callee_ids:
            self.references.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if id(node) not in self._callee_ids:
            self.references.append(node)
        walk(self, node.value)  # not `attr`: the `load` of `tl.load` is no reference to a helper named `load`
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            if alias.evaluated_alias is not None:
                self.imports[alias.evaluated_alias] = (0, dotted_name(alias.name), None)
        return False  # an imported name is no use of it

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False  # from_imports reads these

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(isinstance(t.target, cst.Name) and t.target.value == "__all__" for t in node.targets) and \
                isinstance(node.value, (cst.List, cst.Tuple)):
            strings = [e.value.evaluated_value for e in node.value.elements if isinstance(e.value, cst.SimpleString)]
            self.public |= {s for s in strings if isinstance(s, str)}  # a bytes literal names nothing


def leading_name(expression: cst.BaseExpression) -> str | None:
    """`a` of `a.b.c`."""
    while type(expression) is cst.Attribute:
        expression = expression.value
    return expression.value if type(expression) is cst.Name else None


def from_imports(unit: Unit) -> dict[str, tuple[int, str | None, str]]:
    """`from .mod import f` / `from pkg.mod import f as g`: local -> (level, module, attribute)."""
    found = {}
    for statement in unit.module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
                continue
            module = dotted_name(small.module) if small.module is not None else ""
            for alias in small.names:
                found[alias.evaluated_alias or alias.evaluated_name] = (len(small.relative), module,
                                                                         alias.evaluated_name)
    return found

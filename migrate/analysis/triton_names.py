"""Which names in a module refer to `triton.language` and its members.

Block-pointer code reaches the API as `tl.load`, `language.load`, `triton.language.load` or a bare
`load` imported with `from triton.language import load`; we resolve all of them by import, never by
spelling, so a local variable that happens to be called `tl` is not mistaken for the module. The facts
are collected from libcst trees (for rewriting) or stdlib ast trees (the cheap pre-check).
"""

from __future__ import annotations

import ast

import libcst as cst

LANGUAGE = "triton.language"


def dotted_name(node: cst.BaseExpression) -> str | None:
    kind = type(node)  # not isinstance (an ABC's, a Python call): asked of every call's callee
    if kind is cst.Name:
        return node.value
    if kind is cst.Attribute:
        head = dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def _ast_dotted_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _ast_dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def _module_level(body, try_kind, kind) -> list:
    """The module's statements of `kind`, those of a `try:` body included (Megatron-LM imports triton in `try:`
    and binds `tl` to a mock in `except ImportError:`, where no kernel runs)."""
    found = []
    for statement in body:
        if isinstance(statement, try_kind):
            found += _module_level(statement.body.body if try_kind is cst.Try else statement.body, try_kind, kind)
        elif isinstance(statement, kind):
            found.append(statement)
    return found


class TritonNames:
    """Import-level facts about one module: which local names mean `triton.language` or its members."""

    def __init__(self) -> None:
        self.module_aliases: dict[str, str] = {}  # local name -> "triton" or "triton.language"
        self.member_aliases: dict[str, str] = {}  # local name -> member of triton.language

    @classmethod
    def of_cst(cls, module: cst.Module) -> "TritonNames":
        names = cls()
        for statement in _module_level(module.body, cst.Try, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        names.imported(dotted_name(alias.name), alias.asname and alias.asname.name.value)
                elif isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None \
                        and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        local = alias.asname.name.value if alias.asname is not None else alias.name.value
                        names.imported_from(dotted_name(small.module), alias.name.value, local)
        return names

    @classmethod
    def of_ast(cls, module: ast.Module) -> "TritonNames":
        names = cls()
        for statement in _module_level(module.body, ast.Try, ast.stmt):
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    names.imported(alias.name, alias.asname)
            elif isinstance(statement, ast.ImportFrom) and not statement.level and statement.module:
                for alias in statement.names:
                    names.imported_from(statement.module, alias.name, alias.asname or alias.name)
        return names

    def imported(self, full: str | None, asname: str | None) -> None:
        if full not in ("triton", LANGUAGE):
            return
        if asname is not None:
            self.module_aliases[asname] = full
        else:  # `import triton.language` binds `triton`
            self.module_aliases["triton"] = "triton"

    def imported_from(self, source: str | None, imported: str, local: str) -> None:
        if source == "triton" and imported == "language":
            self.module_aliases[local] = LANGUAGE
        elif source == LANGUAGE:
            self.member_aliases[local] = imported

    def member(self, func: cst.BaseExpression) -> str | None:
        """The `triton.language` member that `func` names, e.g. "load" for `tl.load`."""
        return self.member_of(dotted_name(func))

    def ast_member(self, func: ast.expr) -> str | None:
        return self.member_of(_ast_dotted_name(func))

    def member_of(self, dotted: str | None) -> str | None:
        if dotted is None:
            return None
        owner, _, attr = dotted.rpartition(".")
        if not owner:
            return self.member_aliases.get(attr)
        head, _, rest = owner.partition(".")
        module = self.module_aliases.get(head)
        if module is None:
            return None
        return attr if (f"{module}.{rest}" if rest else module) == LANGUAGE else None

    def triton_prefix(self) -> str | None:
        """How this module spells `triton`, if it imports it."""
        return next((local for local, full in sorted(self.module_aliases.items()) if full == "triton"), None)

    def language_prefix(self) -> str | None:
        """How this module spells `triton.language`, if it imports it as a module."""
        for local, full in sorted(self.module_aliases.items()):
            if full == LANGUAGE:
                return local
        if "triton" in self.module_aliases:
            return "triton.language"
        return None

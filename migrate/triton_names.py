"""Which names in a module refer to `triton.language` and its members.

Block-pointer code reaches the API as `tl.load`, `language.load`, `triton.language.load` or a bare
`load` imported with `from triton.language import load`; we resolve all of them by import, never by
spelling, so a local variable that happens to be called `tl` is not mistaken for the module.
"""

from __future__ import annotations

import libcst as cst

LANGUAGE = "triton.language"


def dotted_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


class TritonNames:
    """Import-level facts about one module: which local names mean `triton.language` or its members."""

    def __init__(self, module: cst.Module) -> None:
        self.module_aliases: dict[str, str] = {}  # local name -> "triton" or "triton.language"
        self.member_aliases: dict[str, str] = {}  # local name -> member of triton.language
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Import):
                    self._add_import(small)
                elif isinstance(small, cst.ImportFrom):
                    self._add_import_from(small)

    def _add_import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted_name(alias.name)
            if full not in ("triton", LANGUAGE):
                continue
            if alias.asname is not None:
                self.module_aliases[alias.asname.name.value] = full
            else:  # `import triton.language` binds `triton`
                self.module_aliases["triton"] = "triton"

    def _add_import_from(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        source = dotted_name(node.module)
        for alias in node.names:
            imported = alias.name.value
            local = alias.asname.name.value if alias.asname is not None else imported
            if source == "triton" and imported == "language":
                self.module_aliases[local] = LANGUAGE
            elif source == LANGUAGE:
                self.member_aliases[local] = imported

    def member(self, func: cst.BaseExpression) -> str | None:
        """The `triton.language` member that `func` names, e.g. "load" for `tl.load`."""
        if isinstance(func, cst.Name):
            return self.member_aliases.get(func.value)
        if not isinstance(func, cst.Attribute):
            return None
        owner = dotted_name(func.value)
        if owner is None:
            return None
        head, _, rest = owner.partition(".")
        module = self.module_aliases.get(head)
        if module is None:
            return None
        full = f"{module}.{rest}" if rest else module
        return func.attr.value if full == LANGUAGE else None

    def language_prefix(self) -> str | None:
        """How this module spells `triton.language`, if it imports it as a module."""
        for local, full in sorted(self.module_aliases.items()):
            if full == LANGUAGE:
                return local
        if "triton" in self.module_aliases:
            return "triton.language"
        return None

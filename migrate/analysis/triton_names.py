"""Which names in a module refer to `triton.language` and its members.

Block-pointer code reaches the API as `tl.load`, `language.load`, `triton.language.load` or a bare
`load` imported with `from triton.language import load`; we resolve all of them by import, never by
spelling, so a local variable that happens to be called `tl` is not mistaken for the module. The facts
are collected from libcst trees (for rewriting) or stdlib ast trees (the cheap pre-check).
"""

from __future__ import annotations

import ast

import libcst as cst

from triton_migrate.syntax.ast_walk import ast_nodes

from .borrowed import Borrowed

LANGUAGE = "triton.language"


def dotted_name(node: cst.BaseExpression) -> str | None:
    # type(), not isinstance (an ABC's, a Python call): asked of every call's callee
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        head = dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def ast_dotted_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = ast_dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def _module_level(body, try_kind, kind, functions: bool = False) -> list:
    """The module's statements of `kind`, those in every branch of its top-level `try:` and `if` statements
    included: Megatron-LM imports triton in `try:` and binds `tl` to a mock in `except ImportError:`, vLLM under
    `if TYPE_CHECKING or HAS_TRITON:` and to a placeholder under `else:`, where no kernel runs. (A name that some
    branch imports from elsewhere is no longer triton's: TritonNames.settle.) `try_kind`: `cst.Try` or `ast.Try`.
    `functions`: those in the bodies of its functions too, at any depth (a kernel factory's `import triton`)."""
    found = []
    for statement in body:
        branches = _branches(statement, try_kind is cst.Try, functions)
        if branches is not None:
            for branch in branches:
                found += _module_level(branch, try_kind, kind, functions)
        elif isinstance(statement, kind):
            found.append(statement)
    return found


def _branches(statement, is_cst: bool, functions: bool) -> list | None:
    """The bodies of a `try:` (its handlers', `else:` and `finally:` too) or an `if` (its `elif`s and `else:`),
    and with `functions` of a function, as lists of statements; None for any other statement."""
    if is_cst:
        if isinstance(statement, cst.If):
            orelse = statement.orelse
            return [statement.body.body] + ([] if orelse is None else [[orelse]] if isinstance(orelse, cst.If)
                                            else [orelse.body.body])
        if isinstance(statement, cst.Try):
            return [statement.body.body, *(h.body.body for h in statement.handlers),
                    *(part.body.body for part in (statement.orelse, statement.finalbody) if part is not None)]
        if functions and isinstance(statement, cst.FunctionDef):
            return [statement.body.body]
        return None
    if isinstance(statement, ast.If):
        return [statement.body, statement.orelse]
    if isinstance(statement, ast.Try):
        return [statement.body, *(h.body for h in statement.handlers), statement.orelse, statement.finalbody]
    if functions and isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [statement.body]
    return None


class TritonNames:
    """Import-level facts about one module: which local names mean `triton.language` or its members."""

    def __init__(self) -> None:
        self.module_aliases: dict[str, str] = {}  # local name -> "triton" or "triton.language"
        self.member_aliases: dict[str, str] = {}  # local name -> member of triton.language
        # Local names some import binds to anything else -> the module a re-export takes the name from, as
        # written (`from vllm.triton_utils import tl`), or None: another package's module (`import
        # other_triton.language as tl`, `from other_triton import language as tl`).
        self._elsewhere: dict[str, str | None] = {}
        # Names triton's by one import and re-exported by another (settle): local -> (module, what it is assumed to
        # be: "triton", "triton.language" or a member's full name).
        self.assumed: dict[str, tuple[str, str]] = {}

    @classmethod
    def of_cst(cls, module: cst.Module) -> TritonNames:
        """The names the module binds, in its functions too (the names the kernels it holds read)."""
        names = cls()
        for statement in _module_level(module.body, cst.Try, cst.SimpleStatementLine, functions=True):
            for small in statement.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        names.imported(dotted_name(alias.name), alias.evaluated_alias)
                elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    source = "." * len(small.relative) + (dotted_name(small.module) or "" if small.module else "")
                    for alias in small.names:
                        names.imported_from(source, alias.evaluated_name, alias.evaluated_alias or alias.evaluated_name)
        return names.settle()

    @classmethod
    def of_ast(cls, module: ast.Module, functions: bool = True) -> TritonNames:
        """The names the module binds; without `functions`, only those of its top level (what it exports)."""
        names = cls()
        for statement in _module_level(module.body, ast.Try, ast.stmt, functions):
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    names.imported(alias.name, alias.asname)
            elif isinstance(statement, ast.ImportFrom):
                source = "." * statement.level + (statement.module or "")
                for alias in statement.names:
                    names.imported_from(source, alias.name, alias.asname or alias.name)
        return names.settle()

    @classmethod
    def exported_by(cls, module: ast.Module) -> TritonNames:
        """The names a module binds at its top level for those that import them, but for the assumed ones: what
        it shows, which no report need qualify."""
        names = cls.of_ast(module, functions=False)
        for aliases in (names.module_aliases, names.member_aliases):
            for name in names.assumed.keys() & aliases.keys():
                del aliases[name]
        names.assumed = {}
        return names

    def settle(self) -> TritonNames:
        """Unbind the names that some branch of the module imports from another package (`except ImportError:
        import other_triton.language as tl`): which module they are depends on the run. A name that one branch
        imports from triton and another from a module that re-exports it (`try: from vllm.triton_utils import
        tl` / `except ImportError: import triton.language as tl`) is triton's in both, by assumption: the module
        serves the same kernels with either, and the report says what it assumed (`assumed`)."""
        for aliases in (self.module_aliases, self.member_aliases):
            for name in self._elsewhere.keys() & aliases.keys():
                source = self._elsewhere[name]
                if source is None:
                    del aliases[name]
                else:
                    full = aliases[name] if aliases is self.module_aliases else f"{LANGUAGE}.{aliases[name]}"
                    self.assumed[name] = (source, full)
        return self

    def imported(self, full: str | None, asname: str | None) -> None:
        if full not in ("triton", LANGUAGE):
            if (full or "").partition(".")[0] != "triton":
                self._bound_elsewhere(asname or (full or "").partition(".")[0], None)
            return
        if asname is not None:
            self.module_aliases[asname] = full
        else:  # `import triton.language` binds `triton`
            self.module_aliases["triton"] = "triton"

    def imported_from(self, source: str, imported: str, local: str) -> None:
        """`from <source> import <imported> as <local>`; `source` as written (`.common` for a relative import)."""
        if source == "triton" and imported == "language":
            self.module_aliases[local] = LANGUAGE
        elif source == LANGUAGE:
            self.member_aliases[local] = imported
        elif source.partition(".")[0] != "triton":
            language = imported == "language" or source.rpartition(".")[2] == "language"
            self._bound_elsewhere(local, None if language else source)

    def _bound_elsewhere(self, local: str, source: str | None) -> None:
        """`local` bound by an import of `source` (None: another package's module); once by such, always."""
        self._elsewhere[local] = source if self._elsewhere.get(local, source) is not None else None

    def adopt(self, other: TritonNames | None) -> None:
        """Bind as `other` does the names this module does not bind itself (those it imports from a module of
        the program that binds them: `reexported`)."""
        if other is not None:
            self.assumed = {name: found for name, found in self.assumed.items() if name not in other.bound}
            for mine, theirs in ((self.module_aliases, other.module_aliases),
                                 (self.member_aliases, other.member_aliases)):
                mine.update((local, full) for local, full in theirs.items() if local not in self.bound)

    def adopt_outside(self, borrowed: tuple[Borrowed, ...]) -> None:
        """Bind the names this module imports from modules outside the run that bind them to triton, unless
        they are bound here already."""
        for binding in borrowed:
            if binding.local in self.bound:
                continue
            if binding.full in ("triton", LANGUAGE):
                self.module_aliases[binding.local] = binding.full
            elif binding.full.startswith(LANGUAGE + "."):
                self.member_aliases[binding.local] = binding.full[len(LANGUAGE) + 1:]

    @property
    def bound(self) -> set[str]:
        return self.module_aliases.keys() | self.member_aliases.keys()

    def take(self, local: str, imported: str, source: TritonNames, kept: set[str]) -> bool:
        """Bind `local` to what `source` binds `imported` to (`*`: every public name it binds), unless it is
        bound here or in `kept` (the importer's own bindings); whether anything was new."""
        new = False
        for mine, theirs in ((self.module_aliases, source.module_aliases),
                             (self.member_aliases, source.member_aliases)):
            for name, full in theirs.items():
                bound_as = local if imported != "*" else name
                if (name == imported or imported == "*" and not name.startswith("_")) and \
                        bound_as not in self.bound and bound_as not in kept:
                    mine[bound_as] = full
                    new = True
        return new

    def member(self, func: cst.BaseExpression) -> str | None:
        """The `triton.language` member that `func` names, e.g. "load" for `tl.load`."""
        return self.member_of(dotted_name(func))

    def ast_member(self, func: ast.expr) -> str | None:
        return self.member_of(ast_dotted_name(func))

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


def module_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """The module's `from ... import ...` statements, in every branch of its top-level `try:` and `if`."""
    return _module_level(tree.body, ast.Try, ast.ImportFrom)


def reexported(trees: dict[str, ast.Module], locate) -> dict[str, TritonNames]:
    """Per module, the names of triton it takes from another module of `trees` (`from .common import tl,
    triton`, where common.py imports them): Megatron-LM imports triton in one module, in a `try:` with a mock
    fallback, and its kernel modules take `tl` from there; a chain of such modules is followed. `locate(
    importer, level, module)`: the module of `trees` that an import names, or None."""
    own = {name: TritonNames.exported_by(tree) for name, tree in trees.items()}
    imports = {name: [(target, alias.name, alias.asname or alias.name)
                      for statement in module_imports(tree) for alias in statement.names
                      if (target := locate(name, statement.level, statement.module or "")) in own and target != name]
               for name, tree in trees.items()}
    taken = {name: TritonNames() for name in imports}
    changed = True
    while changed:  # each round binds a name more, or ends
        changed = False
        for name, found in imports.items():
            kept = own[name].bound
            for target, imported, local in found:
                changed |= taken[name].take(local, imported, own[target], kept)
                changed |= taken[name].take(local, imported, taken[target], kept)
    return {name: names for name, names in taken.items() if names.bound}


def import_sources(tree: ast.Module) -> dict[str, str]:
    """Local name -> the module an import of the module (in its functions too) binds it from, as written
    (`vllm.triton_utils`, `.common`, `triton.language`); of a name imported from triton and elsewhere, elsewhere."""
    sources: dict[str, str] = {}
    for statement in _module_level(tree.body, ast.Try, ast.stmt, functions=True):
        if isinstance(statement, ast.ImportFrom):
            source = "." * statement.level + (statement.module or "")
            found = [(a.asname or a.name, source) for a in statement.names]
        elif isinstance(statement, ast.Import):
            found = [(a.asname or a.name.partition(".")[0], a.name) for a in statement.names]
        else:
            continue
        for local, source in found:
            if sources.get(local, "triton").partition(".")[0] == "triton":
                sources[local] = source
    return sources


def imported_elsewhere(tree: ast.Module, names: TritonNames) -> list[tuple[ast.Call, str, str]]:
    """The block-pointer calls on a name the module imports from a module not known to bind it to triton
    (TTD202), with that name and where it is imported from: every `tl.make_block_ptr(...)`, or where there is none (a
    helper's module) every `tl.advance(...)` and load or store with `boundary_check` or `padding_option`."""
    unresolved = {local: source for local, source in import_sources(tree).items()
                  if local not in names.bound and source.partition(".")[0] != "triton"}
    if not unresolved:
        return []
    creations, uses = [], []
    for node in ast_nodes(tree):
        if type(node) is not ast.Call or (dotted := ast_dotted_name(node.func)) is None:
            continue
        head, member = dotted.partition(".")[0], dotted.rpartition(".")[2]
        if head not in unresolved:
            continue
        if member == "make_block_ptr":
            creations.append((node, head, unresolved[head]))
        elif member == "advance" or member in ("load", "store") and \
                {k.arg for k in node.keywords} & {"boundary_check", "padding_option"}:
            uses.append((node, head, unresolved[head]))
    return creations or uses

"""The migrated copy of the user's tree: copied to a temporary directory, then every file that `migrate
--write` would rewrite is replaced by what it would write: the same files (discovery, excludes, .gitignore),
the same configuration for each (its nearest pyproject.toml, per-file-ignores, line length, the command
line's options), files that share helpers migrated together. The user's tree is only read."""

from __future__ import annotations

import ast
import dataclasses
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from triton_migrate.frontend.discover import DEFAULT_EXCLUDES
from triton_migrate.policy import Layout, Policy


@dataclass(frozen=True)
class Migration:
    """How files are migrated: as `migrate --write` with these configuration options would (`options`: the
    default command's names, e.g. target, strict, config_file, isolated; missing ones are not set), each
    file's policy passed through `override` if given (`migrate tune`'s candidate)."""

    options: dict = field(default_factory=dict)
    override: Callable[[Policy], Policy] | None = None
    standalone: bool = False  # the module is imported by its path alone (runs.Options.standalone)

    def analyse(self, paths: list[Path]):
        """runs.Analysed for `paths`, as `--write` analyses them before it writes; and the resolver used."""
        import click

        from triton_migrate.frontend import runs
        from triton_migrate.frontend.config import ConfigError
        from triton_migrate.frontend.options import ConfigurationError

        try:
            resolver, run = runs.resolve(self.options)
            options = runs.Options(mode="write", quiet=True, jobs=run.jobs or os.cpu_count() or 1,
                                   policy_override=self.override, standalone=self.standalone)
            # a nested pyproject.toml is only read when a file under it is reached: analyse_paths may raise too
            return runs.analyse_paths([str(p) for p in paths], (), run.respect_gitignore, resolver, options), resolver
        except ConfigError as error:
            raise ConfigurationError(error) from None
        except runs.OptionError as error:
            raise click.UsageError(str(error)) from None


@dataclass
class MigratedTree:
    root: Path
    migrated: list[str] = field(default_factory=list)  # relative paths rewritten by the codemod
    replaced: list[str] = field(default_factory=list)  # relative paths given by the user (--migrated)
    refused: dict[str, int] = field(default_factory=dict)  # relative path → sites left as they are
    errors: dict[str, str] = field(default_factory=dict)  # relative path → why it could not be migrated
    # relative path → (policy, layout, its configuration file, where each setting not left at its default was set)
    policies: dict[str, tuple[Policy, Layout, str | None, dict]] = field(default_factory=dict)
    # relative path → function name → the stated facts its descriptors rely on (facts.py checks them)
    stated_facts: dict[str, dict[str, list[dict]]] = field(default_factory=dict)
    # "path:function" of the kernels that sum what a descriptor loads: they may round otherwise (TTD001's note)
    summing: list[str] = field(default_factory=list)

    def policy_groups(self) -> list[dict]:
        """Which policy migrated which files, for the verdict: per distinct policy, its fields (`policy`),
        those that differ from the defaults (`non_default`), the configuration file it came from (None:
        built-in defaults and the command line), where each setting was set (`origins`: policy field → a
        file or "command line"; a field not there has its default) and the files."""
        groups: dict[tuple, dict] = {}
        for rel, (policy, layout, source, origins) in sorted(self.policies.items()):
            entry = groups.setdefault((repr(policy), repr(layout), source, repr(sorted(origins.items()))), {
                "policy": _with_layout(dataclasses.asdict(policy), layout), "non_default": _non_default(policy, layout),
                "configuration": source, "origins": origins, "files": []})
            entry["files"].append(rel)
        return list(groups.values())

    def facts_by_kernel(self) -> dict[str, list[dict]]:
        """"path:function" (as the recorder names a kernel's source) → the stated facts it relies on."""
        return {f"{rel}:{function}": facts for rel, functions in self.stated_facts.items()
                for function, facts in functions.items()}


def _with_layout(fields: dict, layout: Layout) -> dict:
    """A policy's fields (name -> value) and the layout's settings, as the verdict records the settings a file
    was migrated under: the layout's under the names, and at the place, they had while the policy held them."""
    items = list(fields.items())
    at = list(fields).index("assume")
    own = [("line_length", layout.line_length), ("line_length_from_code", layout.from_code)]
    return dict(items[:at] + own + items[at:])


def _non_default(policy: Policy, layout: Layout) -> dict:
    default = _with_layout(_fields(Policy()), Layout())
    return {name: value for name, value in _with_layout(_fields(policy), layout).items() if value != default[name]}


def _fields(policy: Policy) -> dict:
    return {f.name: getattr(policy, f.name) for f in dataclasses.fields(policy)}


def _ignored(directory: str, names: list[str]) -> set[str]:
    """Version control, caches, virtual environments and pip --target trees are not part of the program
    (copying them would be slow, and a stale bytecode cache could run the original code)."""
    skipped = {n for n in names if n in DEFAULT_EXCLUDES or n.endswith(".tmv")}
    for name in names:
        path = os.path.join(directory, name)
        if os.path.isdir(path) and (os.path.exists(os.path.join(path, "pyvenv.cfg"))
                                    or any(n.endswith(".dist-info") for n in os.listdir(path))):
            skipped.add(name)
    return skipped


def make_migrated_copy(root: Path, paths: list[Path], dest: Path, replacements: dict[str, Path],
                       migration: Migration) -> MigratedTree:
    """A copy of `root` at `dest` where the files under `paths` are migrated, and the `replacements`
    (relative path → file) put in place."""
    if dest.exists():  # a copy left in a --keep directory by an earlier run
        shutil.rmtree(dest)
    shutil.copytree(root, dest, ignore=_ignored, symlinks=True)
    tree = MigratedTree(dest)
    migrate_into(tree, root, paths, migration, skip=set(replacements))
    for rel, replacement in replacements.items():
        _put(dest / rel, replacement.read_bytes())
        tree.replaced.append(rel)
    return tree


def migrate_into(tree: MigratedTree, root: Path, paths: list[Path], migration: Migration, skip=frozenset()) -> None:
    """Migrate the files under `paths` (in `root`, the working directory for relative ones) as `--write`
    would, writing each one it would rewrite to the same relative path under `tree.root` where the copy
    has it, except those in `skip`. Originals are only read."""
    analysed, resolver = migration.analyse(paths)
    policies = {job.path: (job.policy, job.layout) for job in analysed.jobs}
    for path, why in analysed.errors:
        tree.errors[_relative(path, root)] = why
    for result in analysed.results:
        rel = _relative(result.path, root)
        target = tree.root / rel
        made = result.path not in policies  # a file --write adds (a package's launch support module)
        if rel in skip or not _in_copy(target, tree.root, made):  # replaced by hand, or not part of the copy
            continue
        if not made:
            config = resolver.for_path(result.path)
            origins = {name: where if where == "command line" else _shown(where, root)
                       for name, where in config.origins.items()}
            tree.policies[rel] = (*policies[result.path], _shown(config.source, root), origins)
        if result.error:  # not migrated at all (not analysed, or the rewrite failed): every creation is left
            tree.refused[rel] = _block_pointers(target.read_bytes() if target.is_file() else b"")
            tree.errors[rel] = result.error
            continue
        if result.left or result.suppressed:  # as `migrate --check` counts them, and those it hides: Triton <= 3.8
            tree.refused[rel] = result.left + result.suppressed
        if result.new_data is not None:
            _put(target, result.new_data)
            tree.migrated.append(rel)
            if result.stated_facts:
                tree.stated_facts[rel] = _by_name(result.stated_facts)
            tree.summing += [f"{rel}:{function}" for function in result.summing]


def _by_name(stated: tuple) -> dict[str, list[dict]]:
    """FileResult.stated_facts by function name; a name two functions of the module share (methods of two
    classes) is left out: the recorder, which finds a kernel by its name, could check the other's facts."""
    names = [name for name, _ in stated]
    return {name: list(facts) for name, facts in stated if names.count(name) == 1}


def _block_pointers(source: bytes) -> int:
    """How many `make_block_ptr` calls a module still makes (Triton 3.9 has none)."""
    if b"make_block_ptr" not in source:
        return 0
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return 0
    return sum(isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) ==
               "make_block_ptr" for node in ast.walk(tree))


def _in_copy(target: Path, copy: Path, made: bool = False) -> bool:
    """The copy has this file (its directory, for a file `made` by the migration), in a directory of its own
    (not one a copied symbolic link leads out of)."""
    present = target.parent.is_dir() if made else os.path.lexists(target)
    return present and target.parent.resolve().is_relative_to(copy.resolve())


def _shown(source: str | None, root: Path) -> str | None:
    """A configuration file's path as the verdict shows it: relative to the tree when it lies in it."""
    if source is None or not Path(source).resolve().is_relative_to(root.resolve()):
        return source
    return _relative(source, root)


def _relative(path: str, root: Path) -> str:
    """`path` relative to `root` (resolved), through whatever symbolic links lead to its directory."""
    directory, name = os.path.split(os.path.abspath(path))
    return os.path.relpath(os.path.join(os.path.realpath(directory), name), root)


def _put(target: Path, data: bytes) -> None:
    """Write a file of the copy; a symbolic link copied from the tree is replaced, not written through."""
    if target.is_symlink():
        target.unlink()
    target.write_bytes(data)

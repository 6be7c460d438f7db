"""The migrated copy of the user's tree: copied to a temporary directory, then every Python file under the
given paths that needs it is replaced by `migrate_source`'s output. The user's tree is only read."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from triton_migrate.frontend.discover import DEFAULT_EXCLUDES


@dataclass
class MigratedTree:
    root: Path
    migrated: list[str] = field(default_factory=list)  # relative paths rewritten by the codemod
    replaced: list[str] = field(default_factory=list)  # relative paths given by the user (--migrated)
    refused: dict[str, int] = field(default_factory=dict)  # relative path → sites left as they are
    errors: dict[str, str] = field(default_factory=dict)  # relative path → why it could not be migrated


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
                       policy=None) -> MigratedTree:
    if dest.exists():  # a copy left in a --keep directory by an earlier run
        shutil.rmtree(dest)
    shutil.copytree(root, dest, ignore=_ignored, symlinks=True)
    tree = MigratedTree(dest)
    for source in _python_files(root, paths):
        rel = str(source.relative_to(root))
        if rel in replacements:
            continue
        migrate_file(source, dest / rel, rel, tree, policy)
    for rel, replacement in replacements.items():
        shutil.copyfile(replacement, dest / rel)
        tree.replaced.append(rel)
    return tree


def _python_files(root: Path, paths: list[Path]):
    for path in paths:
        path = (root / path).resolve()
        if path.is_file():
            yield path
            continue
        for directory, subdirs, files in os.walk(path):
            subdirs[:] = sorted(set(subdirs) - _ignored(directory, subdirs))
            yield from (Path(directory) / f for f in sorted(files) if f.endswith(".py"))


def migrate_file(source: Path, target: Path, rel: str, tree: MigratedTree, policy=None) -> None:
    # imported here: a run whose migrated files all come from --migrated needs no libcst
    from triton_migrate.analysis.prefilter import might_need_migration
    from triton_migrate.engine import InternalError, SourceError, migrate_source

    data = source.read_bytes()
    if not might_need_migration(data):
        return
    try:
        outcome = migrate_source(data.decode("utf-8"), policy=policy)
    except (UnicodeDecodeError, SourceError, InternalError) as error:
        tree.errors[rel] = str(error)
        return
    if outcome.refused:
        tree.refused[rel] = len(outcome.refused)
    if outcome.new_source is not None:
        target.write_text(outcome.new_source, encoding="utf-8")
        tree.migrated.append(rel)

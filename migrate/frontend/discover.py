"""Find the Python files a run covers: walk directories, honour .gitignore files and excludes."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import pathspec

# ruff's default `exclude` list, plus __pycache__ (it never holds sources worth reading).
DEFAULT_EXCLUDES = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".triton-migrate-cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)


@dataclass(frozen=True)
class Discovery:
    files: list[str]  # sorted, as the user will see them
    errors: list[tuple[str, str]]  # (path, message): paths that could not be walked


class _Layer:
    """One set of gitignore-style patterns and the directory they are relative to."""

    def __init__(self, base: str, spec: pathspec.PathSpec) -> None:
        self.base = base  # absolute
        self.spec = spec
        self._last_match = _last_match(spec)

    def decision(self, abs_path: str, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included by a `!` pattern, None: no pattern matches."""
        rel = os.path.relpath(abs_path, self.base).replace(os.sep, "/")
        if is_dir:
            rel += "/"  # lets `name/` patterns match directories only, as in git
        found = self._last_match(rel)
        return None if found is None else found.lastgroup[0] == "i"


def _last_match(spec: pathspec.PathSpec):
    """One regex for all the patterns, the last first: its match names the last pattern that matches,
    whose verdict wins within one file (git semantics). Matching a path is then one search, not one per
    pattern (there are some thirty default excludes, and a site-packages tree has thousands of paths)."""
    alternatives = [f"(?P<{'i' if p.include else 'x'}{n}>{_INNER_GROUP.sub('(?:', p.regex.pattern)})"
                    for n, p in enumerate(spec.patterns) if p.include is not None]
    return re.compile("|".join(reversed(alternatives)) or "(?!)").match


_INNER_GROUP = re.compile(r"\(\?P<\w+>")  # pathspec names a group in each pattern: one name, many patterns


@dataclass(frozen=True)
class _Walk:
    excludes: _Layer
    respect_gitignore: bool
    files: dict[str, str]  # absolute path -> display path (deduplicates overlapping arguments)
    errors: list[tuple[str, str]]

    def skip(self, abs_path: str, is_dir: bool, gitignores: list[_Layer]) -> bool:
        return bool(self.excludes.decision(abs_path, is_dir)) or self.gitignored(abs_path, is_dir, gitignores)

    def gitignored(self, abs_path: str, is_dir: bool, gitignores: list[_Layer]) -> bool:
        if not self.respect_gitignore:
            return False
        # A deeper .gitignore overrides a shallower one, as in git: the deepest with an opinion wins.
        for layer in reversed(gitignores):
            decision = layer.decision(abs_path, is_dir)
            if decision is not None:
                return decision
        return False

    def tree(self, abs_dir: str, shown: str, gitignores: list[_Layer]) -> None:
        # An explicit stack, not recursion: a tree thousands of directories deep must not overflow.
        pending = [(abs_dir, shown, gitignores)]
        while pending:
            pending.extend(self.directory(*pending.pop()))

    def directory(self, abs_dir: str, shown: str, gitignores: list[_Layer]) -> list[tuple[str, str, list[_Layer]]]:
        """Record the directory's Python files; return its subdirectories to walk."""
        try:
            entries = sorted(os.scandir(abs_dir), key=lambda entry: entry.name)
        except OSError as exc:
            self.errors.append((shown, f"cannot list directory: {exc.strerror or exc}"))
            return []
        subdirectories = []
        for entry in entries:
            # Symlinked directories are not followed (no cycles; ruff does the same).
            is_dir = _is_dir(entry)
            if not is_dir and not entry.name.endswith(".py"):  # before any pattern: most files of a tree
                continue
            abs_path = os.path.join(abs_dir, entry.name)
            if self.skip(abs_path, is_dir, gitignores):
                continue
            child = entry.name if shown == "." else os.path.join(shown, entry.name)
            if is_dir:
                subdirectories.append((abs_path, child, self.with_gitignore(gitignores, abs_path)))
            else:
                self.files.setdefault(abs_path, child)
        return subdirectories

    def with_gitignore(self, gitignores: list[_Layer], abs_dir: str) -> list[_Layer]:
        if not self.respect_gitignore:
            return gitignores
        path = os.path.join(abs_dir, ".gitignore")
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except FileNotFoundError:
            return gitignores
        except OSError as exc:
            self.errors.append((path, f"cannot read: {exc.strerror or exc}"))
            return gitignores
        return [*gitignores, _Layer(abs_dir, _spec(lines)[0])]

    def ancestors(self, abs_dir: str) -> list[_Layer]:
        """The .gitignore files that apply to abs_dir: from the repository's top down to abs_dir itself."""
        chain = [abs_dir]
        while not os.path.exists(os.path.join(chain[-1], ".git")):
            parent = os.path.dirname(chain[-1])
            if parent == chain[-1]:
                chain = [abs_dir]  # not inside a git work tree: only the walked tree's own files count
                break
            chain.append(parent)
        layers: list[_Layer] = []
        for directory in reversed(chain[1:]):
            layers = self.with_gitignore(layers, directory)
        if self.gitignored(abs_dir, True, layers):
            # Named on the command line, it is checked anyway (as ruff does): what ignores the directory
            # itself no longer applies, what ignores files inside it still does, relative to it.
            layers = [_Layer(abs_dir, layer.spec) for layer in layers]
        return self.with_gitignore(layers, abs_dir)


def discover(paths: list[str], exclude: tuple[str, ...] = (), respect_gitignore: bool = True) -> Discovery:
    """Python files under `paths`. Files named explicitly are always included, whatever their name, and
    directories named explicitly are walked even if excluded or gitignored themselves."""
    cwd = os.getcwd()
    spec, invalid = _spec([*DEFAULT_EXCLUDES, *exclude])
    files: dict[str, str] = {}
    errors = [(f"--exclude {pattern}", "invalid pattern, ignored") for pattern in invalid]
    for path in paths:
        shown = os.path.normpath(path)
        abs_path = os.path.abspath(path)
        if os.path.isdir(path):
            # Exclude patterns are relative to the working directory, as ruff's are to the project root;
            # a directory named explicitly is walked even if a pattern matches it (`migrate .venv/lib/...`).
            named_excluded = _is_within(abs_path, cwd) and spec.match_file(os.path.relpath(abs_path, cwd) + "/")
            base = cwd if _is_within(abs_path, cwd) and not named_excluded else abs_path
            walk = _Walk(_Layer(base, spec), respect_gitignore, files, errors)
            walk.tree(abs_path, shown, walk.ancestors(abs_path))
        elif os.path.lexists(path):  # a broken symlink still gets read, and so reported
            files.setdefault(abs_path, shown)
        else:
            errors.append((path, "No such file or directory"))
    return Discovery(sorted(files.values()), errors)

def _is_within(path: str, directory: str) -> bool:
    return os.path.commonpath([path, directory]) == directory


def _spec(lines: list[str]) -> tuple[pathspec.GitIgnoreSpec, list[str]]:
    """The patterns as one spec, and the lines that are not valid patterns (git ignores those: a .gitignore
    line such as `\\` or `[z-a]` must not stop the run)."""
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines), []
    except (ValueError, re.error):
        valid = [line for line in lines if _valid(line)]
        return pathspec.GitIgnoreSpec.from_lines(valid), [line for line in lines if line not in valid]


def _valid(line: str) -> bool:
    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except (ValueError, re.error):
        return False
    return True


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:  # vanished or unreadable since it was listed: report it as a file, when read
        return False

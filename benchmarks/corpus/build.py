"""Lay out the corpus: for every repository of repos.toml, the .py files of its pinned commit that call
`make_block_ptr`, plus the files of that commit they import from (transitively), so that block pointers
passed to helpers in other modules are seen as they are in the repository.

    python benchmarks/corpus/build.py MIRRORS_DIR OUT_DIR [--fetch] [--only OWNER/NAME ...]

MIRRORS_DIR holds one git repository (bare or not) per corpus entry, found as `OWNER+NAME/repo`,
`OWNER+NAME`, `OWNER__NAME.git` or `OWNER__NAME`. With --fetch, a missing one is cloned from GitHub
(`git clone --bare --filter=blob:none`) into `OWNER__NAME.git`. Each repository lands in
OUT_DIR/OWNER__NAME/ with its own paths (an entry's `dir` names another folder: a repository pinned twice,
at two commits); OUT_DIR/corpus.json records what was laid out, and the entry's `migrate-args` for
measure.py. The pinned commit must be in the mirror:
nothing here falls back to another commit.

Imports are resolved as Python would from the repository's own files: relative imports from the file's
package, absolute ones from the file's directory and from the directory above its outermost package (an
import of an installed package, `triton` or `torch`, resolves to nothing and is not followed). The
`__init__.py` of every package on the way to a laid-out file comes along, so packages stay packages.

The project's lint configuration comes along too: every file that configures ruff, isort, black or flake8
(`pyproject.toml`, `ruff.toml`, `.ruff.toml`, `.isort.cfg`, `setup.cfg`, `tox.ini`, `.flake8`) in a
directory that holds a laid-out file or one of its parents, and what a ruff configuration extends. Both
tools find it as they would in the repository (the nearest one upward), and so does `migrate`, which keeps
emitted code within the project's line length.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath

import tomllib

HERE = Path(__file__).resolve().parent
# Files that configure a linter or formatter (ruff, isort, black, flake8), by name, at any depth.
CONFIG_NAMES = ("pyproject.toml", "ruff.toml", ".ruff.toml", ".isort.cfg", "setup.cfg", "tox.ini", ".flake8")
# A call, not the definition (`def make_block_ptr(`) nor a mention in a comment or string that is not
# followed by an argument list.
_CALL = re.compile(rb"(?<!def )\bmake_block_ptr\s*\(")


def load_repos(path: Path = HERE / "repos.toml") -> list[dict]:
    with open(path, "rb") as f:
        return tomllib.load(f)["repo"]


def slug(name: str) -> str:
    return name.replace("/", "__")


def find_mirror(mirrors: Path, name: str) -> Path | None:
    owner, repo = name.split("/")
    for candidate in (f"{owner}+{repo}/repo", f"{owner}+{repo}", f"{owner}__{repo}.git", f"{owner}__{repo}"):
        path = mirrors / candidate
        if path.is_dir():
            return path
    return None


def git(mirror: Path, *args: str) -> bytes:
    done = subprocess.run(["git", f"--git-dir={_git_dir(mirror)}", *args], capture_output=True)
    if done.returncode:
        sys.exit(f"git {' '.join(args)} in {mirror}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def _git_dir(mirror: Path) -> Path:
    return mirror / ".git" if (mirror / ".git").exists() else mirror


def fetch(mirrors: Path, name: str, commit: str) -> Path:
    target = mirrors / f"{slug(name)}.git"
    subprocess.run(["git", "clone", "--bare", "--filter=blob:none", f"https://github.com/{name}.git",
                    str(target)], check=True)
    subprocess.run(["git", f"--git-dir={target}", "fetch", "origin", commit], check=False)
    return target


def python_files(mirror: Path, commit: str) -> dict[str, bytes]:
    """Every regular .py file of the commit, by its path in the repository. Only those are asked for: a
    mirror may lack large blobs (a PDF in LFS, a snapshot without files of some MiB)."""
    archive = tarfile.open(fileobj=io.BytesIO(git(mirror, "archive", "--format=tar", commit, "--", "*.py")))
    files = {}
    for member in archive:
        if member.isfile() and member.name.endswith(".py"):
            files[member.name] = archive.extractfile(member).read()
    return files


def config_files(mirror: Path, commit: str) -> dict[str, bytes]:
    """Every lint configuration file of the commit (CONFIG_NAMES), by its path in the repository."""
    names = git(mirror, "ls-tree", "-r", "--name-only", "-z", commit).decode(errors="surrogateescape").split("\0")
    wanted = [n for n in names if n and PurePosixPath(n).name in CONFIG_NAMES]
    if not wanted:
        return {}
    archive = tarfile.open(fileobj=io.BytesIO(git(mirror, "archive", "--format=tar", commit, "--", *wanted)))
    return {m.name: archive.extractfile(m).read() for m in archive if m.isfile()}


def configs_for(chosen: set[str], configs: dict[str, bytes]) -> set[str]:
    """The configuration files that govern the chosen files: those in a directory that holds one of them or
    one of its parents (the repository's root included), and the files a ruff configuration `extend`s."""
    directories = {parent for path in chosen for parent in PurePosixPath(path).parents}
    found = {path for path in configs if PurePosixPath(path).parent in directories}
    todo = list(found)
    while todo:
        base = _extended(todo.pop(), configs)
        if base is not None and base not in found:
            found.add(base)
            todo.append(base)
    return found


def _extended(path: str, configs: dict[str, bytes]) -> str | None:
    """The repository path that a ruff configuration's `extend` names, if it is one of `configs`."""
    try:
        table = tomllib.loads(configs[path].decode())
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    ruff = table.get("tool", {}).get("ruff", {}) if PurePosixPath(path).name == "pyproject.toml" else table
    extend = ruff.get("extend") if isinstance(ruff, dict) else None
    if not isinstance(extend, str):
        return None
    target = os.path.normpath(PurePosixPath(path).parent / extend)
    return target if target in configs else None


def excluded(path: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(path, pattern) for pattern in patterns)


def imports(path: str, data: bytes) -> set[tuple[int, str]]:
    """(level, module) for every module the file imports, `from a import b` giving both a and a.b."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return set()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {(0, alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            found.add((node.level, module))
            found |= {(node.level, ".".join(p for p in (module, alias.name) if p)) for alias in node.names}
    return found


class Resolver:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def is_package(self, directory: PurePosixPath) -> bool:
        return str(directory) != "." and str(directory / "__init__.py") in self.files

    def package_root(self, directory: PurePosixPath) -> PurePosixPath:
        while self.is_package(directory):
            directory = directory.parent
        return directory

    def __call__(self, importer: str, level: int, module: str) -> str | None:
        here = PurePosixPath(importer).parent
        for _ in range(level - 1):
            here = here.parent
        bases = [here] if level else list(dict.fromkeys((here, self.package_root(here))))
        parts = module.split(".") if module else []
        for base in bases:
            stem = base.joinpath(*parts)
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                candidate = candidate.removeprefix("./")
                if candidate in self.files:
                    return candidate
        return None

    def packages_above(self, path: str) -> list[str]:
        """The `__init__.py` of every package that holds the file."""
        inits = []
        directory = PurePosixPath(path).parent
        while self.is_package(directory):
            inits.append(f"{directory}/__init__.py")
            directory = directory.parent
        return inits


def select(files: dict[str, bytes], exclude: list[str]) -> tuple[list[str], set[str]]:
    """The files that call make_block_ptr, and those plus their import closure and package inits."""
    files = {p: d for p, d in files.items() if not excluded(p, exclude)}
    resolve = Resolver(files)
    seeds = sorted(p for p, d in files.items() if _CALL.search(d))
    chosen, todo = set(), list(seeds)
    while todo:
        path = todo.pop()
        if path in chosen:
            continue
        chosen.add(path)
        for level, module in imports(path, files[path]):
            found = resolve(path, level, module)
            if found and found not in chosen:
                todo.append(found)
    for path in list(chosen):
        chosen.update(resolve.packages_above(path))
    return seeds, chosen


def build(entry: dict, mirror: Path, out: Path) -> dict:
    files = python_files(mirror, entry["commit"])
    seeds, chosen = select(files, entry.get("exclude", []))
    folder = entry.get("dir", slug(entry["name"]))
    target = out / folder
    if target.exists():
        shutil.rmtree(target)
    configs = config_files(mirror, entry["commit"])
    governing = sorted(configs_for(chosen, configs))
    laid_out = {**{p: files[p] for p in chosen}, **{p: configs[p] for p in governing}}
    for path, data in sorted(laid_out.items()):
        dest = target / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    calls = sum(len(_CALL.findall(files[p])) for p in seeds)
    return {"name": entry["name"], "commit": entry["commit"], "dir": folder,
            "block_pointer_files": len(seeds), "files": len(chosen), "make_block_ptr_calls": calls,
            "configs": governing, "migrate_args": entry.get("migrate-args", [])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirrors", type=Path, help="folder of git mirrors, one per repository")
    parser.add_argument("out", type=Path, help="where the corpus tree is laid out")
    parser.add_argument("--fetch", action="store_true", help="clone missing mirrors from GitHub")
    parser.add_argument("--only", action="append", default=[], metavar="OWNER/NAME")
    args = parser.parse_args(argv)
    repos = [r for r in load_repos() if not args.only or r["name"] in args.only]
    args.out.mkdir(parents=True, exist_ok=True)
    laid_out, missing = [], []
    for entry in repos:
        mirror = find_mirror(args.mirrors, entry["name"])
        if mirror is None and args.fetch:
            mirror = fetch(args.mirrors, entry["name"], entry["commit"])
        if mirror is None:
            missing.append(entry["name"])
            continue
        record = build(entry, mirror, args.out)
        laid_out.append(record)
        print(f"{record['name']:45} {record['commit'][:10]}  {record['block_pointer_files']:4} files with "
              f"block pointers, {record['files']:4} laid out, {record['make_block_ptr_calls']:5} calls")
    (args.out / "corpus.json").write_text(json.dumps(laid_out, indent=2) + "\n")
    if missing:
        print(f"no mirror in {args.mirrors} (use --fetch): {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

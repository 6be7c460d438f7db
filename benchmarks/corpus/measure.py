"""Migrate the whole corpus in ONE run and print, per repository, the sites, how many were migrated, the
ones left by reason code and the errors; then check that the run is idempotent and deterministic.

    python benchmarks/corpus/measure.py CORPUS_DIR [--work DIR] [--markdown FILE] [--left FILE] [-j N]

CORPUS_DIR is what build.py laid out (it is only read). A repository for which repos.toml states arguments of
its own (`migrate-args`: a fact its users would state, such as what a module outside the repository binds) is
migrated by a run of its own with them, every other by one run; the table shows what was stated. The sites are
counted from one `migrate report` over it (nothing written, so each site is where it is in the repository at
its pinned commit). WORK (default: a temporary folder) receives `run/`, a copy of the corpus that one
`migrate --write --report report.json` rewrites, and `again/`, a second fresh copy migrated by the same command:

* check and write agree: the write decides every site as the report said it would;

* idempotent: a second `migrate --write` over `run/` changes no byte and migrates no site;
* deterministic: `run/` and `again/` end byte-identical, and so do their reports (paths made relative).

Besides the report, the written tree is read back: a `make_block_ptr(` or `advance(` call that is still there
(comments and strings do not count) in a file where no site was left and no error was reported is a block
pointer the tool neither migrated nor reported ("silent" in the table); a written file that does not parse, or
a function that reads a name nothing binds any more (the rewrite removed a block pointer that a use still
needs), is broken output. Output fit for review: no comment of the corpus is lost, ruff's pyflakes rules
(`--select F`, where ruff is installed) find nothing in the written tree that they did not find in the corpus,
and neither do the linters each repository configures for itself (its ruff configuration as it stands, `I` and
`F` included where it selects them; its isort configuration, through isort), run in the repository's folder as
its CI would. No module of the written tree but the launch support module itself holds a launch or facts
helper of its own (one that older versions pasted). The exit status is 0 only if none of these and no error
occurred. Run it with the interpreter that has this checkout installed (`.venv/bin/python`): migrate runs as
`python -m triton_migrate`.

migrate reads each project's configuration as it would in the repository (the corpus carries it, see
build.py): emitted code keeps to the project's line length. So neither CORPUS_DIR nor WORK may lie inside
a folder that has a configuration file of its own (a checkout of this project, say): every repository
without one would inherit it.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import collections
import configparser
import datetime
import filecmp
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import symtable
import sys
import tempfile
import time
import tokenize
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
MIGRATE = [sys.executable, "-m", "triton_migrate"]
_ERROR = re.compile(r"^(?P<path>.+?): error: (?P<message>.*)$")
_SITE = re.compile(r"^(?P<path>.+?):(?P<row>\d+):(?P<column>\d+): (?P<code>[A-Z]+\d{3}) (?P<fixed>\[\*\] )?"
                   r"(?P<message>.*)$")
_SEE_LINE = re.compile(r" \(line \d+\)$")  # a message's pointer to another line, which a write moves


def copy_corpus(corpus: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(corpus, target, ignore=shutil.ignore_patterns("corpus.json"))


def groups(records: list[dict]) -> list[tuple[list[str], list[str]]]:
    """The repositories by the arguments repos.toml states for them (`migrate-args`): (arguments, folders),
    those with none first. Each group is one migrate run, with its arguments."""
    by_arguments = collections.defaultdict(list)
    for record in records:
        by_arguments[tuple(record.get("migrate_args", []))].append(record["dir"])
    return [(list(arguments), sorted(folders)) for arguments, folders in sorted(by_arguments.items())]


def _runs(command: list[str], tree: Path, grouped: list[tuple[list[str], list[str]]]) -> tuple[str, list[tuple]]:
    """`command` run in `tree` once per group, over its folders with its arguments (one run over `.` where
    no repository states any): the command line as shown, and per run its index and the finished process."""
    if len(grouped) == 1 and not grouped[0][0]:
        grouped = [([], ["."])]
    shown, done = [], []
    for index, (arguments, folders) in enumerate(grouped):
        where = folders if len(folders) < 4 else [f"<{len(folders)} repositories>"]
        filled = [part.replace("{}", f"-{index}" if index else "") for part in command]
        shown.append("migrate " + " ".join([*filled[3:], *arguments, *where]))
        done.append((index, subprocess.run([*filled, *arguments, *folders], cwd=tree, capture_output=True,
                                           text=True)))
    return "; ".join(shown), done


def migrate(tree: Path, work: Path, label: str, jobs: int | None,
            grouped: list[tuple[list[str], list[str]]]) -> dict:
    """One `migrate --write` over the whole tree (one per group of repositories with arguments of their
    own); its report, errors, exit status and time."""
    command = [*MIGRATE, "--write", "--no-cache", "--exit-zero", "--output-format", "json",
               "-o", str(work / f"{label}{{}}-diagnostics.json"), "--report", str(work / f"{label}{{}}-report.json"),
               "--color", "never"]
    if jobs:
        command += ["-j", str(jobs)]
    start = time.perf_counter()
    shown, runs = _runs(command, tree, grouped)
    seconds = time.perf_counter() - start
    stderr = "".join(done.stderr for _, done in runs)
    (work / f"{label}-stderr.txt").write_text(stderr)
    errors = [m.groupdict() for m in map(_ERROR.match, stderr.splitlines()) if m]
    sites = []
    for index, _ in runs:
        report = work / f"{label}{f'-{index}' if index else ''}-report.json"
        sites += json.loads(report.read_text()) if report.exists() else []
    return {"command": shown, "returncode": max(done.returncode for _, done in runs),
            "seconds": seconds, "sites": sites, "errors": errors, "stderr": stderr}


def survey(corpus: Path, work: Path, jobs: int | None, grouped: list[tuple[list[str], list[str]]]) -> dict:
    """One `migrate report` over the corpus as laid out (one per group of repositories with arguments of
    their own): every site, migrated or left, where it is there."""
    command = [*MIGRATE, "report", "--no-cache", "--output-format", "concise", "-o", str(work / "survey{}.txt"),
               "--color", "never"]
    if jobs:
        command += ["-j", str(jobs)]
    shown, runs = _runs(command, corpus, grouped)
    sites, errors = [], []
    for index, done in runs:
        output = work / f"survey{f'-{index}' if index else ''}.txt"
        sites += [{"filename": relative(m["path"], corpus), "row": int(m["row"]), "column": int(m["column"]),
                   "code": m["code"], "migrated": bool(m["fixed"]), "message": m["message"]}
                  for m in map(_SITE.match, output.read_text().splitlines() if output.exists() else []) if m]
        errors += [{**m.groupdict(), "path": relative(m["path"], corpus)}
                   for m in map(_ERROR.match, done.stderr.splitlines()) if m]
    return {"command": shown, "sites": sites, "errors": errors}


def agreement(survey_run: dict, run: dict, tree: Path) -> int:
    """How many sites the write decided otherwise than the report said (files either run failed on aside):
    per file, the codes, migrated or not, and messages (the lines they point at moved with the write)."""
    failed = {relative(e["path"], tree) for e in run["errors"]} | {e["path"] for e in survey_run["errors"]}

    def decided(path: str, site: dict, migrated: bool) -> tuple:
        return path, site["code"], migrated, _SEE_LINE.sub("", site["message"])

    said = collections.Counter(decided(s["filename"], s, s["migrated"]) for s in survey_run["sites"]
                               if s["filename"] not in failed)
    done = collections.Counter(decided(relative(s["filename"], tree), s, s["decision"] != "untouched")
                               for s in run["sites"] if relative(s["filename"], tree) not in failed)
    return sum(((said - done) + (done - said)).values())


def repository(path: str, tree: Path) -> str:
    return Path(os.path.relpath(Path(tree, path), tree)).parts[0]


def relative(path: str, tree: Path) -> str:
    return os.path.relpath(Path(tree, path), tree)


def block_pointer_calls(data: bytes) -> list[int]:
    """Lines of calls that make or advance a Triton block pointer, read from the syntax tree (comments,
    strings and definitions are not calls). Other libraries have methods of these names (a code generator's
    `indexing.make_block_ptr(state)`, a grammar's `guide.advance(token)`), so a call counts by its form:
    `make_block_ptr` with at least five arguments (Triton's has six); `advance` with two (`tl.advance(p,
    offsets)`), or a method call whose one argument is a tuple or list of offsets (`p.advance((0, BK))`)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return []
    return sorted(node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call) and _is_block_pointer_call(node))


def _is_block_pointer_call(call: ast.Call) -> bool:
    function = call.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
    arguments = len(call.args) + len(call.keywords)
    if name == "make_block_ptr":
        return arguments >= 5
    if name != "advance":
        return False
    offsets_only = len(call.args) == 1 and not call.keywords and isinstance(call.args[0], (ast.Tuple, ast.List))
    return arguments == 2 or (isinstance(function, ast.Attribute) and offsets_only)


def silent(tree: Path, run: dict) -> list[str]:
    """`path:line` of block-pointer calls left in files where the run reported no site left and no error."""
    reported = {relative(s["filename"], tree) for s in run["sites"] if s["decision"] == "untouched"}
    reported |= {relative(e["path"], tree) for e in run["errors"]}
    found = []
    for path in sorted(tree.rglob("*.py")):
        rel = str(path.relative_to(tree))
        if rel not in reported:
            found += [f"{rel}:{line}" for line in block_pointer_calls(path.read_bytes())]
    return found


def undefined_names(data: bytes, path: str) -> set[str] | None:
    """`function:name` for every name a function reads that nothing binds (no local, enclosing, module-level
    or builtin binding); None when the file does not parse. A rewrite that drops a block pointer's creation
    while a use is left behind shows up here."""
    try:
        top = symtable.symtable(data.decode("utf-8", "replace"), path, "exec")
    except (SyntaxError, ValueError):
        return None
    module = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    if "*" in module or any(s.get_name() == "*" for s in top.get_symbols()):
        return set()
    found, todo = set(), list(top.get_children())
    while todo:
        scope = todo.pop()
        todo += scope.get_children()
        for sym in scope.get_symbols():
            name = sym.get_name()
            if (sym.is_referenced() and sym.is_global() and name not in module
                    and not hasattr(builtins, name) and name not in ("__file__", "__name__")):
                found.add(f"{scope.get_name()}:{name}")
    return found


def broken(before: Path, after: Path) -> tuple[list[str], list[str]]:
    """Files of the written tree that do not parse, and names left undefined that were defined before."""
    unparsable, undefined = [], []
    for path in sorted(after.rglob("*.py")):
        rel = str(path.relative_to(after))
        new = undefined_names(path.read_bytes(), rel)
        old = undefined_names((before / rel).read_bytes(), rel) if (before / rel).is_file() else set()
        if new is None and old is not None:
            unparsable.append(rel)
        elif new and old is not None:
            undefined += [f"{rel}: {name}" for name in sorted(new - old)]
    return unparsable, undefined


def table(survey_run: dict, run: dict, tree: Path, names: dict[str, str], findings: dict[str, list[str]],
          linters: dict[str, list[str]], stated: dict[str, list[str]]) -> list[dict]:
    """Per repository: the sites from the report (`survey_run`), the errors from the write (`run`), the
    linters it configures (`linters`), the arguments repos.toml states for it (`stated`), and per kind of
    finding in the written tree (`findings`: kind -> paths) how many. A site is a place in the code (file,
    line, column, code): the report can name one several times (a helper's use, once per caller), which the
    `repeated` column counts. The sites of a file the write failed on are left, as `error`."""
    rows = {slug: {"repo": name, "sites": 0, "migrated": 0, "left": collections.Counter(), "repeated": 0,
                   "internal": 0, "other_errors": 0, "linters": ", ".join(linters.get(slug, [])),
                   "stated": f"`{' '.join(stated[slug])}`" if slug in stated else "",
                   **{kind: 0 for kind in findings}}
            for slug, name in names.items()}
    failed = {relative(e["path"], tree) for e in run["errors"]}
    seen = set()
    for site in survey_run["sites"]:
        row = rows[repository(site["filename"], tree)]
        key = (site["filename"], site["row"], site["column"], site["code"])
        if key in seen:
            row["repeated"] += 1
            continue
        seen.add(key)
        row["sites"] += 1
        if site["filename"] in failed:
            row["left"]["error"] += 1
        elif site["migrated"]:
            row["migrated"] += 1
        else:
            row["left"][site["code"]] += 1
    for error in run["errors"]:
        row = rows[repository(error["path"], tree)]
        row["internal" if "internal error" in error["message"] else "other_errors"] += 1
    for kind, paths in findings.items():
        for path in paths:
            rows[repository(path, tree)][kind] += 1
    return list(rows.values())


def digest(tree: Path) -> dict[str, str]:
    return {str(p.relative_to(tree)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(tree.rglob("*")) if p.is_file()}


def normalised(sites: list[dict], tree: Path) -> str:
    return json.dumps([{**s, "filename": relative(s["filename"], tree)} for s in sites], sort_keys=True)


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def render(rows: list[dict]) -> str:
    head = ("| repository | stated (migrate's arguments) | sites | migrated | % | left, by code | internal errors "
            "| other errors | silent | comments lost | functions removed | new pyflakes findings | own lint "
            "| new lint findings | modules with pasted helpers | repeated reports |\n"
            "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n")
    total = {k: sum(r[k] for r in rows) for k in ("sites", "migrated", "internal", "other_errors", "silent",
                                                    "lost", "removed", "findings", "lint", "pasted", "repeated")}
    total["left"] = sum((r["left"] for r in rows), collections.Counter())
    total["linters"] = f"{sum(bool(r['linters']) for r in rows)} configured"
    total["stated"] = f"for {sum(bool(r['stated']) for r in rows)}"
    lines = []
    for r in [*rows, {"repo": "**all**", **total}]:
        left = ", ".join(f"{code} {n}" for code, n in sorted(r["left"].items())) or "-"
        lines.append(f"| {r['repo']} | {r['stated'] or '-'} | {r['sites']} | {r['migrated']} "
                     f"| {percent(r['migrated'], r['sites'])} | {left} | {r['internal']} | {r['other_errors']} "
                     f"| {r['silent']} | {r['lost']} | {r['removed']} | {r['findings']} | {r['linters'] or '-'} "
                     f"| {r['lint']} | {r['pasted']} | {r['repeated']} |")
    return head + "\n".join(lines) + "\n"


def left_sites(survey_run: dict, run: dict, tree: Path) -> str:
    """Every site left, grouped by code: `path:line:col  message`, where the corpus as laid out has it; the
    sites of a file the write failed on under `error`, with the error."""
    failed = {relative(e["path"], tree): e["message"] for e in run["errors"]}
    groups = collections.defaultdict(list)
    for s in survey_run["sites"]:
        where = f"{s['filename']}:{s['row']}:{s['column']}"
        if s["filename"] in failed:
            groups["error"].append(f"{where}  {s['code']} {s['message']}; the write failed: {failed[s['filename']]}")
        elif not s["migrated"]:
            groups[s["code"]].append(f"{where}  {s['message']}")
    groups = {code: sorted(set(items)) for code, items in groups.items()}
    return "".join(f"## {code} ({len(items)})\n" + "".join(f"{i}\n" for i in items) + "\n"
                   for code, items in sorted(groups.items(), key=lambda kv: -len(kv[1])))


def revision() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True).stdout.strip()
    changed = git("status", "--porcelain", "--untracked-files=no", "--", "../..")  # not a link to a Triton
    return git("rev-parse", "--short=10", "HEAD") + (" (with uncommitted changes)" if changed else "")


def removed_functions(before: Path, after: Path) -> list[str]:
    """`file: qualified.name` for each function or class of a `before` file that its `after` file no longer
    defines: user code the rewrite deleted (a kernel launched from outside the run is API). Helpers the
    rewrite copies per call signature are added, never counted."""
    removed = []
    for path in sorted(before.rglob("*.py")):
        rel = path.relative_to(before)
        old, new = _definitions(path), _definitions(after / rel)
        if old is not None and new is not None:
            removed += [f"{rel}: {name}" for name in sorted(old - new)]
    return removed


def _definitions(path: Path) -> set[str] | None:
    """Qualified names of the functions and classes a file defines; None where it cannot be read."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    names, todo = set(), [(node, "") for node in tree.body]
    while todo:
        node, prefix = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(prefix + node.name)
            todo += [(child, f"{prefix}{node.name}.") for child in node.body]
        else:
            todo += [(child, prefix) for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)]
    return names


def pasted_helpers(after: Path) -> list[str]:
    """`file: name, ...` for each module of the written tree that holds launch or facts helpers of its own,
    as older versions pasted them (`launch.pasted_support`), rather than importing them from the one launch
    support module, which is the only file that may define them."""
    from triton_migrate.frontend import launch

    pasted = []
    for path in sorted(after.rglob("*.py")):
        if path.name == launch.FILE:
            continue
        names = launch.pasted_support(path.read_text("utf-8", errors="replace"))
        if names:
            pasted.append(f"{path.relative_to(after)}: {', '.join(names)}")
    return pasted


def lost_comments(before: Path, after: Path) -> list[str]:
    """`file: comment` for each comment of a `before` file that its `after` file no longer has. A comment
    the rewrite moved or joined to another on one line (`# noqa: F821  # checked`) is still there: each is
    compared piece by piece, split at `#`."""
    lost = []
    for path in sorted(before.rglob("*.py")):
        rel = path.relative_to(before)
        missing = _comment_pieces(path) - _comment_pieces(after / rel)
        lost += [f"{rel}: {piece}" for piece in sorted(missing.elements())]
    return lost


def _comment_pieces(path: Path) -> collections.Counter:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline))
    except (OSError, UnicodeDecodeError, SyntaxError, tokenize.TokenError):
        return collections.Counter()
    return collections.Counter("# " + piece.strip() for token in tokens if token.type == tokenize.COMMENT
                               for piece in token.string.split("#")[1:])


def new_pyflakes_findings(before: Path, after: Path) -> list[str] | None:
    """`file: code` for each pyflakes finding (ruff `--select F`) that the written tree has and the corpus
    did not: dead code the rewrite left (F841), a name it unbound or a `noqa` it lost (F821). None where
    ruff is not installed."""
    ruff = shutil.which("ruff") or shutil.which("ruff", path=os.path.dirname(sys.executable))
    if ruff is None:
        return None
    ruff = os.path.abspath(ruff)  # it runs in the tree

    def findings(tree: Path) -> collections.Counter:
        done = subprocess.run([ruff, "check", "--isolated", "--no-cache", "--select", "F", "--exit-zero",
                               "--output-format", "json", "."], cwd=tree, capture_output=True, text=True, check=True)
        return collections.Counter(f"{Path(f['filename']).relative_to(tree)}: {f['code']}"
                                   for f in json.loads(done.stdout))

    return sorted((findings(after) - findings(before)).elements())


# Where a project configures ruff or isort for itself (their own rules for finding it, one directory at a time).
_RUFF_FILES = ("ruff.toml", ".ruff.toml")
_ISORT_SECTIONS = ("isort", "tool:isort")
_ISORT_UNSORTED = re.compile(r"^ERROR: (?P<path>.+) Imports are incorrectly sorted and/or formatted\.$")


class Unchecked(Exception):
    """A linter could not check a repository (its configuration is not one this linter reads, or the linter
    is not installed): said in the results, never counted as clean."""


def configured_linters(tree: Path) -> dict[str, list[str]]:
    """Per repository folder of the tree, which of ruff and isort its own configuration files set up: a
    `ruff.toml`, `.ruff.toml` or `[tool.ruff]` in a pyproject.toml; an `.isort.cfg`, `[tool.isort]`, or an
    `[isort]`/`[tool:isort]` section of setup.cfg or tox.ini."""
    return {repo.name: sorted({tool for path in repo.rglob("*") if path.is_file() for tool in _configures(path)})
            for repo in sorted(tree.iterdir()) if repo.is_dir()}


def _configures(path: Path) -> set[str]:
    if path.name in _RUFF_FILES:
        return {"ruff"}
    if path.name == ".isort.cfg":
        return {"isort"}
    if path.name == "pyproject.toml":
        try:
            tools = tomllib.loads(path.read_text("utf-8")).get("tool", {})
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return set()
        return {tool for tool in ("ruff", "isort") if tool in tools}
    if path.name in ("setup.cfg", "tox.ini"):
        parser = configparser.RawConfigParser()
        try:
            parser.read_string(path.read_text("utf-8"))
        except (UnicodeDecodeError, configparser.Error):
            return set()
        return {"isort"} if any(parser.has_section(s) for s in _ISORT_SECTIONS) else set()
    return set()


def new_lint_findings(before: Path, after: Path, linters: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """`repository/file: code` for each finding of a repository's own linters (`linters`: repository ->
    ruff, isort) that its written copy has and its corpus copy did not (an import added where the sorter
    would not put it: I001 or isort); and `repository: linter: why` for each check that could not run."""
    found, unchecked = [], []
    for repo, tools in linters.items():
        for tool in tools:
            try:
                old, new = (_LINTERS[tool](tree / repo) for tree in (before, after))
            except Unchecked as why:
                unchecked.append(f"{repo}: {tool}: {why}")
                continue
            found += [f"{repo}/{finding}" for finding in sorted((new - old).elements())]
    return found, unchecked


def _ruff_findings(repo: Path) -> collections.Counter:
    """ruff as the project runs it: from its folder, with its configuration (the nearest one upward of
    each file, its `exclude` honoured), no rule added or removed."""
    ruff = shutil.which("ruff") or shutil.which("ruff", path=os.path.dirname(sys.executable))
    if ruff is None:
        raise Unchecked("ruff is not installed")
    # --exit-zero: findings exit 0, so a non-zero status is a configuration it cannot read
    done = subprocess.run([os.path.abspath(ruff), "check", "--no-cache", "--exit-zero", "--output-format", "json",
                           "."], cwd=repo, capture_output=True, text=True, check=False)
    if done.returncode:
        raise Unchecked(_first_error(done.stderr))
    return collections.Counter(f"{Path(f['filename']).relative_to(repo.resolve())}: {f['code'] or 'syntax'}"
                               for f in json.loads(done.stdout))


def _isort_findings(repo: Path) -> collections.Counter:
    """isort as the project runs it: `--check-only` from its folder, each file under its nearest
    configuration; one finding per file whose imports it would reorder."""
    done = subprocess.run([sys.executable, "-m", "isort", "--check-only", "--resolve-all-configs", "--config-root",
                           ".", "."], cwd=repo, capture_output=True, text=True, check=False)  # 1: files it would sort
    if done.returncode not in (0, 1) or "No module named isort" in done.stderr:
        raise Unchecked(_first_error(done.stderr))
    unsorted = (m["path"] for m in map(_ISORT_UNSORTED.match, done.stderr.splitlines() + done.stdout.splitlines())
                if m)
    return collections.Counter(f"{os.path.relpath(Path(repo, path), repo)}: isort" for path in unsorted)


_LINTERS = {"ruff": _ruff_findings, "isort": _isort_findings}


def _first_error(stderr: str) -> str:
    return next((line.strip() for line in stderr.splitlines() if line.strip()), "no output")


def inherited_configuration(folder: Path) -> Path | None:
    """A configuration file in a folder above `folder`, which every repository laid out below it without
    one of its own would inherit (migrate's line length, ruff's rules)."""
    for parent in folder.resolve().parents:
        for name in (*_RUFF_FILES, "pyproject.toml", ".isort.cfg", "setup.cfg", "tox.ini", ".flake8"):
            if (parent / name).is_file():
                return parent / name
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="the folder build.py laid out")
    parser.add_argument("--work", type=Path, help="where the copies and reports go (default: a temporary one)")
    parser.add_argument("--markdown", type=Path, help="also write the results as markdown here")
    parser.add_argument("--left", type=Path, help="write every site left, grouped by code, here")
    parser.add_argument("-j", "--jobs", type=int, help="migrate's worker processes")
    args = parser.parse_args(argv)
    corpus = args.corpus.resolve()
    records = json.loads((corpus / "corpus.json").read_text())
    names = {r["dir"]: f"{r['name']} @ {r['commit'][:10]}" for r in records}
    stated = {r["dir"]: r["migrate_args"] for r in records if r.get("migrate_args")}
    grouped = groups(records)
    work = (args.work or Path(tempfile.mkdtemp(prefix="corpus-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    for folder in (corpus, work):
        above = inherited_configuration(folder)
        if above is not None:
            parser.error(f"{folder} lies below {above}: every repository without a configuration of its own "
                         f"would be migrated and linted under it; choose a folder outside any project")
    run_tree, again_tree = work / "run", work / "again"

    survey_run = survey(corpus, work, args.jobs, grouped)
    copy_corpus(corpus, run_tree)
    run = migrate(run_tree, work, "run", args.jobs, grouped)
    written = digest(run_tree)
    silent_calls = silent(run_tree, run)
    unparsable, undefined = broken(corpus, run_tree)
    lost, new_findings = lost_comments(corpus, run_tree), new_pyflakes_findings(corpus, run_tree)
    removed = removed_functions(corpus, run_tree)
    pasted = pasted_helpers(run_tree)
    linters = configured_linters(corpus)
    lint, unlinted = new_lint_findings(corpus, run_tree, linters)
    rows = table(survey_run, run, run_tree, names,
                 {"silent": silent_calls, "lost": lost, "removed": removed, "findings": new_findings or [],
                  "lint": lint, "pasted": pasted}, linters, stated)
    disagree = agreement(survey_run, run, run_tree)

    second = migrate(run_tree, work, "second", args.jobs, grouped)
    changed = sorted(p for p, h in digest(run_tree).items() if written.get(p) != h)
    migrated_again = [s for s in second["sites"] if s["decision"] != "untouched"]
    copy_corpus(corpus, again_tree)
    again = migrate(again_tree, work, "again", args.jobs, grouped)
    differ = sorted(p for p in set(written) | set(digest(again_tree))
                    if not (run_tree / p).is_file() or not (again_tree / p).is_file()
                    or not filecmp.cmp(run_tree / p, again_tree / p, shallow=False))
    same_report = normalised(run["sites"], run_tree) == normalised(again["sites"], again_tree)

    files = sum(r["files"] for r in records)
    lines = [
        f"date: {datetime.date.today().isoformat()}; triton-migrate revision {revision()}",
        f"corpus: {len(records)} repositories, {files} files ({sum(r['block_pointer_files'] for r in records)}"
        f" with block pointers), laid out by build.py from benchmarks/corpus/repos.toml",
        f"sites counted by (in the corpus): {survey_run['command']}",
        f"command (in the corpus copy): {run['command']}",
        f"exit status {run['returncode']}, {run['seconds']:.0f} s",
        "",
        render(rows),
        f"check and write agree: {'yes' if not disagree else 'NO'} ({disagree} sites decided otherwise by the write)",
        f"idempotent: {'yes' if not changed and not migrated_again else 'NO'} (a second --write changed "
        f"{len(changed)} files and migrated {len(migrated_again)} sites)",
        f"deterministic: {'yes' if not differ and same_report else 'NO'} (two runs on fresh copies: "
        f"{len(differ)} files differ, reports {'identical' if same_report else 'differ'})",
    ]
    lines.append(f"written files that do not parse: {len(unparsable)}; names the rewrite left undefined: "
                 f"{len(undefined)}")
    lines.append(f"comments lost: {len(lost)}; functions removed: {len(removed)}; "
                 "new pyflakes findings (ruff --select F): "
                 f"{'not checked, ruff not found' if new_findings is None else len(new_findings)}")
    lines.append(f"new findings of each repository's own linters ({sum(map(bool, linters.values()))} configure "
                 f"ruff or isort): {len(lint)}; checks that could not run: {len(unlinted)}")
    lines.append(f"modules that hold pasted launch or facts helpers: {len(pasted)}")
    lines += [f"  does not parse: {p}" for p in unparsable]
    lines += [f"  comment lost: {c}" for c in lost[:50]]
    lines += [f"  function removed: {f}" for f in removed]
    lines += [f"  new finding: {f}" for f in (new_findings or [])[:50]]
    lines += [f"  new lint finding: {f}" for f in lint[:100]]
    lines += [f"  not linted: {u}" for u in unlinted]
    lines += [f"  pasted helpers: {p}" for p in pasted]
    lines += [f"  undefined: {u}" for u in undefined]
    lines += [f"  changed by the second run: {p}" for p in changed[:20]]
    lines += [f"  differ between the runs: {p}" for p in differ[:20]]
    lines += [f"  error: {e['path']}: {e['message']}" for e in run["errors"]]
    lines += [f"  silent: {c}" for c in silent_calls[:50]]
    text = "\n".join(lines) + "\n"
    print(text)
    print(f"(work folder: {work})", file=sys.stderr)
    if args.markdown:
        args.markdown.write_text(text)
    if args.left:
        args.left.write_text(left_sites(survey_run, run, run_tree))
    ok = not (changed or migrated_again or differ or not same_report or run["errors"] or silent_calls
              or unparsable or undefined or lost or removed or new_findings or lint or unlinted or pasted
              or disagree)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""How `migrate --write` compares with what maintainers wrote by hand when they moved off block pointers.

    python benchmarks/hand_migrations/compare.py MIRRORS_DIR [--only NAME ...] [--work DIR]
        [--facts | --tool-config FILE] [--tool-option ARG ...] [--no-verify] [--markdown FILE] [--json FILE]
    python benchmarks/hand_migrations/compare.py --git-dir GIT_DIR --before SHA --after SHA FILE ...

For each pair of pairs.toml (or the one pair given on the command line) three versions of the files are laid out
in WORK/NAME/: `original/` (every .py file and configuration file of the `before` commit), `hand/` (the `after`
commit's version of the pair's files) and `tool/` (a copy of `original/` that this checkout's
`python -m triton_migrate --write` migrated, run from the tree's root so that the project's own pyproject.toml
applies, as a user would run it). Per pair and in total it prints the lines each side inserted into the files
(`+` lines against `before`, as `git diff --numstat` counts them; and the same without blank and comment-only
lines, "code"), the ratio tool/hand, the tensor descriptors each side constructs (`make_tensor_descriptor(`,
`TensorDescriptor(`, `.from_tensor(` calls), the masked pointer accesses (`tl.load`/`tl.store` with a mask) and
the block pointers left, then the median ratio of each group (`to = "descriptor"`, `to = "pointer"`).

`--facts` states, for each pair, what its maintainers relied on when they wrote plain descriptors: the pair's
`facts` in pairs.toml (a `[tool.triton-migrate]` table as a user writes it), appended to the root pyproject.toml
of the tool's tree; a pair without `facts` runs with the default policy.
`--tool-config FILE` appends FILE to the root pyproject.toml of the tool's tree, under `[tool.triton-migrate]`
(a header is added if FILE has none): the way to measure the same pair with facts stated, or any other
configuration, exactly as a user would write it. `--tool-option ARG` passes ARG to `migrate --write` (repeatable,
e.g. `--tool-option=--target=descriptor`). Both are recorded with the results.

Where cases/NAME.py exists, the pair's kernels are also run in Triton's CPU interpreter, before and as the tool
migrated them, with `python -m triton_migrate.verify cases` (bit for bit, NaN-aware); see cases/_hand.py.

MIRRORS_DIR holds one git repository per repository of the list, found as benchmarks/corpus/build.py finds
them (`OWNER+NAME/repo`, `OWNER+NAME`, `OWNER__NAME.git`, `OWNER__NAME`); `--fetch` clones missing ones.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

# the corpus's mirrors: found, cloned, a commit's files read
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "corpus"))
from build import fetch, find_mirror, git, python_files

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
MIGRATE = [sys.executable, "-m", "triton_migrate"]
VERIFY = [sys.executable, "-m", "triton_migrate.verify"]
# What decides how `migrate` runs in a tree besides the .py files: its configuration, ruff's line length, the
# files it ignores.
CONFIG_NAMES = ("pyproject.toml", "ruff.toml", ".ruff.toml", ".gitignore")
DESCRIPTOR_CALLS = {"make_tensor_descriptor", "_experimental_make_tensor_descriptor", "TensorDescriptor",
                    "from_tensor"}
BLOCK_POINTER_CALLS = {"make_block_ptr", "advance"}
LAUNCH_SUPPORT = "_triton_launch.py"  # what `migrate --write` adds to a package whose kernels it hooks or guards


@dataclass
class Pair:
    name: str
    repo: str
    before: str
    after: str
    files: list[tuple[str, str]] = field(default_factory=list)  # (path in before, path in after)
    under: str | None = None
    run: list[str] = field(default_factory=list)
    to: str = "descriptor"
    pr: str = ""
    facts: str | None = None  # what the maintainers relied on, as [tool.triton-migrate] settings

    @classmethod
    def from_entry(cls, entry: dict) -> Pair:
        files = [tuple(part.strip() for part in f.split("->")) if "->" in f else (f, f)
                 for f in entry.get("files", [])]
        return cls(entry["name"], entry["repo"], entry["before"], entry["after"], files, entry.get("under"),
                   entry.get("run", []), entry.get("to", "descriptor"), entry.get("pr", ""), entry.get("facts"))


def load_pairs(path: Path = HERE / "pairs.toml") -> list[Pair]:
    with open(path, "rb") as f:
        return [Pair.from_entry(entry) for entry in tomllib.load(f)["pair"]]


# ----------------------------------------------------------------------------------------------- the trees
def show(mirror: Path, commit: str, path: str) -> bytes | None:
    done = subprocess.run(["git", f"--git-dir={_git_dir(mirror)}", "show", f"{commit}:{path}"],
                          check=False, capture_output=True)
    return done.stdout if done.returncode == 0 else None


def _git_dir(mirror: Path) -> Path:
    return mirror / ".git" if (mirror / ".git").exists() else mirror


def config_files(mirror: Path, commit: str) -> dict[str, bytes]:
    names = git(mirror, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
    return {p: show(mirror, commit, p) for p in names if p.rsplit("/", 1)[-1] in CONFIG_NAMES}


def hand_files(pair: Pair, mirror: Path) -> list[tuple[str, str]]:
    if pair.under is None:
        return pair.files
    changed = git(mirror, "diff", "--no-renames", "--name-only", pair.before, pair.after, "--", pair.under)
    return [(p, p) for p in changed.decode().splitlines() if p.endswith(".py")]


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def add_tool_config(root: Path, text: str) -> None:
    """Append the user's [tool.triton-migrate] settings to the tree's root pyproject.toml."""
    if not text.lstrip().startswith("[tool.triton-migrate]"):  # keys before any table header are the tool's
        text = "[tool.triton-migrate]\n" + text
    pyproject = root / "pyproject.toml"
    existing = pyproject.read_text() if pyproject.exists() else ""
    if "[tool.triton-migrate" in existing:
        sys.exit(f"{pyproject}: the project already configures triton-migrate; merge the settings by hand")
    pyproject.write_text(existing + ("\n" if existing and not existing.endswith("\n") else "") + "\n" + text)


def run_tool(tree: Path, paths: list[str], options: list[str]) -> dict:
    command = [*MIGRATE, "--write", "--no-cache", *options, *paths]
    done = subprocess.run(command, cwd=tree, check=False, capture_output=True, text=True)
    summary = [line for line in done.stderr.splitlines() if line.strip()]
    return {"returncode": done.returncode, "command": command[1:], "summary": summary[-1] if summary else "",
            "errors": [line for line in done.stdout.splitlines() + done.stderr.splitlines()
                       if line.startswith("error")]}


def py_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*.py") if p.is_file()}


# ----------------------------------------------------------------------------------------------- counting
def inserted(before: Path, after: Path) -> dict:
    """Lines inserted and deleted from `before` to `after` (two folders), as `git diff --numstat` counts them,
    and the inserted lines that are neither blank nor only a comment."""
    done = subprocess.run(["git", "-c", "core.quotepath=off", "diff", "--no-index", "--no-color", "--no-ext-diff",
                           "--numstat", str(before), str(after)], check=False, capture_output=True, text=True)
    plus = minus = 0
    for line in done.stdout.splitlines():
        added, removed, _ = line.split("\t", 2)
        plus += int(added) if added != "-" else 0
        minus += int(removed) if removed != "-" else 0
    patch = subprocess.run(["git", "diff", "--no-index", "--no-color", "--no-ext-diff", "-U0", str(before),
                            str(after)], check=False, capture_output=True, text=True).stdout
    code = sum(1 for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++")
               and line[1:].strip() and not line[1:].strip().startswith("#"))
    return {"inserted": plus, "deleted": minus, "code_inserted": code}


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _is_masked_access(call: ast.Call) -> bool:
    """`tl.load(..., mask=...)` or `tl.store(..., mask=...)` (or the mask given positionally)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in ("load", "store")
            and isinstance(func.value, ast.Name) and func.value.id == "tl"):
        return False
    positional_mask = len(call.args) >= (2 if func.attr == "load" else 3)
    return positional_mask or any(k.arg == "mask" for k in call.keywords)


def constructs(data: bytes | None) -> dict:
    """Tensor descriptors constructed, masked pointer accesses and block-pointer calls in one file's code."""
    counts = {"descriptors": 0, "masked": 0, "block_pointers": 0}
    if not data:
        return counts
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return {key: None for key in counts}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _called_name(node)
            counts["descriptors"] += name in DESCRIPTOR_CALLS
            counts["block_pointers"] += name in BLOCK_POINTER_CALLS
            counts["masked"] += _is_masked_access(node)
    return counts


def add_counts(total: dict, more: dict) -> dict:
    return {k: (total.get(k) or 0) + (v or 0) for k, v in more.items()}


def ratio(tool: int, hand: int) -> float | None:
    return tool / hand if hand else None


# ----------------------------------------------------------------------------------------------- one pair
def measure(pair: Pair, mirror: Path, work: Path, tool_config: str | None, tool_options: list[str],
            verify: bool) -> dict:
    base = work / pair.name
    if base.exists():
        shutil.rmtree(base)
    original = python_files(mirror, pair.before)
    original.update(config_files(mirror, pair.before))
    write_tree(base / "original", original)
    shutil.copytree(base / "original", base / "tool", symlinks=True)
    if tool_config:
        add_tool_config(base / "tool", tool_config)
    files = hand_files(pair, mirror)
    tool = run_tool(base / "tool", pair.run or [old for old, _ in files], tool_options)

    migrated = py_files(base / "tool")
    tool_changed = {p for p, data in migrated.items() if original.get(p) != data}
    by_hand = {old: show(mirror, pair.after, new) for old, new in files}
    compared = sorted(set(by_hand) | tool_changed)
    sides = {"before": {p: original.get(p) for p in compared},
             "hand": {p: by_hand[p] if p in by_hand else original.get(p) for p in compared},
             "tool": {p: migrated.get(p) for p in compared}}
    for side, contents in sides.items():
        write_tree(base / "diff" / side, {p: d for p, d in contents.items() if d is not None})
    result = {"name": pair.name, "repo": pair.repo, "before": pair.before, "after": pair.after, "to": pair.to,
              "pr": pair.pr, "files": compared, "tool_run": tool,
              "not_in_hand_list": sorted(tool_changed - set(by_hand))}
    for side, contents in sides.items():
        counts = {}
        for data in contents.values():
            counts = add_counts(counts, constructs(data))
        result[side] = counts
    for side in ("hand", "tool"):
        result[side].update(inserted(base / "diff" / "before", base / "diff" / side))
    # A pair the tool migrated none of has no ratio: nothing of its own to compare with the humans' diff. One
    # it left more block pointers in than the humans did is partial: its ratio is shown, not in the medians.
    result["migrated"] = bool(tool_changed)
    result["complete"] = bool(tool_changed) and result["tool"]["block_pointers"] <= result["hand"]["block_pointers"]
    result["ratio"] = ratio(result["tool"]["inserted"], result["hand"]["inserted"]) if tool_changed else None
    result["code_ratio"] = (ratio(result["tool"]["code_inserted"], result["hand"]["code_inserted"])
                            if tool_changed else None)
    cases = HERE / "cases" / f"{pair.name}.py"
    result["verify"] = check_outputs(cases, base) if verify and cases.exists() and tool_changed else None
    return result


# ----------------------------------------------------------------------------------------------- outputs
def case_literal(cases: Path, name: str, default=None):
    """A module-level literal of the cases file (MODULES, NEEDS), read without importing it."""
    for node in ast.parse(cases.read_text()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            return ast.literal_eval(node.value)
    if default is None:
        sys.exit(f"{cases}: no {name} = ... literal")
    return default


def case_modules(cases: Path) -> dict[str, tuple[str, str | None]]:
    """MODULES: key → (path in the tree, start of the first line not imported, or None)."""
    return {key: (spec, None) if isinstance(spec, str) else tuple(spec)
            for key, spec in case_literal(cases, "MODULES").items()}


def importable_copy(path: Path, stop_at: str | None) -> Path:
    """The module as the cases import it: the file itself, or, where its top level runs a demo or a benchmark
    on import, a copy beside it that ends before the first line starting with `stop_at` (the same line in
    both versions: the tool does not touch a module's top-level driver code)."""
    if stop_at is None:
        return path
    lines = path.read_text().splitlines(keepends=True)
    cut = next((i for i, line in enumerate(lines) if line.startswith(stop_at)), None)
    if cut is None:
        sys.exit(f"{path}: no line starts with {stop_at!r}")
    copy = path.with_name(f"_hm_{path.stem.replace('-', '_')}.py")
    copy.write_text("".join(lines[:cut]))
    return copy


def check_outputs(cases: Path, base: Path, device: str = "cpu") -> dict:
    """Run the cases on the original and on the tool's migration (cpu: in the interpreter); bit for bit."""
    located, replacements = {}, []
    for key, (path, stop_at) in case_modules(cases).items():
        original = importable_copy(base / "original" / path, stop_at)
        migrated = importable_copy(base / "tool" / path, stop_at)
        located[key] = str(original)
        # Always named: a file the tool left as it was must not be migrated again by verify's own policy.
        replacements += ["--migrated", f"{original.relative_to(base / 'original')}={migrated}"]
    verdict_path = base / f"verdict-{device}.json"
    verdict_path.unlink(missing_ok=True)
    # The folders a launch-support module was added to (`_triton_launch.py`). The migrated modules of a package
    # import it from the package: importable from the folder above, and found by a stub of the package
    # (_hand.py). Those of a folder that is no package import it by its own name: importable from the folder
    # itself. (The folder above a package-less folder is no place to import from: Triton's tutorials sit
    # beside Triton's own sources, whose `triton` would shadow the installed one.)
    support = sorted(str(p.parent) for p in added_files(base) if p.name == LAUNCH_SUPPORT)
    search = [str(Path(s).parent) if (Path(s) / "__init__.py").is_file() else s for s in support]
    env = {**os.environ, "HAND_MIGRATION_MODULES": json.dumps(located), "HAND_MIGRATION_SUPPORT": json.dumps(support),
           "PYTHONPATH": os.pathsep.join([*search, os.environ.get("PYTHONPATH", "")])}
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
    done = subprocess.run([*VERIFY, "cases", str(cases.resolve()), "--device", device, "--repeat", "0", "--json",
                           str(verdict_path), *replacements], cwd=base / "original", env=env,
                          check=False, capture_output=True, text=True)
    if not verdict_path.exists():
        tail = (done.stdout + done.stderr).strip().splitlines()[-12:]
        return {"status": "error", "kernels": 0, "identical": 0, "detail": tail}
    verdict = json.loads(verdict_path.read_text())
    kernels = verdict["kernels"]
    identical = sum(1 for k in kernels if k.get("status") == "identical")
    status = "identical" if verdict["exit_status"] == 0 and kernels else "error" if verdict["errors"] else "DIFFERENT"
    return {"status": status, "kernels": len(kernels), "identical": identical,
            "detail": verdict["errors"] + [f"{k['kernel']}: {k.get('status')}" for k in kernels
                                           if k.get("status") != "identical"]}


def added_files(base: Path) -> list[Path]:
    """The files the tool's migration added to the tree (a package's launch-support module)."""
    return [p for p in (base / "tool").rglob("*.py") if not (base / "original" / p.relative_to(base / "tool")).exists()]


def bundle(names: list[str], work: Path, target: Path) -> None:
    """What the cases of these pairs need, both versions, for another machine (`--verify-bundle`): each
    module of MODULES, each path of the cases' NEEDS (what the modules import from their repository) and, in
    the tool's version, the files its migration added."""
    for name in names:
        cases = HERE / "cases" / f"{name}.py"
        if not cases.exists():
            continue
        paths = [path for path, _ in case_modules(cases).values()] + case_literal(cases, "NEEDS", [])
        added = [str(p.relative_to(work / name / "tool")) for p in added_files(work / name)]
        for side in ("original", "tool"):
            for path in paths + (added if side == "tool" else []):
                source, dest = work / name / side / path, target / name / side / path
                dest.parent.mkdir(parents=True, exist_ok=True)
                copy = shutil.copytree if source.is_dir() else shutil.copy2
                copy(source, dest, **({"dirs_exist_ok": True} if source.is_dir() else {}))


def verify_bundle(target: Path, device: str) -> int:
    failed = 0
    target = target.resolve()  # the cases run from inside it: a relative path named no file there
    for base in sorted(p for p in target.iterdir() if (HERE / "cases" / f"{p.name}.py").exists()):
        check = check_outputs(HERE / "cases" / f"{base.name}.py", base, device)
        failed += check["status"] != "identical"
        print(f"{base.name:34} {check['identical']}/{check['kernels']} identical ({check['status']}) "
              f"{'; '.join(check['detail'][-3:])}", flush=True)
    return 1 if failed else 0


# ----------------------------------------------------------------------------------------------- report
def _fmt(value) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else f"{value:,}"


def _sides(result: dict, key: str) -> str:
    return " / ".join(_fmt(result[side][key]) for side in ("before", "hand", "tool"))


def _verified(result: dict) -> str:
    check = result["verify"]
    if not result["migrated"]:
        return "not migrated"
    if check is None:
        return "no cases"
    return f"{check['identical']}/{check['kernels']} identical" if check["status"] != "error" else "error"


def table(results: list[dict]) -> str:
    head = ("| pair | to | + hand | + tool | tool/hand | + code hand | + code tool | code tool/hand | "
            "descriptors before / hand / tool | masked accesses before / hand / tool | block ptrs left (tool) | "
            "outputs (interpreter) |")
    rows = [head, "|" + "---|" * 12]
    for r in results:
        partial = " (partial)" if r["migrated"] and not r["complete"] else ""
        rows.append(f"| {r['name']} | {r['to']} | {_fmt(r['hand']['inserted'])} | {_fmt(r['tool']['inserted'])} | "
                    f"{_fmt(r['ratio'])}{partial} | {_fmt(r['hand']['code_inserted'])} | "
                    f"{_fmt(r['tool']['code_inserted'])} "
                    f"| {_fmt(r['code_ratio'])} | {_sides(r, 'descriptors')} | {_sides(r, 'masked')} | "
                    f"{_fmt(r['tool']['block_pointers'])} | {_verified(r)} |")
    return "\n".join(rows)


def summary(results: list[dict]) -> str:
    lines = []
    for group in ("descriptor", "pointer"):
        chosen = [r for r in results if r["to"] == group]
        if not chosen:
            continue
        hand = sum(r["hand"]["inserted"] for r in chosen)
        tool = sum(r["tool"]["inserted"] for r in chosen)
        complete = [r for r in chosen if r["complete"]]
        ratios = [r["ratio"] for r in complete]
        code_ratios = [r["code_ratio"] for r in complete if r["code_ratio"] is not None]
        descriptors = {side: sum(r[side]["descriptors"] or 0 for r in chosen) for side in ("before", "hand", "tool")}
        lines.append(f"to {group} ({len(chosen)} pairs, {len(complete)} migrated completely): inserted hand "
                     f"{hand:,}, tool {tool:,}; median tool/hand over the complete ones "
                     f"{_fmt(statistics.median(ratios)) if ratios else '-'} (code lines "
                     f"{_fmt(statistics.median(code_ratios)) if code_ratios else '-'}); tensor descriptors "
                     f"constructed before {descriptors['before']}, hand {descriptors['hand']}, tool "
                     f"{descriptors['tool']}")
    checked = [r for r in results if r["verify"] is not None]
    same = [r["name"] for r in checked if r["verify"]["status"] == "identical"]
    lines.append(f"outputs: {len(same)} of {len(checked)} pairs with cases bit-identical in the interpreter; "
                 f"not identical: {', '.join(r['name'] for r in checked if r['name'] not in same) or 'none'}; "
                 "no cases: "
                 f"{', '.join(r['name'] for r in results if r['migrated'] and r['verify'] is None) or 'none'}; "
                 f"not migrated by the tool: {', '.join(r['name'] for r in results if not r['migrated']) or 'none'}")
    for r in results:
        if r["not_in_hand_list"]:
            lines.append(f"{r['name']}: the tool also changed {len(r['not_in_hand_list'])} files the humans left "
                         f"(counted on both sides)")
    return "\n".join(lines)


def revision() -> str:
    def git_here(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=REPO, check=False, capture_output=True, text=True).stdout.strip()
    dirty = "+uncommitted" if git_here("status", "--porcelain", "--untracked-files=no") else ""
    return git_here("rev-parse", "--short", "HEAD") + dirty


# ----------------------------------------------------------------------------------------------- main
def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirrors", type=Path, nargs="?", help="folder of git mirrors, one per repository")
    parser.add_argument("--pairs", type=Path, default=HERE / "pairs.toml")
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    parser.add_argument("--fetch", action="store_true", help="clone missing mirrors from GitHub")
    parser.add_argument("--git-dir", type=Path, help="one pair from this repository instead of the list")
    parser.add_argument("--before")
    parser.add_argument("--after")
    parser.add_argument("files", nargs="*", default=[], help="with --git-dir: the files ('OLD -> NEW' if renamed)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/hand-migrations"))
    parser.add_argument("--tool-config", type=Path, help="append to the tree's pyproject.toml as [tool.triton-migrate]")
    parser.add_argument("--facts", action="store_true",
                        help="state each pair's `facts` of pairs.toml (what its maintainers relied on)")
    parser.add_argument("--tool-option", action="append", default=[], metavar="ARG",
                        help="pass ARG to migrate --write (repeatable)")
    parser.add_argument("--no-verify", action="store_true", help="skip the interpreter runs of cases/")
    parser.add_argument("--bundle", type=Path, help="also copy what the cases need here, for --verify-bundle")
    parser.add_argument("--verify-bundle", type=Path, metavar="DIR",
                        help="only run the cases of a --bundle (e.g. on a GPU machine, with --device cuda)")
    parser.add_argument("--device", default="cpu", help="with --verify-bundle: cpu (the interpreter) or cuda")
    parser.add_argument("--aligned-cases-only", action="store_true",
                        help="skip the cases whose inputs break stated facts (cases/_hand.py: unaligned)")
    parser.add_argument("--markdown", type=Path, help="also write the table and summary here")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args(argv)
    if args.verify_bundle:
        return args
    if (args.git_dir is None) == (args.mirrors is None):
        parser.error("give MIRRORS_DIR (the list) or --git-dir with --before, --after and FILES (one pair)")
    if args.git_dir and not (args.before and args.after and args.files):
        parser.error("--git-dir needs --before, --after and at least one FILE")
    if args.facts and args.tool_config:
        parser.error("--facts states each pair's facts; --tool-config one configuration for every pair: give one")
    return args


def chosen_pairs(args: argparse.Namespace) -> list[tuple[Pair, Path]]:
    if args.git_dir:
        pair = Pair.from_entry({"name": "pair", "repo": str(args.git_dir), "before": args.before,
                                "after": args.after, "files": args.files})
        return [(pair, args.git_dir)]
    chosen = []
    for pair in load_pairs(args.pairs):
        if args.only and pair.name not in args.only:
            continue
        mirror = find_mirror(args.mirrors, pair.repo)
        if mirror is None and args.fetch:
            mirror = fetch(args.mirrors, pair.repo, pair.before)
        if mirror is None:
            sys.exit(f"no mirror of {pair.repo} in {args.mirrors} (--fetch clones it)")
        chosen.append((pair, mirror))
    return chosen


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.aligned_cases_only:
        os.environ["HAND_MIGRATION_ALIGNED_ONLY"] = "1"  # read by cases/_hand.py in the verify processes
    if args.verify_bundle:
        return verify_bundle(args.verify_bundle, args.device)
    args.work.mkdir(parents=True, exist_ok=True)
    results = []
    for pair, mirror in chosen_pairs(args):
        config = pair.facts if args.facts else args.tool_config.read_text() if args.tool_config else None
        result = measure(pair, mirror, args.work, config, args.tool_option, not args.no_verify)
        result["tool_config"] = config
        results.append(result)
        print(f"{pair.name:34} hand +{result['hand']['inserted']:<6} tool +{result['tool']['inserted']:<6} "
              f"ratio {_fmt(result['ratio']):>6}  descriptors hand {result['hand']['descriptors']} tool "
              f"{result['tool']['descriptors']}  outputs {_verified(result)}  ({result['tool_run']['summary']})",
              flush=True)
    policy = {"tool_config": "each pair's facts (pairs.toml)" if args.facts else
              args.tool_config.read_text() if args.tool_config else None,
              "tool_options": args.tool_option, "aligned_cases_only": args.aligned_cases_only}
    report = (f"{datetime.date.today()}, triton-migrate {revision()}, policy: "
              f"{'default' if not (args.facts or args.tool_config or args.tool_option) else json.dumps(policy)}"
              f"{', aligned cases only' if args.aligned_cases_only else ''}\n\n"
              f"{table(results)}\n\n{summary(results)}\n")
    print("\n" + report)
    if args.bundle:
        bundle([r["name"] for r in results], args.work, args.bundle)
    if args.markdown:
        args.markdown.write_text(report)
    if args.json:
        args.json.write_text(json.dumps({"revision": revision(), "date": str(datetime.date.today()),
                                         "policy": policy, "pairs": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

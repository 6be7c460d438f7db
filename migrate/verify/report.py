"""The verdict, as a table for people and JSON for machines, and the exit status: 0 identical, 1 a
difference (outputs, launches, return codes, a target that stops compiling, a slowdown beyond the limit),
2 nothing could be verified (errors)."""

from __future__ import annotations

import difflib
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from .compare import KernelResult, root

OK, DIFFERENT, ERROR = 0, 1, 2


@dataclass
class Verdict:
    kernels: list[KernelResult]
    labels: tuple[str, str] = ("original", "migrated")
    compile_a: dict = field(default_factory=dict)  # "kernel|target" → result, as compile.py returns it
    compile_b: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # differences outside the kernels' outputs
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    max_slowdown: float | None = None
    environment: dict = field(default_factory=dict)  # "a", "b" → the recording's environment (triton, device_name)
    timing: dict = field(default_factory=dict)  # kernel → its repeats' spread, as timing_spread() returns it
    policies: list[dict] = field(default_factory=list)  # what migrated which files (tree.MigratedTree.policy_groups)
    left_as_block_pointers: int = 0  # sites of the migrated copy still block pointers (they need Triton <= 3.8)

    def slow(self) -> list[KernelResult]:
        if self.max_slowdown is None:
            return []
        return [k for k in self.kernels if k.ratio is not None and k.ratio > self.max_slowdown]

    def compile_regressions(self) -> list[str]:
        return [key for key, b in self.compile_b.items() if not b.get("ok") and self.compile_a.get(key, {}).get("ok")]

    def compile_unloaded(self) -> list[str]:
        """Per version whose kernel could not be loaded to compile for a target (compile.py), why: nothing was
        compiled there, so nothing of it is verified, even where both versions failed alike (an error)."""
        return [f"compile mode: {key.replace('|', ' for ')} could not be loaded in the {label} version "
                f"({result['error']}): not verified"
                for label, results in zip(self.labels, (self.compile_a, self.compile_b))
                for key, result in sorted(results.items())
                if isinstance(result, dict) and result.get("loaded") is False]

    def differs(self) -> bool:
        """Whether what was compared differs: outputs, launches, the command, compile results, or time."""
        return bool(self.problems or self.slow() or self.compile_regressions() or any(
            k.status != "identical" for k in self.kernels))

    def exit_status(self) -> int:
        if self.errors:
            return ERROR
        return DIFFERENT if self.differs() or self.left_as_block_pointers else OK

    def headline(self) -> str:
        """The verdict in a few words."""
        if self.errors:
            return "verdict: not verified"
        if self.differs():
            return "verdict: DIFFERENT"
        if self.left_as_block_pointers:
            return (f"verdict: partly migrated: {self.left_as_block_pointers} site(s) still need Triton <= 3.8 "
                    f"(every compared launch identical)")
        return "verdict: identical"

    def as_json(self) -> dict:
        return {"exit_status": self.exit_status(), "labels": list(self.labels),
                "kernels": [{**k.as_json(), **self.timing.get(k.name, {})} for k in self.kernels],
                "compile": {"a": self.compile_a, "b": self.compile_b}, "slow": [k.name for k in self.slow()],
                "max_slowdown": self.max_slowdown, "environment": self.environment, "problems": self.problems,
                "errors": self.errors, "notes": self.notes, "policy": self.policies,
                "left_as_block_pointers": self.left_as_block_pointers, "verdict": self.headline().split(": ", 1)[1],
                "root": root_json(self.kernels)}


def timing_spread(index_a: dict, index_b: dict) -> dict[str, dict]:
    """Per kernel, the spread of the timed repeats behind its time. A kernel's time is the sum over its launches
    of each launch's median repeat (compare.py); here the sums of the first and of the third quartiles too
    (`time_a_iqr_ms`, `time_b_iqr_ms`), and the range of the ratio b/a if both times lay anywhere in those
    ranges (`ratio_iqr`: [q1 b / q3 a, q3 b / q1 a], which holds the ratio). `repeats`: the fewest timings a
    launch has (1: no spread, e.g. `--repeat 0`)."""
    sums_a, sums_b = _quartile_sums(index_a), _quartile_sums(index_b)
    spread = {}
    for kernel in sums_a.keys() & sums_b.keys():
        (low_a, high_a, count_a), (low_b, high_b, count_b) = sums_a[kernel], sums_b[kernel]
        if low_a > 0:
            spread[kernel] = {"time_a_iqr_ms": [low_a, high_a], "time_b_iqr_ms": [low_b, high_b],
                              "ratio_iqr": [low_b / high_a, high_b / low_a], "repeats": min(count_a, count_b)}
    return spread


def _quartile_sums(index: dict) -> dict[str, tuple[float, float, int]]:
    sums: dict[str, tuple[float, float, int]] = {}
    for launch in index["launches"]:
        times = launch.get("times_ms")
        if not times:
            continue
        first, _, third = statistics.quantiles(times, n=4, method="inclusive") if len(times) > 1 else times * 3
        low, high, count = sums.get(launch["kernel"], (0.0, 0.0, len(times)))
        sums[launch["kernel"]] = (low + first, high + third, min(count, len(times)))
    return sums


def policy_lines(groups: list[dict]) -> list[str]:
    """Per policy the codemod used: the files it migrated with it, then one line a setting, as the user
    writes it in `[tool.triton-migrate]` and where its value came from (a file, the command line, or the
    default): the target always, every other setting that is not at its default."""
    lines = []
    for group in groups:
        files = group["files"]
        listed = ", ".join(files[:4]) + (f" and {len(files) - 4} more" if len(files) > 4 else "")
        lines.append(f"policy for {listed}:")
        lines += [f"  {setting}" for setting in _settings(group["policy"], group.get("origins", {}),
                                                           group["non_default"])]
    return lines


def _settings(policy: dict, origins: dict, non_default: dict) -> list[str]:
    from triton_migrate.frontend.settings import BY_FIELD  # the key each policy field is set by

    found = []
    for name, value in policy.items():
        setting = BY_FIELD.get(name)
        if setting is not None and not setting.stated and (name == "target" or name in non_default or name in origins):
            found.append(f"{setting.key}: {setting.written(value)} ({origins.get(name, 'default')})")
    by_key: dict[tuple[str, str], list[str]] = {}  # (key, file) -> the facts stated there
    for statement in policy["assume"]:
        source, _, key = statement["where"].rpartition(": ")  # "pyproject.toml: kernel-assume \"matmul.c\""
        subject = ".".join(filter(None, (statement["kernel"], statement["argument"])))
        fact = statement["fact"] + (f" of {subject}" if subject else "")
        by_key.setdefault((key.split(" ")[0] or "assume", source or statement["where"]), []).append(fact)
    return found + [f"{key}: {', '.join(facts)} ({source})" for (key, source), facts in by_key.items()]


def root_json(kernels: list[KernelResult]) -> dict | None:
    found = root(kernels)
    return {"kernel": found.name, "launch": found.root["launch"]} if found and found.root else None


NAME_WIDTH = 44  # the kernel column; a longer name gets a line of its own above its row, never cut


def text(verdict: Verdict) -> str:
    lines = [*(f"note: {n}" for n in verdict.notes), *policy_lines(verdict.policies)]
    a, b = verdict.labels
    if verdict.kernels:
        lines.append(f"{'kernel':<{NAME_WIDTH}} {'launches':>9}  {'result':<15} {'max abs':>9} {'max ulp':>8} "
                     f"{a + ' ms':>12} {b + ' ms':>12} {'ratio':>6}")
        for k in sorted(verdict.kernels, key=lambda k: k.name):
            lines += _row(k, k in verdict.slow(), verdict.labels)
        for k in verdict.kernels:
            lines += [f"  {k.name} launch {d['launch']}: {_describe(d, verdict.labels)}" for d in k.differences]
        lines += _root_lines(verdict.kernels)
    if verdict.compile_a or verdict.compile_b:
        lines += _compile_table(verdict)
    lines += [f"DIFFERENCE: {p}" for p in verdict.problems] + [f"ERROR: {e}" for e in verdict.errors]
    lines.append(verdict.headline())
    return "\n".join(lines)


def _row(k: KernelResult, slow: bool, labels: tuple[str, str]) -> list[str]:
    """The kernel's row (its name on a line of its own first when longer than the column), then a row per
    launch that raised in either run."""
    launches = f"{k.compared}/{max(k.launches_a, k.launches_b)}"
    diff = f"{k.max_abs:>9.3g} {k.max_ulp:>8}" if k.differences else f"{'':>9} {'':>8}"
    times = f"{_ms(k.time_a_ms)} {_ms(k.time_b_ms)} {k.ratio:>6.2f}" if k.ratio is not None else ""
    name, above = (k.name, []) if len(k.name) <= NAME_WIDTH else ("", [k.name])
    row = f"{name:<{NAME_WIDTH}} {launches:>9}  {k.status:<15} {diff} {times}{'  SLOWER' if slow else ''}"
    return [*above, row.rstrip(), *(f"  launch {r['launch']}: {_raised(r, labels)}" for r in k.raised)]


def _raised(r: dict, labels: tuple[str, str]) -> str:
    if r["a"] == r["b"]:
        return f"raised in both runs: {r['a']}"
    return "; ".join(f"{'raised' if error else 'ran'} in {label}{': ' + error if error else ''}"
                     for label, error in zip(labels, (r["a"], r["b"])))


def _root_lines(kernels: list[KernelResult]) -> list[str]:
    """Where the differences start: the first launch to differ on identical inputs; the launches whose tensors
    already differed before they ran follow from it (or from another root)."""
    found, downstream = root(kernels), sum(k.downstream for k in kernels)
    lines = []
    if found is not None and found.root is not None:  # (root() finds only those)
        lines.append(f"root: {found.name} launch {found.root['launch']} is the first launch to differ on identical "
                     f"inputs")
    if downstream:
        lines.append(f"  {downstream} launch(es) of {sum(k.downstream > 0 for k in kernels)} kernel(s) differ after "
                     f"a tensor they were given already differed (marked `inputs differ`)")
    return lines


def _ms(value: float | None) -> str:
    return f"{value:>12.4f}" if value is not None else f"{'-':>12}"


def _describe(d: dict, labels: tuple[str, str] = ("original", "migrated")) -> str:
    what = f"{d['what']} {d.get('arg', '')}".strip()
    inputs = " (a tensor it was given already differed before it ran)" if d.get("inputs_differ") else ""
    if "count" in d and d["count"] is not None:
        unwritten = [f"{d[key]} never written in {label}" for key, label in zip(("unwritten_a", "unwritten_b"), labels)
                     if d.get(key)]
        return (f"{what}: {d['count']} elements differ{' (' + ', '.join(unwritten) + ')' if unwritten else ''}; "
                f"largest at {d['where']}: {d['a']!r} vs {d['b']!r} "
                f"(abs {d['max_abs']:.3g}{', ' + str(d['max_ulp']) + ' ulp' if 'max_ulp' in d else ''}){inputs}")
    if "reason" in d:
        spots = d.get("spots_differing")
        return f"{what}: {d['reason']}" + (f"; {spots} of the spot values differ" if spots is not None else "") + \
            inputs
    return f"{what}: {d['a']!r} vs {d['b']!r}{inputs}"


def _compile_table(verdict: Verdict) -> list[str]:
    lines = [f"\n{'kernel':<40} {'target':<8} {verdict.labels[0]:<26} {verdict.labels[1]:<26}"]
    previous = None
    for key in sorted(set(verdict.compile_a) | set(verdict.compile_b)):
        if "|" not in key:
            continue
        kernel, target = key.split("|")
        if len(kernel) > 40:  # never cut: the name on a line of its own, once
            lines += [kernel] if kernel != previous else []
            previous, kernel = kernel, ""
        lines.append(f"{kernel:<40} {target:<8} {_cell(verdict.compile_a.get(key)):<26} "
                     f"{_cell(verdict.compile_b.get(key)):<26}")
        for side, results in zip(verdict.labels, (verdict.compile_a, verdict.compile_b)):
            if results.get(key) and not results[key].get("ok"):
                lines.append(f"    {side}: {results[key]['error']}")
    return lines


def _cell(result: dict | None) -> str:
    if result is None:
        return "-"
    if not result.get("ok"):
        return "FAILS"
    features = [f for f in ("tma", "amd_tdm", "buffer_ops") if result.get(f)]
    return (f"ok r{result.get('registers')} s{result.get('spills')} sh{result.get('shared_bytes')}"
            f"{' ' + '+'.join(features) if features else ''}")


def ir_diff(verdict: Verdict, dir_a: Path, dir_b: Path, stage: str) -> str:
    """Unified diffs of one IR stage between the two versions of every kernel compiled on both sides."""
    out: list[str] = []
    for key in sorted(set(verdict.compile_a) & set(verdict.compile_b)):
        a, b = verdict.compile_a[key], verdict.compile_b[key]
        if not (a.get("ok") and b.get("ok")) or stage not in a.get("ir", {}) or stage not in b.get("ir", {}):
            continue
        text_a = (dir_a / a["ir"][stage]).read_text().splitlines(keepends=True)
        text_b = (dir_b / b["ir"][stage]).read_text().splitlines(keepends=True)
        out += difflib.unified_diff(text_a, text_b, f"{key} {verdict.labels[0]}.{stage}",
                                    f"{key} {verdict.labels[1]}.{stage}")
    return "".join(out)

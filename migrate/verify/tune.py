"""`migrate tune`: measure every kernel's candidate migrations on this machine's GPU and keep, per kernel, the
fastest one whose outputs are bit-identical to the original.

    migrate tune [PATHS]... [--candidates auto,pointer] [--out FILE] -- COMMAND

COMMAND runs once on the original tree (the reference, on a Triton that still has block pointers) and once on
a migrated copy per candidate form, recorded launch by launch as `migrate verify` does. Each copy is migrated
as `migrate --write` would with the project's configuration, the candidate replacing only its target and
kernel-targets. A kernel's speed is
the geometric mean of its launches' speed-ups (each shape counts once); candidates that keep every launch at
`--floor` or above come first, and one replaces the first such bit-identical one only if it is faster by
more than `--margin`. The choice is
written as a `[tool.triton-migrate.kernel-targets]` table: copy it into pyproject.toml and `migrate --write`
gives each kernel its form. Deterministic from then on: the codemod reads the table, it never measures.
A kernel no candidate reproduces bit for bit keeps the default and makes the exit status 1.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import click

from triton_migrate.forms import Target
from triton_migrate.policy import KERNEL_TARGETS, Policy

from .report import policy_lines
from .session import (
    RunsUserCommand,
    checking,
    common,
    migrating,
    record,
    session,
    tree_paths,
    user_command,
    verdict_of,
)
from .tree import Migration, make_migrated_copy

DEFAULT_CANDIDATES = (Target.AUTO.value, Target.POINTER.value)
# The recorder's run-to-run noise: the candidates run one after another, minutes apart, and a kernel's times
# move by a few per cent between runs. A candidate replaces the first identical one only if it is faster
# by more than this.
MARGIN = 0.03
# The slowest a launch may be against the original. A kernel is one form for every shape it is launched
# with, and a form that wins on one shape can lose on another: a candidate that keeps every launch above
# this is preferred to one that is faster overall but makes some shape slower.
FLOOR = 0.97


@dataclass(frozen=True)
class Measurement:
    identical: bool
    speeds: tuple[float, ...] = ()  # per launch: original time / candidate time

    @classmethod
    def of(cls, result) -> Measurement:
        speeds = tuple(1 / r for r in result.launch_ratios if r > 0)
        return cls(result.status == "identical", speeds)

    @property
    def speed(self) -> float:
        """The geometric mean over launches: each shape counts once, however long it runs."""
        return math.prod(self.speeds) ** (1 / len(self.speeds))

    @property
    def worst(self) -> float:
        return min(self.speeds)


@dataclass
class Choice:
    kernel: str  # module:qualname, as recorded
    measured: dict[str, Measurement] = field(default_factory=dict)  # candidate -> its measurement
    margin: float = MARGIN
    floor: float = FLOOR

    @property
    def function(self) -> str:
        return self.kernel.rpartition(":")[2].rpartition(".")[2]

    @property
    def best(self) -> str | None:
        """Among the bit-identical candidates that keep every launch at the floor or above: the fastest if it
        beats the first of them (the default, in the usual order) by more than the margin; else that first
        one. When none reaches the floor, the floor is the best slowest launch, less the margin."""
        timed = [(c, m) for c, m in self.measured.items() if m.identical and m.speeds]
        if not timed:
            return None
        best_worst = max(m.worst for _, m in timed)
        floor = self.floor if best_worst >= self.floor else best_worst * (1 - self.margin)
        safe = [(c, m) for c, m in timed if m.worst >= floor]
        fastest = max(safe, key=lambda cm: cm[1].speed)  # max keeps the first of equals
        return fastest[0] if fastest[1].speed * (1 - self.margin) > safe[0][1].speed else safe[0][0]


def choose(runs: dict[str, list], margin: float = MARGIN, floor: float = FLOOR) -> list[Choice]:
    """`runs`: candidate -> verify's KernelResults against the original. One Choice per kernel."""
    choices: dict[str, Choice] = {}
    for candidate, results in runs.items():
        for result in results:
            choice = choices.setdefault(result.name, Choice(result.name, margin=margin, floor=floor))
            choice.measured[candidate] = Measurement.of(result)
    return sorted(choices.values(), key=lambda c: c.kernel)


def table(choices: list[Choice], candidates: list[str]) -> str:
    width = max([len(c.kernel) for c in choices] + [6])
    head = f"{'kernel':<{width}}  " + "  ".join(f"{c:>21}" for c in candidates) + "  chosen"
    rows = [head, "-" * len(head)]
    for choice in choices:
        cells = [_cell(choice.measured.get(candidate)).rjust(21) for candidate in candidates]
        rows.append(f"{choice.kernel:<{width}}  " + "  ".join(cells) + f"  {choice.best or 'none identical'}")
    rows.append("(per launch, original time / candidate time: the geometric mean over launches, and in brackets "
                "the slowest launch; above 1, the candidate is faster)")
    return "\n".join(rows)


def _cell(measured: Measurement | None) -> str:
    if measured is None or not measured.speeds:
        return "-"
    return f"{'' if measured.identical else 'DIFFERS '}{measured.speed:.2f}x ({measured.worst:.2f})"


def toml(choices: list[Choice], environment: dict) -> str:
    """The kernel-targets table; `auto` choices are written too, so the table says what was measured."""
    stamp = datetime.date.today().isoformat()
    lines = [f"# written by `migrate tune` on {environment.get('device_name', '?')}, Triton "
             f"{environment.get('triton', '?')}, {stamp}: per kernel, the fastest bit-identical form "
             "(geometric mean over launches; slowest launch)",
             "[tool.triton-migrate.kernel-targets]"]
    names: dict[str, str] = {}
    for choice in choices:
        if choice.best is not None and names.setdefault(choice.function, choice.best) == choice.best:
            chosen = choice.measured[choice.best]
            lines.append(f'{choice.function} = "{choice.best}"  # {chosen.speed:.2f}x; {chosen.worst:.2f}x')
    return "\n".join(lines) + "\n"


def candidate_policy(candidate: str) -> Callable[[Policy], Policy]:
    """What a candidate changes in a file's policy: its target for every kernel, in place of the project's and
    of its kernel-targets table; everything else stays the project's configuration."""
    return lambda policy: replace(policy, target=candidate, kernel_targets=())


@click.command("tune", cls=RunsUserCommand)
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--candidates", default=",".join(DEFAULT_CANDIDATES), show_default=True,
              help=f"Targets to measure, comma-separated, from {', '.join(KERNEL_TARGETS)}.")
@click.option("--out", default="triton-migrate.tune.toml", show_default=True, type=click.Path(dir_okay=False),
              help="Where to write the [tool.triton-migrate.kernel-targets] table.")
@click.option("--margin", default=MARGIN, show_default=True, type=click.FloatRange(0, 1),
              help="How much faster (a fraction) a candidate must be than the first bit-identical one to "
                   "replace it: the measurement's noise.")
@click.option("--floor", default=FLOOR, show_default=True, type=click.FloatRange(0),
              help="The slowest any launch may be against the original (original time / candidate time): "
                   "a candidate below it on some launch is chosen only if every candidate is.")
@common
@migrating
@click.pass_context
def tune_command(ctx, paths, candidates, out, margin, floor, **options):
    """Time each kernel's candidate migrations on this GPU; keep the fastest bit-identical one per kernel.
    Each candidate is migrated as `migrate --write` would with the project's configuration, its form in place
    of the configured target and kernel-targets."""
    wanted = [c.strip() for c in candidates.split(",") if c.strip()]
    if not wanted or any(c not in KERNEL_TARGETS for c in wanted):
        raise click.UsageError(f"--candidates: choose from {', '.join(KERNEL_TARGETS)}")
    command_line = user_command(ctx)
    with session(options) as (device, config, work):
        root = Path.cwd().resolve()
        original = record(command_line, root, work / "original.tmv", config, work, options)
        runs = {}
        for candidate in wanted:
            tree = make_migrated_copy(root, tree_paths(paths, root), work / f"tree-{candidate}", {},
                                      Migration(options, candidate_policy(candidate)))
            for line in policy_lines(tree.policy_groups()):
                click.echo(f"{candidate}: {line}", err=True)
            run = record(command_line, tree.root, work / f"{candidate}.tmv", checking(config, tree), work, options,
                         original)
            runs[candidate] = verdict_of([original, run], options).kernels
        choices = choose(runs, margin, floor)
        click.echo(table(choices, wanted))
        Path(out).write_text(toml(choices, original[1]["environment"]))
        click.echo(f"\nwrote {out}: copy its table into pyproject.toml, then `migrate --write`", err=True)
        missing = [c.kernel for c in choices if c.best is None]
        for kernel in missing:
            click.echo(f"{kernel}: no candidate is bit-identical to the original; it keeps the default", err=True)
        ctx.exit(1 if missing or not choices else 0)

"""`migrate verify`: the click command. torch and triton are imported only inside the subcommands."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import recording
from .report import ERROR, Verdict, ir_diff, text
from .session import (
    READS_RECORDINGS,
    RUNS_KERNELS,
    Unusable,
    checking,
    common,
    migrating,
    record,
    session,
    split_user_command,
    tree_paths,
    user_command,
    verdict_of,
)
from .tree import MigratedTree, Migration, make_migrated_copy, migrate_into
from .tune import tune_command

_SUBCOMMANDS = ("run", "record", "compare", "cases", "chart", "tune")


class _VerifyGroup(click.Group):
    """`verify [PATHS] -- CMD` runs `verify run`; everything after `--` is the user's command, kept out of
    click's parsing (its options are the command's, not ours)."""

    def parse_args(self, ctx, args):
        args = split_user_command(ctx, args)
        if not args or (args[0] not in _SUBCOMMANDS and args[0] not in ("--help", "-h")):
            args = ["run", *args]
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx):
        return ["[OPTIONS]", "[PATHS]...", "--", "COMMAND"]

    def format_options(self, ctx, formatter):
        """`migrate verify [PATHS] -- COMMAND` is the `run` command: its options are verify's own, listed here
        (`run` is not a name any page uses), then the other commands."""
        records = [record for param in self.commands["run"].get_params(ctx)
                   if (record := param.get_help_record(ctx)) is not None]
        with formatter.section("Options"):
            formatter.write_dl(records)
        self.format_commands(ctx, formatter)


def _check_chart(ctx, param, value):
    """--chart is checked while the options are parsed, before anything runs: a chart asked for and impossible
    (matplotlib missing, an unknown format, no such directory) must not cost a whole run first."""
    if value is not None:
        from . import chart

        try:
            chart.require(value)
        except chart.ChartUnavailable as error:
            raise Unusable(str(error)) from error
        except ValueError as error:
            raise click.BadParameter(str(error), ctx, param) from error
    return value


def _chart_option(function):
    return click.option("--chart", "chart_path", type=click.Path(dir_okay=False), callback=_check_chart,
                        help="Also draw the verdict (.png, .svg, .pdf): the time ratio per kernel with error bars, "
                        "differences marked. Needs matplotlib: pip install matplotlib.")(function)


@click.group("verify", cls=_VerifyGroup, context_settings={"help_option_names": ["-h", "--help"]})
def command():
    """Run kernels before and after migration and compare every output bit for bit, with timings.

    \b
      migrate verify [PATHS]... -- COMMAND          original tree vs a migrated copy
      migrate verify record --out G.tmv -- COMMAND  record a golden run (Triton <= 3.8)
      migrate verify compare G.tmv [--migrate] -- COMMAND   a later run against it (any Triton)
      migrate verify compare G.tmv OTHER.tmv        two recordings
      migrate verify cases CASES.py                 explicit cases (triton_migrate.verify.cases)
      migrate verify chart V.json --out V.png       draw a verdict saved with --json (also: --chart)

    Exit status: 0 identical, 1 a difference (or a slowdown beyond --max-slowdown), 2 errors.
    """


@command.command("run", hidden=True)
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--migrated", "replacements", multiple=True, metavar="PATH=FILE",
              help="Use FILE as the migrated PATH instead of the codemod's output (a hand-fixed migration).")
@common
@migrating
@_chart_option
@click.pass_context
def run_command(ctx, paths, replacements, **options):
    """Run COMMAND on the original sources and on a migrated copy (migrated as `migrate --write` would, with
    the same configuration); compare launch by launch."""
    command_line = user_command(ctx)
    root = Path.cwd().resolve()
    with session(options) as (device, config, work):
        if work.is_relative_to(root):
            raise click.UsageError(f"the working directory {work} must be outside the tree {root} (see --keep)")
        chosen = {str(p.relative_to(root)): f for p, f in _replacements(replacements, root).items()}
        tree = make_migrated_copy(root, tree_paths(paths, root), work / "tree", chosen, Migration(options))
        original = record(command_line, root, work / "original.tmv", config, work, options)
        runs = [original, record(command_line, tree.root, work / "migrated.tmv", checking(config, tree), work,
                                 options, original)]
        verdict = verdict_of(runs, options)
        _describe_tree(verdict, tree)
        verdict.problems += _ran_original(runs[1][1], root)
        _finish(verdict, runs, options)


@command.command("record")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="The recording to write.")
@common
@click.pass_context
def record_command(ctx, out, **options):
    """Record COMMAND's launches (outputs, timings, compile results) to compare against later."""
    command_line = user_command(ctx)
    out = Path(out)
    if out.exists():
        raise click.UsageError(f"{out} exists; remove it or choose another --out")
    with session(options) as (device, config, work):
        _, index = record(command_line, Path.cwd().resolve(), out, config, work, options)
        kernels = sorted({launch["kernel"] for launch in index["launches"]})
        env = index["environment"]
        where = f"Triton {env['triton']}, {env['device_name']}, " if env.get("triton") else ""
        click.echo(f"recorded {len(index['launches'])} launches of {len(kernels)} kernels to {out} "
                   f"({where}command exit status {index['returncode']})")
        if not index["launches"]:
            click.echo("ERROR: no Triton launch was recorded", err=True)
            sys.exit(ERROR)


@command.command("compare")
@click.argument("golden", type=click.Path(exists=True, file_okay=False))
@click.argument("other", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("--migrate", "paths", multiple=True, type=click.Path(exists=True),
              help="Run COMMAND in a migrated copy of the tree, migrating these paths (repeatable) as "
                   "`migrate --write` would.")
@common
@migrating
@_chart_option
@click.pass_context
def compare_command(ctx, golden, other, paths, **options):
    """Compare a recording with another one, or with a run of COMMAND now."""
    golden = Path(golden)
    with session(options, READS_RECORDINGS if other is not None else RUNS_KERNELS) as (device, config, work):
        first = (golden, _load(golden))
        tree = None
        if other is not None:
            second = (Path(other), _load(Path(other)))
        else:
            root = Path.cwd().resolve()
            if paths:
                tree = make_migrated_copy(root, tree_paths(paths, root), work / "tree", {}, Migration(options))
            second = record(user_command(ctx), tree.root if tree else root, work / "current.tmv",
                            checking(config, tree) if tree else config, work, options, first)
        verdict = verdict_of([first, second], options, labels=("recorded", "current" if other is None else "other"))
        if tree is not None:
            _describe_tree(verdict, tree)
        _finish(verdict, [first, second], options)


@command.command("cases")
@click.argument("cases_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--migrated", "replacements", multiple=True, metavar="PATH=FILE",
              help="Use FILE as the migrated version of the kernel module PATH.")
@common
@migrating
@_chart_option
def cases_command(cases_file, replacements, **options):
    """Run the @case functions of CASES_FILE on the original and the migrated kernel modules."""
    from .cases import compare_case, load_cases
    from .record import _environment

    with session(options) as (device, config, work):
        entries = load_cases(Path(cases_file))
        chosen = _replacements(replacements, Path.cwd().resolve())
        verdict = Verdict([], max_slowdown=options["max_slowdown"])
        verdict.environment = dict.fromkeys("ab", _environment(device))
        modules = {}
        for entry in entries:
            if entry.module not in modules:
                modules[entry.module] = _case_modules(entry.module, work / f"m{len(modules)}", chosen, verdict,
                                                      Migration(options, standalone=True))
            verdict.kernels.append(compare_case(entry, *modules[entry.module], device, config["warmup"],
                                                config["repeat"]))
        if not entries:
            verdict.errors.append(f"{cases_file}: no @case functions")
        _finish(verdict, [], options)


@command.command("chart")
@click.argument("verdict_json", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "chart_path", required=True, type=click.Path(dir_okay=False), callback=_check_chart,
              help="The chart to write (.png, .svg, .pdf).")
@click.option("--max-slowdown", type=float, help="Draw this threshold [default: the verdict's own, if any].")
def chart_command(verdict_json, chart_path, max_slowdown):
    """Draw a verdict saved with --json, without running anything (needs matplotlib, not torch or triton)."""
    from . import chart

    try:
        chart.write(json.loads(Path(verdict_json).read_text()), chart_path, max_slowdown)
    except (OSError, ValueError) as error:
        raise Unusable(f"{verdict_json}: {error}") from error
    click.echo(f"chart: {chart_path}")


def _case_modules(module: Path, work: Path, chosen: dict, verdict: Verdict, migration: Migration):
    """The original kernel module and its migrated version, imported side by side under unique names."""
    from .cases import import_path

    migrated = chosen.get(module)
    if migrated is None:
        work.mkdir(parents=True)
        migrated = work / module.name
        migrated.write_bytes(module.read_bytes())  # what the codemod leaves as it is stays the original
        tree = MigratedTree(work)
        migrate_into(tree, module.parent, [module], migration)
        _describe_tree(verdict, tree)
    return import_path(module, "original"), import_path(migrated, "migrated")


# ----------------------------------------------------------------------------------------- helpers
def _load(path: Path) -> dict:
    try:
        return recording.load(path)
    except recording.RecordingError as error:
        raise click.UsageError(str(error)) from error


def _describe_tree(verdict: Verdict, tree: MigratedTree) -> None:
    """What the codemod did to the copy, and with which policy, in the verdict."""
    verdict.notes.append(f"migrated by the codemod: {', '.join(tree.migrated) or 'nothing'}")
    verdict.notes += [f"migrated by hand (--migrated): {p}" for p in tree.replaced]
    verdict.notes += [f"{p}: {n} site(s) left as block pointers (see `migrate --diff`)"
                      for p, n in tree.refused.items()]
    verdict.notes += [f"{p}: not migrated: {e}" for p, e in tree.errors.items()]
    verdict.notes += [f"{kernel}: sums tiles its descriptors load, which on a GPU may round otherwise than the "
                      "original (TTD001): expect differences at rounding level" for kernel in tree.summing]
    verdict.left_as_block_pointers += sum(tree.refused.values())
    verdict.policies += tree.policy_groups()


def _ran_original(index: dict, root: Path) -> list[str]:
    """Run B must run the copy: a kernel loaded from the original tree means an installed copy of the project
    (e.g. `pip install -e .`) shadowed it, and the comparison would compare the original with itself."""
    stray = sorted({launch["source"] for launch in index["launches"]
                    if launch["source"] and Path(launch["source"]).is_absolute()
                    and Path(launch["source"]).is_relative_to(root)})
    return [f"the migrated run loaded {s} from the original tree, not the migrated copy (an installed copy of "
            f"the project shadows it?)" for s in stray]


def _replacements(pairs, root: Path) -> dict[Path, Path]:
    """--migrated PATH=FILE pairs: absolute PATH (inside `root`) → FILE."""
    found = {}
    for pair in pairs:
        path, sep, file = pair.partition("=")
        target = (root / path).resolve()
        if not sep or not Path(file).is_file() or not target.is_relative_to(root):
            raise click.UsageError(f"--migrated wants PATH=FILE, PATH inside {root} and FILE existing; got {pair!r}")
        found[target] = Path(file).resolve()
    return found


def _finish(verdict: Verdict, runs, options) -> None:
    click.echo(text(verdict))
    if options["ir_diff"] and len(runs) == 2:
        click.echo(ir_diff(verdict, runs[0][0], runs[1][0], options["ir_diff"]))
    if options["json_path"]:
        Path(options["json_path"]).write_text(json.dumps(verdict.as_json(), indent=1, default=str))
    if options["chart_path"]:
        from . import chart

        chart.write(verdict.as_json(), options["chart_path"])
        click.echo(f"chart: {options['chart_path']}", err=True)
    sys.exit(verdict.exit_status())


command.add_command(tune_command)

"""`migrate verify`: the click command. torch and triton are imported only inside the subcommands."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import click

from . import recording, tuning
from .record import DEFAULTS
from .report import ERROR, Verdict, ir_diff, text, timing_spread

_SUBCOMMANDS = ("run", "record", "compare", "cases", "chart", "tune")


class _VerifyGroup(click.Group):
    """`verify [PATHS] -- CMD` runs `verify run`; everything after `--` is the user's command, kept out of
    click's parsing (its options are the command's, not ours)."""

    def parse_args(self, ctx, args):
        if "--" in args:
            cut = args.index("--")
            args, ctx.meta["tm_command"] = args[:cut], args[cut + 1:]
        if not args or (args[0] not in _SUBCOMMANDS and args[0] not in ("--help", "-h")):
            args = ["run", *args]
        return super().parse_args(ctx, args)


def _common(function):
    options = [
        click.option("--device", default="auto", show_default=True,
                     type=click.Choice(["auto", "cpu", "cuda", "rocm", "xpu"]),
                     help="Where kernels run; cpu = Triton's interpreter."),
        click.option("--targets", default="", help="Also cross-compile every recorded kernel for these targets "
                     "on the CPU, e.g. sm_80,sm_90,sm_100,gfx942,gfx950,gfx1250."),
        click.option("--ir-diff", type=click.Choice(["ttir", "ttgir", "llir", "ptx", "amdgcn"]),
                     help="With --targets: print the diff of this IR stage between the two versions."),
        click.option("--repeat", type=int, default=None, help="Timed re-launches per launch, on copies of its "
                     "buffers [default: 10 on a GPU, 0 on the CPU: the recorded launch is timed]."),
        click.option("--warmup", type=int, default=2, show_default=True, help="Untimed re-launches first."),
        click.option("--keep-bytes", type=int, default=DEFAULTS["keep_bytes"], show_default=True,
                     help="Buffers up to this size are recorded in full; larger ones as digest + spot values."),
        click.option("--total-bytes", type=int, default=DEFAULTS["total_bytes"], show_default=True,
                     help="Disk budget for full buffers per process; beyond it, digests only."),
        click.option("--max-slowdown", type=float, help="Exit 1 if a kernel's time ratio exceeds this."),
        click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write the verdict as JSON."),
        click.option("--keep", type=click.Path(file_okay=False), help="Keep the recordings and the migrated "
                     "copy in this directory (default: a temporary one, removed)."),
        click.option("--own-tuning", is_flag=True, help="Let the second run's autotuners tune for themselves "
                     "[default: they take the first run's choices, so that both run the same configurations]."),
        click.option("-v", "--verbose", is_flag=True, help="Show the command's own output."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


class _Unusable(click.ClickException):
    exit_code = ERROR


def _check_chart(ctx, param, value):
    """--chart is checked while the options are parsed, before anything runs: a chart asked for and impossible
    (matplotlib missing, an unknown format, no such directory) must not cost a whole run first."""
    if value is not None:
        from . import chart

        try:
            chart.require(value)
        except chart.ChartUnavailable as error:
            raise _Unusable(str(error)) from error
        except ValueError as error:
            raise click.BadParameter(str(error), ctx, param) from error
    return value


def _chart_option(function):
    return click.option("--chart", "chart_path", type=click.Path(dir_okay=False), callback=_check_chart,
                        help="Also draw the verdict (.png, .svg, .pdf): the time ratio per kernel with error bars, "
                        "differences marked. Needs matplotlib: pip install 'triton-migrate[chart]'.")(function)


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


@command.command("run")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--migrated", "replacements", multiple=True, metavar="PATH=FILE",
              help="Use FILE as the migrated PATH instead of the codemod's output (a hand-fixed migration).")
@_common
@_chart_option
@click.pass_context
def run_command(ctx, paths, replacements, **options):
    """Run COMMAND on the original sources and on a migrated copy; compare launch by launch."""
    from .tree import make_migrated_copy

    user_command = _user_command(ctx)
    root = Path.cwd().resolve()
    with _session(options) as (device, config, work):
        if work.is_relative_to(root):
            raise click.UsageError(f"the working directory {work} must be outside the tree {root} (see --keep)")
        chosen = {str(p.relative_to(root)): f for p, f in _replacements(replacements, root).items()}
        tree = make_migrated_copy(root, [Path(p) for p in paths] or [root], work / "tree", chosen)
        original = _record(user_command, root, work / "original.tmv", config, work, options)
        runs = [original, _record(user_command, tree.root, work / "migrated.tmv", config, work, options, original)]
        verdict = _verdict(runs, options)
        verdict.notes += _tree_notes(tree)
        verdict.problems += _ran_original(runs[1][1], root)
        _finish(verdict, runs, options)


@command.command("record")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="The recording to write.")
@_common
@click.pass_context
def record_command(ctx, out, **options):
    """Record COMMAND's launches (outputs, timings, compile results) to compare against later."""
    user_command = _user_command(ctx)
    out = Path(out)
    if out.exists():
        raise click.UsageError(f"{out} exists; remove it or choose another --out")
    with _session(options) as (device, config, work):
        _, index = _record(user_command, Path.cwd().resolve(), out, config, work, options)
        kernels = sorted({l["kernel"] for l in index["launches"]})
        click.echo(f"recorded {len(index['launches'])} launches of {len(kernels)} kernels to {out} "
                   f"(Triton {index['environment'].get('triton')}, {index['environment'].get('device_name')}, "
                   f"command exit status {index['returncode']})")
        if not index["launches"]:
            click.echo("ERROR: no Triton launch was recorded", err=True)
            sys.exit(ERROR)


@command.command("compare")
@click.argument("golden", type=click.Path(exists=True, file_okay=False))
@click.argument("other", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("--migrate", "paths", multiple=True, type=click.Path(exists=True),
              help="Run COMMAND in a migrated copy of the tree, migrating these paths (repeatable).")
@_common
@_chart_option
@click.pass_context
def compare_command(ctx, golden, other, paths, **options):
    """Compare a recording with another one, or with a run of COMMAND now."""
    from .tree import make_migrated_copy

    golden = Path(golden)
    with _session(options) as (device, config, work):
        first = (golden, _load(golden))
        if other is not None:
            second = (Path(other), _load(Path(other)))
        else:
            root = Path.cwd().resolve()
            tree = make_migrated_copy(root, [Path(p) for p in paths], work / "tree", {}).root if paths else root
            second = _record(_user_command(ctx), tree, work / "current.tmv", config, work, options, first)
        verdict = _verdict([first, second], options, labels=("recorded", "current" if other is None else "other"))
        _finish(verdict, [first, second], options)


@command.command("cases")
@click.argument("cases_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--migrated", "replacements", multiple=True, metavar="PATH=FILE",
              help="Use FILE as the migrated version of the kernel module PATH.")
@_common
@_chart_option
def cases_command(cases_file, replacements, **options):
    """Run the @case functions of CASES_FILE on the original and the migrated kernel modules."""
    from .cases import compare_case, load_cases
    from .record import _environment

    with _session(options) as (device, config, work):
        entries = load_cases(Path(cases_file))
        chosen = _replacements(replacements, Path.cwd().resolve())
        verdict = Verdict([], max_slowdown=options["max_slowdown"])
        verdict.environment = dict.fromkeys("ab", _environment(device))
        modules = {}
        for entry in entries:
            if entry.module not in modules:
                modules[entry.module] = _case_modules(entry.module, work / f"m{len(modules)}", chosen, verdict)
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
        raise _Unusable(f"{verdict_json}: {error}") from error
    click.echo(f"chart: {chart_path}")


def _case_modules(module: Path, work: Path, chosen: dict, verdict: Verdict):
    """The original kernel module and its migrated version, imported side by side under unique names."""
    from .cases import import_path
    from .tree import MigratedTree, migrate_file

    migrated = chosen.get(module)
    if migrated is None:
        work.mkdir(parents=True)
        migrated = work / module.name
        tree = MigratedTree(work)
        migrate_file(module, migrated, module.name, tree, None)
        if not tree.migrated:
            migrated.write_text(module.read_text())
        verdict.notes += _tree_notes(tree)
    return import_path(module, "original"), import_path(migrated, "migrated")


# ----------------------------------------------------------------------------------------- helpers
def _user_command(ctx) -> list[str]:
    from .runner import python_command

    user_command = ctx.meta.get("tm_command")
    if not user_command:
        raise click.UsageError("give the command to run after `--`, e.g. `-- pytest tests/`")
    return python_command(user_command)


@contextmanager
def _session(options):
    from .compile import parse_targets
    from .devices import detect

    try:
        device = detect(options["device"])
        options["target_list"] = parse_targets(options["targets"])
    except ValueError as error:
        raise click.UsageError(str(error)) from error
    if device.interpreted:
        os.environ["TRITON_INTERPRET"] = "1"  # for cases mode, which runs kernels in this process
    repeat = options["repeat"] if options["repeat"] is not None else (0 if device.interpreted else 10)
    config = {**DEFAULTS, "device": device.kind, "keep_bytes": options["keep_bytes"],
              "total_bytes": options["total_bytes"], "warmup": options["warmup"] if repeat else 0, "repeat": repeat}
    if options["keep"]:
        work = Path(options["keep"]).resolve()
        work.mkdir(parents=True, exist_ok=True)
        yield device, config, work
    else:
        with tempfile.TemporaryDirectory(prefix="tm-verify-") as tmp:
            yield device, config, Path(tmp)


def _record(user_command, tree: Path, out: Path, config: dict, work: Path, options,
            pinned_to: tuple[Path, dict] | None = None) -> tuple[Path, dict]:
    """Record the command in `tree`; with `pinned_to` (an earlier recording), its autotuners take that
    recording's choices unless --own-tuning."""
    from .compile import compile_recording
    from .runner import record_command

    if pinned_to is not None and not options["own_tuning"]:
        config = {**config, "pinned": tuning.as_pins(pinned_to[1].get("tuning", []))}
    result = record_command(user_command, tree, out, config, work, pass_output=options["verbose"])
    if result.index["returncode"] != 0 and result.output:
        click.echo(f"--- output of {' '.join(user_command)} in {tree} (exit status {result.index['returncode']}):\n"
                   + "\n".join(result.output.splitlines()[-30:]), err=True)
    if options["target_list"]:
        result.index["compile"] = compile_recording(out, tree, options["target_list"])
        recording.write_index(out, result.index)
    return out, result.index


def _load(path: Path) -> dict:
    try:
        return recording.load(path)
    except recording.RecordingError as error:
        raise click.UsageError(str(error)) from error


def _verdict(runs, options, labels=("original", "migrated")) -> Verdict:
    from .compare import compare

    (dir_a, index_a), (dir_b, index_b) = runs
    verdict = Verdict(compare(dir_a, index_a, dir_b, index_b), labels, index_a.get("compile", {}),
                      index_b.get("compile", {}), max_slowdown=options["max_slowdown"],
                      environment={"a": index_a["environment"], "b": index_b["environment"]},
                      timing=timing_spread(index_a, index_b))
    env_a, env_b = index_a["environment"], index_b["environment"]
    verdict.notes.append(f"{labels[0]}: Triton {env_a.get('triton')} on {env_a.get('device_name')}; "
                         f"{labels[1]}: Triton {env_b.get('triton')} on {env_b.get('device_name')}")
    verdict.notes += filter(None, [tuning.summary(index_a.get("tuning", []), index_b.get("tuning", []), labels)])
    if index_a["returncode"] != index_b["returncode"]:
        verdict.problems.append(f"the command's exit status differs: {index_a['returncode']} vs "
                                f"{index_b['returncode']}")
    if not index_a["launches"] and not index_b["launches"]:
        verdict.errors.append("no Triton launch was recorded: nothing was verified")
    verdict.errors += [r["error"] for r in (verdict.compile_a, verdict.compile_b) if "error" in r]
    return verdict


def _tree_notes(tree) -> list[str]:
    notes = [f"migrated by the codemod: {', '.join(tree.migrated) or 'nothing'}"]
    notes += [f"migrated by hand (--migrated): {p}" for p in tree.replaced]
    notes += [f"{p}: {n} site(s) left as block pointers (see `migrate --diff`)" for p, n in tree.refused.items()]
    notes += [f"{p}: not migrated: {e}" for p, e in tree.errors.items()]
    return notes


def _ran_original(index: dict, root: Path) -> list[str]:
    """Run B must run the copy: a kernel loaded from the original tree means an installed copy of the project
    (e.g. `pip install -e .`) shadowed it, and the comparison would compare the original with itself."""
    stray = sorted({l["source"] for l in index["launches"]
                    if l["source"] and Path(l["source"]).is_absolute() and Path(l["source"]).is_relative_to(root)})
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
        Path(options["json_path"]).write_text(json.dumps(verdict.as_json(), indent=1))
    if options["chart_path"]:
        from . import chart

        chart.write(verdict.as_json(), options["chart_path"])
        click.echo(f"chart: {options['chart_path']}", err=True)
    sys.exit(verdict.exit_status())


def _register_tune() -> None:
    from .tune import register

    register(command, _common, _session, _record, _verdict)


_register_tune()

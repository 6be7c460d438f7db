"""What the subcommands that run kernels share (`verify run`, `record`, `compare`, `cases`, and `tune`): their
options, the session (what they need installed, the device, the recorder's configuration, a working
directory), recording one run of the user's command, and the verdict on two recordings."""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import click

from . import recording, tuning
from .record import DEFAULTS
from .report import ERROR, Verdict, timing_spread

RUNS_KERNELS = ("torch", "triton")  # what a subcommand that runs the user's kernels needs in this Python
READS_RECORDINGS = ("torch",)  # what comparing two recordings needs (their tensors)
_INSTALL = {"torch": "pip install torch (a CPU build is enough for Triton's interpreter)",
            "triton": "pip install triton"}


class Unusable(click.ClickException):
    """Nothing can be verified (a missing dependency or device, an unreadable file): one line, exit 2."""

    exit_code = ERROR


def common(function):
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


def migrating(function):
    """The default command's configuration options, for the subcommands that migrate a copy: the copy is
    migrated as `migrate --write` would migrate the tree, with the same options."""
    from triton_migrate.frontend.options import configuration_options

    return configuration_options(function)


def split_user_command(ctx, args: list[str]) -> list[str]:
    """Everything after `--` is the user's command, kept out of click's parsing (its options are the command's,
    not ours); the arguments before it."""
    if "--" in args:
        cut = args.index("--")
        args, ctx.meta["tm_command"] = args[:cut], args[cut + 1:]
    return args


class RunsUserCommand(click.Command):
    """A command that runs the user's command given after `--` (`migrate tune -- python bench.py`)."""

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, split_user_command(ctx, args))


def user_command(ctx) -> list[str]:
    from .runner import python_command

    command = ctx.meta.get("tm_command")
    if not command:
        raise click.UsageError("give the command to run after `--`, e.g. `-- pytest tests/`")
    return python_command(command)


def tree_paths(paths, root: Path) -> list[Path]:
    """The paths to migrate in the copy of `root` (default: all of it); each must lie in it."""
    for path in paths:
        if not Path(path).resolve().is_relative_to(root):
            raise click.UsageError(f"{path} is outside the tree {root}, which is what gets copied and migrated")
    return [Path(p) for p in paths] or [Path(".")]


def require(modules: tuple[str, ...]) -> None:
    """Fail at once, in one line, when this Python cannot import what the subcommand needs."""
    missing = [name for name in modules if not _importable(name)]
    if missing:
        raise Unusable(f"migrate verify needs {' and '.join(missing)}, which {sys.executable} cannot import: "
                       + "; ".join(_INSTALL[name] for name in missing))


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a parent that fails to import, or a module without a spec
        return False


@contextmanager
def session(options, needs: tuple[str, ...] = RUNS_KERNELS):
    """(device, the recorder's configuration, a working directory) for one subcommand."""
    from .compile import parse_targets
    from .devices import detect

    require(needs)
    try:
        options["target_list"] = parse_targets(options["targets"])
    except ValueError as error:
        raise click.UsageError(str(error)) from error
    try:
        device = detect(options["device"])
    except ValueError as error:  # the device asked for is not there
        raise Unusable(str(error)) from error
    except ImportError as error:  # installed, but broken
        raise Unusable(f"migrate verify cannot import torch: {error}") from error
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


def checking(config: dict, tree) -> dict:
    """The recorder's configuration for a run of a migrated copy (tree.MigratedTree): it checks the facts the
    migration relied on before each launch of a kernel that relies on them (facts.py)."""
    return {**config, "facts": tree.facts_by_kernel()}


def record(command, tree: Path, out: Path, config: dict, work: Path, options,
           pinned_to: tuple[Path, dict] | None = None) -> tuple[Path, dict]:
    """Record the command in `tree`; with `pinned_to` (an earlier recording), its autotuners take that
    recording's choices unless --own-tuning."""
    from .compile import compile_recording
    from .runner import record_command

    if pinned_to is not None and not options["own_tuning"]:
        config = {**config, "pinned": tuning.as_pins(pinned_to[1].get("tuning", []))}
    result = record_command(command, tree, out, config, work, pass_output=options["verbose"])
    if result.index["returncode"] != 0 and result.output:
        click.echo(f"--- output of {' '.join(command)} in {tree} (exit status {result.index['returncode']}):\n"
                   + "\n".join(result.output.splitlines()[-30:]), err=True)
    if options["target_list"]:
        result.index["compile"] = compile_recording(out, tree, options["target_list"])
        recording.write_index(out, result.index)
    return out, result.index


def _environment(index: dict) -> str:
    """Where a run's kernels ran, as its recording says (a run that launched nothing says nothing)."""
    env = index["environment"]
    return f"Triton {env['triton']} on {env['device_name']}" if env.get("triton") else "no launch recorded"


def verdict_of(runs, options, labels=("original", "migrated")) -> Verdict:
    from .compare import compare

    (dir_a, index_a), (dir_b, index_b) = runs
    verdict = Verdict(compare(dir_a, index_a, dir_b, index_b), labels, index_a.get("compile", {}),
                      index_b.get("compile", {}), max_slowdown=options["max_slowdown"],
                      environment={"a": index_a["environment"], "b": index_b["environment"]},
                      timing=timing_spread(index_a, index_b))
    verdict.notes.append("; ".join(f"{label}: {_environment(index)}"
                                   for label, index in zip(labels, (index_a, index_b))))
    verdict.notes += filter(None, [tuning.summary(index_a.get("tuning", []), index_b.get("tuning", []), labels)])
    verdict.problems += [f"stated fact broken at {launch['kernel']} launch {launch['index']} (the {labels[1]} kernel "
                         f"was not run): {launch['broken']['detail']}"
                         for launch in index_b["launches"] if launch.get("broken")]
    codes = index_a["returncode"], index_b["returncode"]
    if codes[0] and codes[1]:
        verdict.errors.append(f"the command failed in both runs (exit status {codes[0]} and {codes[1]}): what it "
                              f"did not run is not verified")
    elif codes[0] != codes[1]:
        verdict.problems.append(f"the command's exit status differs: {codes[0]} vs {codes[1]}")
    if not index_a["launches"] and not index_b["launches"]:
        verdict.errors.append("no Triton launch was recorded: nothing was verified")
    verdict.errors += [r["error"] for r in (verdict.compile_a, verdict.compile_b) if "error" in r]
    verdict.errors += verdict.compile_unloaded()
    return verdict

"""The command line: `migrate [--check|--diff|--write] [PATHS...]`, shaped after `ruff check`, plus the
`report`, `verify` and `vendor-compat` commands. It turns options into a run (runs.py), prints what the run
returns and writes the files (jobs.py); click lives here and in options.py only. Importing this module
imports neither triton nor torch."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import click

from triton_migrate import __version__
from triton_migrate.frontend import config as cfg
from triton_migrate.frontend import launch, output, runs
from triton_migrate.frontend.jobs import add_noqa_all, analyse, plural, summary, write_all
from triton_migrate.frontend.options import ConfigurationError, resolve, shared_options
from triton_migrate.frontend.output import FileResult
from triton_migrate.frontend.runs import Options
from triton_migrate.frontend.written import as_written

EXIT_CODES = """\b
Exit status:
  0  nothing to migrate (--write: everything was migrated and written)
  1  --check/--diff: some site would change or cannot be migrated;
     --write: some site could not be migrated
  2  usage or configuration error, unreadable or unparsable file, internal error (wins over 1)
--exit-zero turns 1 into 0, never 2. Suppressed sites (# noqa: TTD101) do not count.

\b
Commands (`migrate COMMAND --help`):
  report         every site: what was done, why, what it relies on; counts by reason
  verify         run kernels before and after migration and compare the outputs
  tune           time each kernel's candidate migrations on a GPU, keep the fastest bit-identical one
  vendor-compat  write the compat shim as one self-contained file
"""


LEAD_WIDTH = 110  # the lead paragraph of `--explain`, as wide as the docstrings it joins


class _Terminal(runs.Feedback):
    """What a run says while it works, on stderr: stdout stays clean for diagnostics and documents."""

    def say(self, message: str) -> None:
        click.echo(message, err=True)

    def progress(self, total: int):
        if not sys.stderr.isatty():
            return super().progress(total)
        return click.progressbar(length=total, label="Analysing", file=sys.stderr, show_pos=True)


# --- printing ----------------------------------------------------------------------------------------------------


def _use_color(option: str, stream) -> bool:
    """https://no-color.org: NO_COLOR turns colour off unless asked for on the command line."""
    if option != "auto":
        return option == "always"
    return not os.environ.get("NO_COLOR") and stream.isatty()


def _main_text(ok: list[FileResult], options: Options, color: bool) -> str:
    text = ""
    if options.show_diff and options.fmt not in output.DOCUMENTS:
        text += "".join(output.unified_diff(r.path, r.text, r.new_text, color) for r in ok if r.new_text is not None)
    if options.statistics:
        return text + output.statistics(ok, options.mode, options.fmt)
    if options.mode == "report" and options.fmt == "full":
        return text + output.grouped_report(ok)
    return text + output.render(ok, options.fmt, options.mode, color)


def emit(results: list[FileResult], errors: list[tuple[str, str]], checked: int, options: Options,
         diag_to_err: bool = False) -> int:
    """Print everything in a deterministic order and return the exit status."""
    ok = sorted((r for r in results if r.error is None), key=lambda r: r.path)
    errors = sorted([*errors, *((r.path, r.error) for r in results if r.error)])
    if not options.add_noqa:  # what --add-noqa changed is said in one line; the sites are now suppressed
        _print_main(ok, options, diag_to_err)
    if options.report_file:
        _write_text(options.report_file, _report_document(ok, options.report_file))
    if not options.quiet:
        for r in ok:
            for line, column, message in r.warnings:
                click.echo(f"{r.path}:{line}:{column}: warning: {message}", err=True)
    for path, message in errors:
        click.echo(f"{path}: error: {message}", err=True)
    if options.show_fixes and options.mode == "write":
        click.echo(output.fixes_enumeration(ok), err=True, nl=False)
    if checked and not options.quiet and options.mode != "report" and not options.add_noqa:
        failed = len(results) - len(ok)
        click.echo(summary(ok, checked - failed, options.mode == "write", failed), err=True)
    if errors and not options.quiet:
        click.echo(f"Could not process {plural(len(errors), 'path')} (see errors above).", err=True)
    return _exit_status(ok, errors, options)


def _print_main(ok: list[FileResult], options: Options, to_err: bool) -> None:
    if options.output_file:
        _write_text(options.output_file, _main_text(ok, options, options.color == "always"))
        return
    stream = sys.stderr if to_err else sys.stdout
    color = _use_color(options.color, stream)
    click.echo(_main_text(ok, options, color), err=to_err, nl=False, color=color)


def _report_document(ok: list[FileResult], path: str) -> str:
    fmt = {".json": "json", ".sarif": "sarif"}.get(os.path.splitext(path)[1], "full")
    return output.grouped_report(ok) if fmt == "full" else output.render(ok, fmt, "report", False)


class _WriteError(click.FileError):
    exit_code = 2  # an I/O error, as for the files we read


def _write_text(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise _WriteError(path, exc.strerror) from exc


def _exit_status(ok: list[FileResult], errors: list, options: Options) -> int:
    if errors:
        return 2
    if options.mode == "report" or options.add_noqa:
        return 0
    if options.mode == "write":
        pending = any(not d.fixed for r in ok for d in r.diagnostics)
    else:
        pending = any(r.diagnostics or r.new_data for r in ok)
    return 1 if pending and not options.exit_zero else 0


# --- runs --------------------------------------------------------------------------------------------------------


def run_paths(paths: list[str], exclude: tuple[str, ...], respect_gitignore: bool, resolver: cfg.Resolver,
              options: Options) -> int:
    started = time.monotonic()
    analysed = runs.analyse_paths(paths, exclude, respect_gitignore, resolver, options)
    results = _apply(analysed.results, analysed.originals, options)
    runs.say(options, f"analysed {plural(len(analysed.jobs), 'file')} of {analysed.checked} in "
             f"{time.monotonic() - started:.2f} s")
    if not analysed.checked and not options.quiet:  # as ruff: a warning, not an error (exit 0 unless a path is missing)
        click.echo(f"warning: No Python files found under {', '.join(paths)} (`-v` says which files were "
                   "skipped and why).", err=True)
    return emit(results, analysed.errors, analysed.checked, options)


def _apply(results: list[FileResult], originals: dict[str, bytes], options: Options) -> list[FileResult]:
    if options.add_noqa:
        results, added = add_noqa_all(results, originals)
        if not options.quiet:
            click.echo(f"Added {plural(added, 'noqa directive')}.", err=True)
        return results
    return write_all(results, originals) if options.mode == "write" else results


def run_stdin(name: str, resolver: cfg.Resolver, options: Options) -> int:
    """ruff's stdin contract: with --write the (migrated) code goes to stdout and diagnostics to stderr."""
    data = sys.stdin.buffer.read()
    config = resolver.for_path(name)
    skipped = runs.skip_reason(name, config, True, options) is not None
    # stdout holds the one migrated file: it imports its launch support as written, which `migrate --write`
    # on the file writes beside it (or its package); stdin cannot, so it says so where the module is not there.
    result = FileResult(name) if skipped else analyse(runs.job_for(name, data, config, options))
    if options.mode == "write":
        # On any error the input comes back unchanged, so an editor buffer piped through us is never lost.
        written = result.error is None and result.new_data is not None
        sys.stdout.buffer.write(result.new_data if written else data)
        sys.stdout.buffer.flush()
        result = as_written(result) if written else result
        why = (launch.missing(result.launch_module, result.launch_functions)
               if written and result.launch_module else None)
        if why:
            click.echo(f"warning: {name}: the migrated code imports its launch support from {result.launch_module}"
                       f", which standard input does not write ({why}); `migrate --write {name}` writes it",
                       err=True)
    return emit([result], [], 1, options, diag_to_err=options.mode == "write")


# --- eager options -----------------------------------------------------------------------------------------------


def _explain(ctx: click.Context, _param, code: str | None) -> None:
    if code is None or ctx.resilient_parsing:
        return
    from triton_migrate.rules import RULES, explain

    if code.upper() not in RULES:
        raise click.BadParameter(f"unknown rule {code!r}; `migrate --list-rules` lists them.", ctx, _param)
    click.echo(_led(explain(code)))
    ctx.exit(0)


def _led(text: str) -> str:
    """A rule's documentation led by one paragraph a user reads: its headline and what it does, joined; then the
    rest (why, examples, fixtures), as its page shows it."""
    headline, *rest = text.split("\n\n")
    if rest and rest[0].startswith("What it does:"):
        what = rest.pop(0).removeprefix("What it does:").strip()
        headline = textwrap.fill(" ".join(f"{headline} {what[:1].upper()}{what[1:]}".split()), LEAD_WIDTH,
                                 break_on_hyphens=False)
    return "\n\n".join([headline, *rest])


def _list_rules(ctx: click.Context, _param, wanted: bool) -> None:
    if not wanted or ctx.resilient_parsing:
        return
    from triton_migrate.rules import RULES

    for code, rule in RULES.items():
        click.echo(f"{code}  {rule.NAME:<28} {rule.SUMMARY}")
    ctx.exit(0)


def _cache_home() -> str:
    from triton_migrate.frontend.cache import DIRECTORY

    return DIRECTORY


def _run(params: dict, options: Options, resolver: cfg.Resolver, run: cfg.Config) -> int:
    paths = params["paths"]
    options = replace(options, jobs=run.jobs or os.cpu_count() or 1, quiet=params["quiet"], verbose=params["verbose"],
                      color=params["color"], output_file=params["output_file"], force_exclude=params["force_exclude"],
                      cache_dir=None if params["no_cache"] else params["cache_dir"] or _cache_home(),
                      feedback=_Terminal())
    runs.say(options, f"configuration: {run.source or 'built-in defaults'}")
    try:
        # As in ruff, --stdin-filename without PATHS means "read stdin".
        if paths == ("-",) or (not paths and params.get("stdin_filename") is not None):
            return run_stdin(params.get("stdin_filename") or "-", resolver, options)
        if "-" in paths:
            raise click.UsageError("`-` (stdin) cannot be combined with other paths.")
        return run_paths(list(paths) or ["."], tuple(params["exclude"]), run.respect_gitignore, resolver, options)
    except cfg.ConfigError as exc:  # a nested pyproject.toml is only read when a file under it is reached
        raise ConfigurationError(exc) from None


# --- commands ----------------------------------------------------------------------------------------------------


class _DefaultContext(click.Context):
    """The default command's usage and messages name it as every page writes it, `migrate [OPTIONS]`
    (`migrate --check`): `migrate check` is only its explicit spelling."""

    @property
    def command_path(self) -> str:
        return self.parent.command_path if self.parent is not None else super().command_path


class _DefaultCommand(click.Command):
    context_class = _DefaultContext


@click.command(cls=_DefaultCommand, epilog=EXIT_CODES, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--check", is_flag=True, help="Report sites only; never write (the default).")
@click.option("--diff", is_flag=True,
              help="Print unified diffs and the sites that cannot be migrated; write nothing unless --write.")
@click.option("--write", "--fix", "write", is_flag=True, help="Migrate files in place; print the sites that are left.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` on the line of every site that cannot be migrated.")
@click.option("--stdin-filename", metavar="NAME", help="The name to use for code read from stdin (PATH `-`).")
@click.option("--output-format", type=click.Choice(output.FORMATS),
              help="full (default), concise, json, sarif or github.")
@click.option("--statistics", is_flag=True, help="Print a count per rule code instead of every site.")
@click.option("--show-fixes", is_flag=True, help="With --write, list what was migrated, per file and code.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False),
              help="Also write the grouped report to FILE (.json: json, .sarif: sarif, else text).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even if sites remain (errors still exit 2).")
@shared_options
@click.option("--explain", metavar="CODE", callback=_explain, expose_value=False, is_eager=True,
              help="Explain a rule (e.g. TTD101) and exit.")
@click.option("--list-rules", is_flag=True, callback=_list_rules, expose_value=False, is_eager=True,
              help="List every rule code and exit.")
@click.version_option(__version__, "--version", prog_name="triton-migrate")
@click.pass_context
def check(ctx, **params):
    """Migrate Triton block pointers (tl.make_block_ptr / tl.advance) to tensor descriptors.

    PATHS default to `.`; `-` reads stdin. Settings come from [tool.triton-migrate] in the nearest
    pyproject.toml; options given here override them.
    """
    write, diff, stdin = params["write"], params["diff"], params["paths"] == ("-",)
    if params["check"] and write:
        raise click.UsageError("--check and --write are mutually exclusive.")
    if params["add_noqa"] and (write or diff):
        raise click.UsageError("--add-noqa only adds comments: it cannot be combined with --write or --diff.")
    if (stdin or params["stdin_filename"]) and write and diff:
        raise click.UsageError("--write with --diff needs files: on stdin, stdout holds the migrated code.")
    resolver, run = resolve(params, params["output_format"])
    options = Options(mode="write" if write else "diff" if diff else "check", show_diff=diff, fmt=run.output_format,
                      exit_zero=params["exit_zero"], statistics=params["statistics"], show_fixes=params["show_fixes"],
                      add_noqa=params["add_noqa"], report_file=params["report_file"])
    ctx.exit(_run(params, options, resolver, run))


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--output-format", type=click.Choice(output.FORMATS), default="full", show_default=True,
              help="full: every site and counts by reason; or concise, json, sarif, github.")
@click.option("--statistics", is_flag=True, help="Print a count per rule code instead of every site.")
@shared_options
@click.pass_context
def report(ctx, **params):
    """Report every block-pointer site: file:line, what was done (descriptor, pointer, untouched), the reason
    code, and the stated facts the migrated code relies on; then counts by reason. Writes nothing.

    Exit status: 0, or 2 on a usage, configuration or file error.
    """
    resolver, run = resolve(params)
    options = Options(mode="report", fmt=params["output_format"], statistics=params["statistics"])
    ctx.exit(_run(params, options, resolver, run))


@click.command("vendor-compat", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("destination", type=click.Path(dir_okay=False, writable=True))
def vendor_compat(destination):
    """Write the triton_migrate.compat shim as one self-contained file (it needs triton only), e.g.
    `migrate vendor-compat mypkg/_triton_compat.py`; then set `compat-module = "mypkg._triton_compat"` in
    [tool.triton-migrate] so that `--target compat` imports it instead of this package."""
    from triton_migrate.frontend.vendor import vendor

    try:
        vendor(Path(destination))
    except OSError as exc:
        raise click.FileError(destination, exc.strerror) from exc
    click.echo(f"Wrote {destination}.", err=True)


class _DefaultGroup(click.Group):
    """`migrate ARGS` runs `check` unless ARGS starts with a command name: today's invocations keep working."""

    default = "check"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Commands loaded on use, by name (`verify`, which needs triton and torch): the entry point registers them
        # (triton_migrate/cli.py), so that the front end imports nothing of the layers that drive it.
        self.on_use: dict[str, Callable[[], click.Command]] = {}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or args[0] not in self.list_commands(ctx):
            args = [self.default, *args]
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return ["check", "report", *self.on_use, "vendor-compat"]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.on_use:
            return self.on_use[name]()
        return {"check": check, "report": report, "vendor-compat": vendor_compat}.get(name)


main = _DefaultGroup(name="migrate", context_settings={"help_option_names": ["-h", "--help"]},
                     help="Migrate Triton block pointers to tensor descriptors; see `migrate check --help`.")

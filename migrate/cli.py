"""Command line: `migrate [--check|--diff|--write] [PATHS...]`, shaped after `ruff check`."""

from __future__ import annotations

import difflib
import io
import os
import sys
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, replace

import click

from triton_migrate import __version__
from triton_migrate.discover import discover
from triton_migrate.fileio import FileError, atomic_write, check_parses, decode, encode, read_bytes
from triton_migrate.outcome import Diagnostic

EXIT_CODES = """\b
Exit status:
  0  nothing to migrate (--write: everything was migrated and written)
  1  --check/--diff: some site would change or cannot be migrated;
     --write: some site could not be migrated
  2  usage error, unreadable or unparsable file, internal error (wins over 1)
--exit-zero turns 1 into 0, never 2.
"""


@dataclass(frozen=True)
class Options:
    write: bool
    show_diff: bool
    exit_zero: bool
    quiet: bool


@dataclass(frozen=True)
class FileResult:
    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    new_data: bytes | None = None  # the migrated file, only when it differs from what was read
    diff: str = ""
    error: str | None = None


def analyse(path: str, data: bytes, want_diff: bool, verify: bool = True) -> FileResult:
    """Everything for one file but the write; runs in worker processes, so it never raises."""
    from triton_migrate import engine

    try:
        return _analyse(path, data, want_diff, verify)
    except FileError as exc:
        return FileResult(path, error=str(exc))
    except engine.SourceError as exc:
        return FileResult(path, error=str(exc))  # the engine's message names the line
    except Exception as exc:  # an engine bug must cost this file, not the run
        return FileResult(path, error=f"internal error: {type(exc).__name__}: {exc}")


def _analyse(path: str, data: bytes, want_diff: bool, verify: bool) -> FileResult:
    from triton_migrate import engine

    decoded = decode(data)
    # The fixed-point check costs a second migration; only output that is shown or written needs it.
    outcome = engine.migrate_source(decoded.text, verify=verify)
    diagnostics = tuple(sorted(outcome.diagnostics, key=lambda d: (d.line, d.column, d.code)))
    new_text = outcome.new_source
    if new_text is None or new_text == decoded.text:
        return FileResult(path, diagnostics)
    new_data = encode(new_text, decoded.encoding)
    check_parses(path, data, new_data)
    diff = _unified_diff(path, decoded.text, new_text) if want_diff else ""
    return FileResult(path, diagnostics, new_data, diff)


def _unified_diff(path: str, old: str, new: str) -> str:
    name = path.replace(os.sep, "/").lstrip("/")
    lines = difflib.unified_diff(_lines(old), _lines(new), f"a/{name}", f"b/{name}")
    return "".join(line if line.endswith(("\n", "\r")) else f"{line}\n\\ No newline at end of file\n" for line in lines)


def _lines(text: str) -> list[str]:
    # newline="" splits on \n, \r\n and \r only (not on form feeds) and keeps each ending as it is.
    return io.StringIO(text, newline="").readlines()


def analyse_all(candidates: list[tuple[str, bytes]], jobs: int, want_diff: bool, verify: bool) -> list[FileResult]:
    if len(candidates) < 2 or jobs < 2:
        return [analyse(path, data, want_diff, verify) for path, data in candidates]
    # Largest first, so that one big file started last does not leave the other workers idle.
    ordered = sorted(candidates, key=lambda candidate: -len(candidate[1]))
    with ProcessPoolExecutor(max_workers=min(jobs, len(candidates))) as pool:
        futures = [(path, pool.submit(analyse, path, data, want_diff, verify)) for path, data in ordered]
        return [_collect(path, future) for path, future in futures]


def _collect(path: str, future: Future) -> FileResult:
    try:
        return future.result()
    except Exception as exc:  # the worker process died (e.g. BrokenProcessPool)
        return FileResult(path, error=f"internal error: worker process failed: {type(exc).__name__}: {exc}")


def _write(result: FileResult) -> FileResult:
    if result.error or result.new_data is None:
        return result
    try:
        atomic_write(result.path, result.new_data)
    except FileError as exc:
        return replace(result, diagnostics=(), new_data=None, diff="", error=str(exc))
    return result


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _summary(results: list[FileResult], checked: int, write: bool) -> str:
    diagnostics = [d for r in results for d in r.diagnostics]
    refused = sum(not d.fixed for d in diagnostics)
    if not diagnostics and not any(r.new_data for r in results):
        return f"No block pointers found in {_plural(checked, 'file')}."
    if write:
        written = [r for r in results if r.new_data]
        migrated = sum(d.fixed for r in written for d in r.diagnostics)
        done = "No sites migrated"
        if written:
            done = f"Migrated {_plural(migrated, 'site')} in {_plural(len(written), 'file')}"
        left = f"; {_plural(refused, 'site')} left (cannot be migrated)" if refused else ""
        return f"{done}{left}."
    fixable = len(diagnostics) - refused
    parts = [f"{fixable} can be migrated"] if fixable else []
    if refused:
        parts.append(f"{refused} cannot{'' if fixable else ' be migrated'} (see above)")
    files = sum(bool(r.diagnostics) for r in results)
    return f"Found {_plural(len(diagnostics), 'site')} in {_plural(files, 'file')}: {', '.join(parts)}."


def report(
    results: list[FileResult], errors: list[tuple[str, str]], checked: int, options: Options, diag_to_err: bool
) -> int:
    """Print everything in a deterministic order and return the exit status."""
    ok = sorted((r for r in results if r.error is None), key=lambda r: r.path)
    errors = sorted([*errors, *((r.path, r.error) for r in results if r.error)])
    if options.show_diff:
        for result in ok:
            click.echo(result.diff, nl=False)
    # With --diff or --write the migrated sites are in the diff or on disk; what cannot be migrated is always shown.
    only_refused = options.show_diff or options.write
    for result in ok:
        for d in result.diagnostics:
            if not (only_refused and d.fixed):
                click.echo(f"{result.path}:{d.line}:{d.column}: {d.code} {d.message}", err=diag_to_err)
    for path, message in errors:
        click.echo(f"{path}: error: {message}", err=True)
    if not options.quiet:
        click.echo(_summary(ok, checked - (len(results) - len(ok)), options.write), err=True)
        if errors:
            click.echo(f"Could not process {_plural(len(errors), 'path')} (see errors above).", err=True)
    return _exit_status(ok, errors, options)


def _exit_status(ok: list[FileResult], errors: list, options: Options) -> int:
    if errors:
        return 2
    if options.write:
        pending = any(not d.fixed for r in ok for d in r.diagnostics)
    else:
        pending = any(r.diagnostics or r.new_data for r in ok)
    return 1 if pending and not options.exit_zero else 0


def run_paths(paths: list[str], exclude: tuple[str, ...], respect_gitignore: bool, jobs: int, options: Options) -> int:
    from triton_migrate import engine

    found = discover(paths, exclude, respect_gitignore)
    unreadable = []
    candidates = []
    for path in found.files:
        try:
            data = read_bytes(path)
        except FileError as exc:
            unreadable.append((path, str(exc)))
            continue
        # The prefilter: a file without the telltale bytes costs this read and nothing more.
        if engine.might_need_migration(data):
            candidates.append((path, data))
    results = analyse_all(candidates, jobs, options.show_diff, verify=options.show_diff or options.write)
    if options.write:
        results = [_write(result) for result in results]
    checked = len(found.files) - len(unreadable)
    return report(results, [*found.errors, *unreadable], checked, options, diag_to_err=False)


def run_stdin(name: str, options: Options) -> int:
    """ruff's stdin contract: with --write the (migrated) code goes to stdout and diagnostics to stderr."""
    from triton_migrate import engine

    data = sys.stdin.buffer.read()
    result = analyse(name, data, options.show_diff) if engine.might_need_migration(data) else FileResult(name)
    if options.write:
        # On any error the input comes back unchanged, so an editor buffer piped through us is never lost.
        sys.stdout.buffer.write(result.new_data if result.error is None and result.new_data else data)
        sys.stdout.buffer.flush()
    return report([result], [], 1, options, diag_to_err=options.write)


def _explain(ctx: click.Context, _param, code: str | None) -> None:
    if code is None or ctx.resilient_parsing:
        return
    from triton_migrate.rules import RULES, explain

    if code.upper() not in RULES:
        raise click.BadParameter(f"unknown rule {code!r}; `migrate --list-rules` lists them.", ctx, _param)
    click.echo(explain(code))
    ctx.exit(0)


def _list_rules(ctx: click.Context, _param, wanted: bool) -> None:
    if not wanted or ctx.resilient_parsing:
        return
    from triton_migrate.rules import RULES

    for code, rule in RULES.items():
        click.echo(f"{code}  {rule.NAME:<28} {rule.SUMMARY}")
    ctx.exit(0)


@click.command(epilog=EXIT_CODES, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--check", is_flag=True, help="Report sites only; never write (the default).")
@click.option(
    "--diff",
    is_flag=True,
    help="Print unified diffs and the sites that cannot be migrated; write nothing unless --write.",
)
@click.option("--write", "--fix", "write", is_flag=True, help="Migrate files in place; print the sites that are left.")
@click.option("--stdin-filename", metavar="NAME", help="The name to use for code read from stdin (PATH `-`).")
@click.option("--exclude", multiple=True, metavar="PATTERN", help="Skip paths matching this gitignore-style glob.")
@click.option(
    "--respect-gitignore/--no-respect-gitignore",
    default=True,
    show_default=True,
    help="Skip files that .gitignore files ignore.",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even if sites remain (errors still exit 2).")
@click.option("-q", "--quiet", is_flag=True, help="Print diagnostics and errors, but no summary.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes [default: number of CPUs].")
@click.option("--explain", metavar="CODE", callback=_explain, expose_value=False, is_eager=True,
              help="Explain a rule (e.g. TTD101) and exit.")
@click.option("--list-rules", is_flag=True, callback=_list_rules, expose_value=False, is_eager=True,
              help="List every rule code and exit.")
@click.version_option(__version__, "--version", prog_name="triton-migrate")
@click.pass_context
def main(ctx, paths, check, diff, write, stdin_filename, exclude, respect_gitignore, exit_zero, quiet, jobs):
    """Migrate Triton block pointers (tl.make_block_ptr / tl.advance) to tensor descriptors.

    PATHS default to `.`; `-` reads stdin.
    """
    if check and write:
        raise click.UsageError("--check and --write are mutually exclusive.")
    # As in ruff, --stdin-filename without PATHS means "read stdin".
    stdin = paths == ("-",) or (not paths and stdin_filename is not None)
    if "-" in paths and not stdin:
        raise click.UsageError("`-` (stdin) cannot be combined with other paths.")
    if stdin and write and diff:
        raise click.UsageError("--write with --diff needs files: on stdin, stdout holds the migrated code.")
    options = Options(write=write, show_diff=diff, exit_zero=exit_zero, quiet=quiet)
    if stdin:
        ctx.exit(run_stdin(stdin_filename or "-", options))
    ctx.exit(run_paths(list(paths) or ["."], exclude, respect_gitignore, jobs or os.cpu_count() or 1, options))


if __name__ == "__main__":
    main()

"""Command line: `migrate [--check|--diff|--write] [PATHS...]`, shaped after `ruff check`, plus the
`report` and `verify` subcommands. Importing this module imports neither triton nor torch."""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import click

from triton_migrate import __version__
from triton_migrate.analysis.prefilter import might_need_migration
from triton_migrate.frontend import config as cfg
from triton_migrate.frontend import launch, output, suppressions, triton_modules
from triton_migrate.frontend.discover import discover
from triton_migrate.frontend.fileio import FileError, atomic_write, check_parses, decode, encode, read_bytes
from triton_migrate.frontend.output import FileResult
from triton_migrate.frontend.workers import Workers
from triton_migrate.frontend.written import as_written
from triton_migrate.outcome import Diagnostic, FileOutcome
from triton_migrate.policy import Policy
from triton_migrate.rules import CODES

EXIT_CODES = """\b
Exit status:
  0  nothing to migrate (--write: everything was migrated and written)
  1  --check/--diff: some site would change or cannot be migrated;
     --write: some site could not be migrated
  2  usage or configuration error, unreadable or unparsable file, internal error (wins over 1)
--exit-zero turns 1 into 0, never 2. Suppressed sites (# noqa: TTD101) do not count.

\b
Commands (`migrate COMMAND --help`):
  report   every site: what was done, why, what it relies on; counts by reason
  verify   run kernels before and after migration and compare the outputs
  tune     time each kernel's candidate migrations on a GPU, keep the fastest bit-identical one
"""
PROGRESS_MIN_FILES = 10  # fewer files than this finish before a progress bar would be worth drawing


@dataclass(frozen=True)
class Options:
    mode: str = "check"  # check | diff | write | report
    show_diff: bool = False
    exit_zero: bool = False
    quiet: bool = False
    verbose: bool = False
    fmt: str = "full"
    statistics: bool = False
    show_fixes: bool = False
    add_noqa: bool = False
    color: str = "auto"
    output_file: str | None = None
    report_file: str | None = None
    force_exclude: bool = False
    jobs: int = 1
    cache_dir: str | None = None
    # Applied to the policy each file's configuration gives (`migrate tune`: the candidate form it measures).
    policy_override: Callable[[Policy], Policy] | None = None
    # Each module is imported on its own, by its path (`migrate verify cases`): it imports its launch support
    # from beside itself, not from a package.
    standalone: bool = False


@dataclass(frozen=True)
class Job:
    """What a worker needs for one file (picklable)."""

    path: str
    data: bytes
    verify: bool
    policy: Policy
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    cache_dir: str | None = None  # where check results are kept between runs (cache.py); None: no cache
    launch: str | None = None  # how the file imports its launch support (launch.py); None: the engine's `try`
    removable: frozenset[str] = frozenset()  # its uncalled helpers that nothing in the project names (TTD011)
    imported: tuple = ()  # names it imports from modules outside the run that bind them to triton (triton_modules.py)


# --- one file ----------------------------------------------------------------------------------------------------


def analyse(job: Job) -> FileResult:
    """Everything for one file but the write; runs in worker processes, so it never raises."""
    return analyse_together((job,))[0]


def analyse_together(jobs: tuple[Job, ...]) -> list[FileResult]:
    """One file, or a group that shares `@triton.jit` helpers (packages.py), migrated as one program."""
    try:
        with _collected_once():
            return _analyse_group(jobs) if len(jobs) > 1 else [_analyse(jobs[0])]
    except Exception as exc:  # an engine bug must cost these files, not the run
        return [FileResult(job.path, error=_error_message(exc)) for job in jobs]


def _error_message(exc: Exception) -> str:
    from triton_migrate import engine

    if isinstance(exc, (FileError, engine.SourceError)):  # the engine's message names the line
        return str(exc)
    return f"internal error: {type(exc).__name__}: {exc}"


@contextlib.contextmanager
def _collected_once():
    """Python's cycle collector paused for one task and run once after it, over what the task allocated. A
    task builds trees of some hundred thousand nodes that live until it ends: the collector's passes over
    them while they were alive took a tenth of a check of a Triton-heavy tree, one pass takes a twentieth."""
    if not gc.isenabled():  # someone who embeds us chose otherwise
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(0)  # everything allocated since it was paused is in the youngest generation


def _analyse(job: Job) -> FileResult:
    decoded = decode(job.data)
    outcome = _outcome_of(job, decoded.text) if might_need_migration(job.data) else FileOutcome((), None)
    return _result(job, decoded, outcome)


def _analyse_group(jobs: tuple[Job, ...]) -> list[FileResult]:
    """A file of the group that cannot be migrated is reported and left as it is, and the group is migrated
    again without it: the block pointers that cross into or out of it are refused (program.py), the rest
    is migrated."""
    from triton_migrate import engine

    errors, decoded = {}, {}
    for job in jobs:
        try:
            decoded[job.path] = decode(job.data)
        except FileError as exc:
            errors[job.path] = str(exc)
    while True:
        try:
            results, outcomes = _migrate_group(jobs, decoded, errors)
            break
        except engine.ModuleFailure as failure:
            if failure.module in errors:  # the program itself, not one file: no file can be trusted
                raise failure.error from failure
            errors[failure.module] = _error_message(failure.error)
    if not errors:  # a failing file is analysed again on every run (its error is not cached)
        _keep(jobs, [outcomes[job.path] for job in jobs])
    held = [r for r in results if r.path in outcomes and outcomes[r.path].new_source is not None and r.new_data is None]
    if not held:
        return results
    # Files that share helpers are only right together: one held back (a suppression) holds back all.
    note = (1, 1, f"left untouched with {held[0].path}, which shares `@triton.jit` helpers with it")
    return [replace(r, new_text=None, new_data=None, warnings=r.warnings + (note,)) if r.new_data else r
            for r in results]


def _migrate_group(jobs: tuple[Job, ...], decoded: dict, errors: dict[str, str]) -> tuple[list[FileResult], dict]:
    """The results and the engine's outcomes of the files that do not fail (`errors`: path -> why); raises
    ModuleFailure for the first file that does."""
    from triton_migrate import engine
    from triton_migrate.analysis.packages import Locator

    first = jobs[0]
    sources = {path: d.text for path, d in decoded.items()}
    migration = engine.MigrationContext(first.policy, Locator(sources),
                                        frozen={p: errors[p] for p in sources if p in errors},
                                        launch={job.path: job.launch for job in jobs if job.launch},
                                        removable={job.path: job.removable for job in jobs},
                                        imported={job.path: job.imported for job in jobs})
    outcomes = engine.migrate_sources(sources, migration, verify=first.verify, rewrite=first.verify)
    results = []
    for job in jobs:
        if job.path in errors:
            results.append(FileResult(job.path, error=errors[job.path]))
            continue
        try:
            results.append(_result(job, decoded[job.path], outcomes[job.path]))
        except FileError as exc:  # its migrated code does not parse as Python: one more file left as it is
            raise engine.ModuleFailure(job.path, exc) from exc
    return results, {path: o for path, o in outcomes.items() if path not in errors}


def _outcome_of(job: Job, text: str) -> FileOutcome:
    from triton_migrate import engine

    cached = _cached((job,))
    if cached is not None:
        return cached[0]
    # The fixed-point check costs a second migration; only output that is shown or written needs it.
    migration = engine.MigrationContext.alone(job.policy, job.launch, job.removable, job.imported)
    outcome = engine.migrate_source(text, verify=job.verify, rewrite=job.verify, migration=migration)
    _keep((job,), [outcome])
    return outcome


def _cached(jobs: tuple[Job, ...]) -> list[FileOutcome] | None:
    """The task's outcomes from an earlier check (cache.py), or None."""
    first = jobs[0]
    if first.verify or first.cache_dir is None:  # shown or written code is never cached
        return None
    from triton_migrate.frontend import cache

    return cache.load(first.cache_dir, [(job.path, job.data) for job in jobs], _cache_policy(jobs))


def _keep(jobs: tuple[Job, ...], outcomes: list[FileOutcome]) -> None:
    first = jobs[0]
    if not first.verify and first.cache_dir is not None:
        from triton_migrate.frontend import cache

        cache.store(first.cache_dir, [(job.path, job.data) for job in jobs], _cache_policy(jobs), outcomes)


def _cache_policy(jobs: tuple[Job, ...]) -> tuple:
    """What the outcomes depend on besides the files' bytes."""
    return jobs[0].policy, tuple(sorted(job.removable) for job in jobs), tuple(job.imported for job in jobs)


def _served(task: tuple[Job, ...]) -> list[FileResult] | None:
    """The task's results without analysing it, in this process: from the cache, or for a file that only
    the suppression prefilter let through, at once. None: it needs the engine."""
    if len(task) == 1 and not might_need_migration(task[0].data):
        return [analyse(task[0])]
    outcomes = _cached(task)
    if outcomes is None:
        return None
    try:
        return [_result(job, decode(job.data), outcome) for job, outcome in zip(task, outcomes)]
    except FileError:  # it was cached, so this cannot happen, unless the entry is not what it seems
        return None


def _result(job: Job, decoded, outcome: FileOutcome) -> FileResult:
    shown, suppressed, warnings, new_text = _filter(outcome, decoded.text, job)
    result = FileResult(job.path, tuple(shown), decoded.text, warnings=tuple(warnings), suppressed=suppressed,
                        uncalled_helpers=outcome.uncalled_helpers)
    if new_text is None or new_text == decoded.text:
        return result
    new_data = encode(new_text, decoded.encoding)
    check_parses(job.path, job.data, new_data)
    needs = launch.location(job.path) if outcome.launch_functions else None
    return replace(result, new_text=new_text, new_data=new_data, launch_module=needs,
                   stated_facts=outcome.stated_facts)


def _filter(outcome: FileOutcome, text: str, job: Job) -> tuple[list[Diagnostic], int, list, str | None]:
    """The diagnostics left after select/ignore and suppressions, how many were suppressed, the warnings, and
    the text that may be written."""
    everything = sorted(outcome.diagnostics, key=lambda d: (d.line, d.column, d.code))
    found = suppressions.find(text) if suppressions.might_have(job.data) else []
    warnings = [(s.line, s.column, message) for s, message in suppressions.unused(found, tuple(everything))]
    active = [d for d in everything if cfg.enabled(d.code, job.select, job.ignore)]
    shown = [d for d in active if not any(s.covers(d) for s in found)]
    # A migrated site that is suppressed or disabled: the engine cannot yet leave one site alone, so the file is.
    held = [d for d in everything if d.fixed and d not in shown]
    suppressed = len(active) - len(shown)
    if not held or outcome.new_source is None:
        return shown, suppressed, sorted(warnings), outcome.new_source
    warnings.append((held[0].line, held[0].column, f"{held[0].code} is suppressed or disabled here: "
                     "the whole file is left untouched (sites cannot yet be skipped one by one)"))
    return [_not_migrated(d, held[0]) for d in shown], suppressed, sorted(warnings), None


def _not_migrated(d: Diagnostic, held: Diagnostic) -> Diagnostic:
    if not d.fixed:
        return d
    note = f" (not migrated: the file is left untouched because of line {held.line})"
    return replace(d, fixed=False, decision="untouched", message=d.message + note)


# --- many files --------------------------------------------------------------------------------------------------


class _NoBar:
    def update(self, _steps: int) -> None:
        pass


def _progress(total: int, options: Options):
    """A bar on stderr for long runs on a terminal; stdout stays clean for diagnostics and documents."""
    if options.quiet or total < PROGRESS_MIN_FILES or not sys.stderr.isatty():
        return contextlib.nullcontext(_NoBar())
    return click.progressbar(length=total, label="Analysing", file=sys.stderr, show_pos=True)


def analyse_all(tasks: list[tuple[Job, ...]], options: Options, workers: Workers) -> list[FileResult]:
    """Every task (a file, or files migrated together) once; results in task order, flattened. Tasks that
    the cache serves are read here: a run where it serves every one starts no worker (nor imports libcst)."""
    served = {id(task): _served(task) for task in tasks}
    pending = [task for task in tasks if served[id(task)] is None]
    with _progress(sum(map(len, pending)), options) as bar:
        if workers.wanted(len(pending)):
            served.update(workers.run(pending, analyse_together, bar.update))
        else:
            served.update((id(task), _step(bar, analyse_together(task))) for task in pending)
    return [r for task in tasks for r in served[id(task)]]


def _step(bar, results: list[FileResult]) -> list[FileResult]:
    bar.update(len(results))
    return results


def _write(result: FileResult, original: bytes) -> FileResult:
    if result.error or result.new_data is None:
        return result
    try:
        # Compare-and-replace: a file edited (or migrated by another run) since we read it is left alone.
        atomic_write(result.path, result.new_data, expected=original)
    except FileError as exc:
        return FileResult(result.path, error=str(exc))
    return as_written(result)


def _add_noqa(result: FileResult, original: bytes) -> tuple[FileResult, int]:
    """Baseline: a `# noqa: CODE` on the line of every site that cannot be migrated; returns lines changed."""
    wanted: dict[int, set[str]] = {}
    for d in result.diagnostics:
        if not d.fixed:
            wanted.setdefault(d.line, set()).add(d.code)
    if result.error or not wanted:
        return result, 0
    try:
        decoded = decode(original)  # the line numbers are those of the bytes that were analysed
        new_text, changed, refused = suppressions.add_noqa(decoded.text, wanted)
        if changed:
            atomic_write(result.path, encode(new_text, decoded.encoding), expected=original)
    except FileError as exc:
        return FileResult(result.path, error=str(exc)), 0
    why = "cannot add a noqa comment: the line ends inside a string or continues"
    notes = tuple((line, 1, why) for line in refused)
    return replace(result, warnings=result.warnings + notes), changed


# --- printing ----------------------------------------------------------------------------------------------------


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _summary(results: list[FileResult], checked: int, write: bool) -> str:
    diagnostics = [d for r in results for d in r.diagnostics]
    kept = sum(d.code == "TTD011" and not d.fixed for d in diagnostics)
    hidden = f"; {kept} of them in helpers kept, which `--unsafe-fixes` may remove (TTD011)" if kept else ""
    return _counts(results, diagnostics, checked, write).removesuffix(".") + hidden + "."


def _counts(results: list[FileResult], diagnostics: list, checked: int, write: bool) -> str:
    refused = sum(not d.fixed for d in diagnostics)
    suppressed = sum(r.suppressed for r in results)
    if not diagnostics and not any(r.new_data for r in results) and suppressed:
        return f"Nothing to migrate in {_plural(checked, 'file')} ({_plural(suppressed, 'site')} suppressed)."
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
        click.echo(_summary(ok, checked - (len(results) - len(ok)), options.mode == "write"), err=True)
    if errors and not options.quiet:
        click.echo(f"Could not process {_plural(len(errors), 'path')} (see errors above).", err=True)
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


def _write_text(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        error = click.FileError(path, exc.strerror)
        error.exit_code = 2  # an I/O error, as for the files we read
        raise error from exc


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


def _job(path: str, data: bytes, config: cfg.Config, options: Options) -> Job:
    verify = options.show_diff or options.mode == "write" or options.fmt in output.DOCUMENTS
    policy = config.policy_for(path)
    if options.policy_override is not None:
        policy = options.policy_override(policy)
    return Job(path, data, verify, policy, config.select, config.ignored_for(path), options.cache_dir,
               None if options.standalone else launch.import_spec(path, data),
               imported=triton_modules.imported(path, data, config.triton_modules))


def _skip_reason(path: str, config: cfg.Config, explicit: bool, options: Options,
                 named: tuple[str, ...] = ()) -> str | None:
    if (config.excludes(path) if options.force_exclude else not explicit and _excluded(path, config, named)):
        return "excluded by the configuration"
    ignored = config.ignored_for(path)
    if not any(cfg.enabled(code, config.select, ignored) for code in CODES):
        return "every rule is ignored for it (per-file-ignores / select / ignore)"
    return None


def _excluded(path: str, config: cfg.Config, named: tuple[str, ...]) -> bool:
    """Excluded by the configuration, where a directory named on the command line (absolute, in `named`)
    is checked even if it is excluded itself, as discover.py walks it: inside it, the patterns are matched
    relative to it, so that `third_party/` no longer covers all of it but `gen_*.py` still applies."""
    inside = os.path.abspath(path)
    for directory in named:
        if os.path.commonpath([inside, directory]) == directory and config.excludes(directory, is_dir=True):
            return config.excludes(path, root=directory)
    return config.excludes(path)


@dataclass
class Analysed:
    """What a run found and analysed, before anything is written or printed."""

    results: list[FileResult]  # per file analysed, in task order
    jobs: list[Job]  # what each analysed file was analysed with (its policy)
    originals: dict[str, bytes]  # path -> the bytes analysed
    errors: list[tuple[str, str]]  # (path, why) for paths that could not be found or read
    checked: int  # files read


def run_paths(paths: list[str], exclude: tuple[str, ...], respect_gitignore: bool, resolver: cfg.Resolver,
              options: Options) -> int:
    started = time.monotonic()
    analysed = analyse_paths(paths, exclude, respect_gitignore, resolver, options)
    results = _apply(analysed.results, analysed.originals, options)
    _verbose(options, f"analysed {_plural(len(analysed.jobs), 'file')} of {analysed.checked} in "
             f"{time.monotonic() - started:.2f} s")
    if not analysed.checked and not options.quiet:  # as ruff: a warning, not an error (exit 0 unless a path is missing)
        click.echo(f"warning: No Python files found under {', '.join(paths)} (`-v` says which files were "
                   "skipped and why).", err=True)
    return emit(results, analysed.errors, analysed.checked, options)


def analyse_paths(paths: list[str], exclude: tuple[str, ...], respect_gitignore: bool, resolver: cfg.Resolver,
                  options: Options) -> Analysed:
    """Find, read and analyse the files under `paths` as the run described by `options` would (`migrate
    verify` migrates its copy of a tree with this, so that it verifies what `--write` writes)."""
    found = discover(paths, exclude, respect_gitignore)
    explicit = {os.path.normpath(p) for p in paths if not os.path.isdir(p)}
    named = tuple(os.path.abspath(p) for p in paths if os.path.isdir(p))
    unreadable, jobs, checked, contents = [], [], 0, {}
    with Workers(options.jobs, options.cache_dir) as workers:
        for path in found.files:
            config = resolver.for_path(path)
            skip = _skip_reason(path, config, path in explicit, options, named)
            if skip:
                _verbose(options, f"{path}: skipped: {skip}")
                continue
            try:
                data = read_bytes(path)
            except FileError as exc:
                unreadable.append((path, str(exc)))
                continue
            checked += 1
            # The prefilter: a file without the telltale bytes costs this read and nothing more. One that
            # never says `triton` has no site, and is not searched for suppressions (which could name none):
            # in a site-packages tree that search cost a sixth of a check.
            if b"triton" not in data:
                continue
            if might_need_migration(data):
                jobs.append(_job(path, data, config, options))
                workers.expect()
            elif suppressions.might_have(data):
                jobs.append(_job(path, data, config, options))
            else:
                contents[path] = data  # it may define helpers that files with block pointers import
        tasks = _tasks(jobs, contents, resolver, options)
        tasks, results = _without_dead_helpers(tasks, analyse_all(tasks, options, workers), found.files, options,
                                               workers)
        results = launch.with_modules(results)
    analysed = [job for task in tasks for job in task]
    originals = {job.path: job.data for job in analysed}
    originals.update((r.path, r.text.encode("utf-8")) for r in results if r.path not in originals)
    return Analysed(results, analysed, originals, [*found.errors, *unreadable], checked)


def _without_dead_helpers(tasks: list[tuple[Job, ...]], results: list[FileResult], files: list[str],
                          options: Options, workers: Workers) -> tuple[list[tuple[Job, ...]], list[FileResult]]:
    """The tasks, and their results, with the helpers that no call fills and nothing in the project names
    removed (TTD011) where the user opted in to unsafe fixes: the tasks that have some are analysed again,
    told which."""
    from triton_migrate.frontend.references import unnamed

    opted_in = {job.path for task in tasks for job in task if job.policy.unsafe_fixes}
    uncalled = {r.path: r.uncalled_helpers for r in results if r.uncalled_helpers and r.path in opted_in}
    removable = unnamed(uncalled, files) if uncalled else {}
    if not removable:
        return tasks, results
    tasks = [tuple(replace(job, removable=removable[job.path]) if job.path in removable else job for job in task)
             for task in tasks]
    again = analyse_all([task for task in tasks if any(job.removable for job in task)], options, workers)
    redone = {r.path: r for r in again}
    return tasks, [redone.get(r.path, r) for r in results]


def _tasks(jobs: list[Job], contents: dict[str, bytes], resolver: cfg.Resolver,
           options: Options) -> list[tuple[Job, ...]]:
    """One task per file, except files that share `@triton.jit` helpers: one task per group (packages.py)."""
    from triton_migrate.analysis.packages import groups
    from triton_migrate.analysis.reachable import reachable_names
    from triton_migrate.frontend import cache

    by_path = {job.path: job for job in jobs}
    files = {**contents, **{job.path: job.data for job in jobs}}
    tasks, grouped = [], set()
    reachable = reachable_names if options.cache_dir is None else cache.reachable_names(options.cache_dir)
    for group in groups(files, {job.path for job in jobs if b"triton" in job.data}, reachable):
        tasks.append(tuple(by_path.get(p) or _job(p, files[p], resolver.for_path(p), options) for p in group))
        grouped.update(group)
    return tasks + [(job,) for job in jobs if job.path not in grouped]


def _apply(results: list[FileResult], originals: dict[str, bytes], options: Options) -> list[FileResult]:
    if options.add_noqa:
        added = [_add_noqa(result, originals[result.path]) for result in results]
        if not options.quiet:
            click.echo(f"Added {_plural(sum(n for _, n in added), 'noqa directive')}.", err=True)
        return [result for result, _ in added]
    if options.mode == "write":  # launch-support modules first: the modules that import them wait for them
        modules = {r.launch_module for r in results if r.launch_module}
        written = {r.path: _write(r, originals[r.path]) for r in results if r.path in modules}
        return [written.get(r.path) or _write(_waiting(r, written), originals[r.path]) for r in results]
    return results


def _waiting(result: FileResult, written: dict[str, FileResult]) -> FileResult:
    """The result, or an error if the launch-support module it imports could not be written."""
    module = written.get(result.launch_module)
    if module is None or module.error is None or result.new_data is None:
        return result
    return replace(result, new_text=None, new_data=None, error=f"needs {result.launch_module}: {module.error}")


def run_stdin(name: str, resolver: cfg.Resolver, options: Options) -> int:
    """ruff's stdin contract: with --write the (migrated) code goes to stdout and diagnostics to stderr."""
    data = sys.stdin.buffer.read()
    config = resolver.for_path(name)
    skipped = _skip_reason(name, config, True, options) is not None
    # stdout holds the one migrated file: it imports its launch support as written, which `migrate --write`
    # on the file writes beside it (or its package); stdin cannot, so it says so where the module is not there.
    result = FileResult(name) if skipped else analyse(_job(name, data, config, options))
    if options.mode == "write":
        # On any error the input comes back unchanged, so an editor buffer piped through us is never lost.
        written = result.error is None and result.new_data is not None
        sys.stdout.buffer.write(result.new_data if written else data)
        sys.stdout.buffer.flush()
        result = as_written(result) if written else result
        why = launch.missing(result.launch_module) if written and result.launch_module else None
        if why:
            click.echo(f"warning: {name}: the migrated code imports its launch support from {result.launch_module}"
                       f", which standard input does not write ({why}); `migrate --write {name}` writes it",
                       err=True)
    return emit([result], [], 1, options, diag_to_err=options.mode == "write")


def _verbose(options: Options, message: str) -> None:
    if options.verbose:
        click.echo(f"[migrate] {message}", err=True)


# --- eager options -----------------------------------------------------------------------------------------------


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


# --- options shared by the default command and `report` ------------------------------------------------------------


def _csv(_ctx, _param, values: tuple[str, ...]) -> list[str] | None:
    codes = [code.strip() for value in values for code in value.split(",") if code.strip()]
    return codes or None


# How each file is migrated: `migrate verify` and `migrate tune` take these too, so that they migrate as
# `--write` does.
CONFIGURATION = [
    click.option("--config", "config_file", type=click.Path(dir_okay=False, exists=True),
                 help="Use this pyproject.toml for every path instead of the nearest one."),
    click.option("--isolated", is_flag=True, help="Ignore every pyproject.toml."),
    click.option("--target", type=click.Choice(cfg.TARGETS),
                 help="What to emit: descriptors where safe else masked pointers (auto), only descriptors where "
                      "proven or stated (the rest untouched), or only masked pointers."),
    click.option("--strict/--no-strict", default=None,
                 help="Refuse descriptors whose safety depends on run-time values (strides, alignment), checked "
                      "at launch or stated."),
    click.option("--min-triton-version", metavar="X.Y", help="The oldest Triton the migrated code must run on."),
    click.option("--unsafe-fixes/--no-unsafe-fixes", default=None,
                 help="Also apply fixes that delete code: a helper whose block-pointer parameters nothing fills, or "
                      "that returns a block pointer every call now creates itself (TTD011); never a kernel."),
    click.option("--assume", multiple=True, callback=_csv, metavar="FACTS",
                 help="Facts about every kernel's tensor arguments and launches that descriptors may rely on "
                      "(comma-separated: aligned, contiguous, aligned-rows, in-bounds, allocator; replaces the "
                      "configuration's `assume`)."),
    click.option("--triton-module", "triton_module", multiple=True, callback=_csv, metavar="MODULE.NAME=WHAT",
                 help="A name that a module outside the run binds to triton (comma-separated, e.g. "
                      "vllm.triton_utils.tl=triton.language; replaces the configuration's `triton-modules`)."),
    click.option("--line-length", type=click.IntRange(min=1, max=320), metavar="N",
                 help="Keep emitted code within N columns [default: the project's ruff, black or flake8 "
                      "setting, else 88]."),
]
SHARED = [
    click.argument("paths", nargs=-1, type=click.Path()),
    *CONFIGURATION,
    click.option("--select", multiple=True, callback=_csv, metavar="CODES",
                 help="Rule codes or prefixes to enable (comma-separated; replaces the configuration's)."),
    click.option("--ignore", multiple=True, callback=_csv, metavar="CODES",
                 help="Rule codes or prefixes to disable (comma-separated; replaces the configuration's)."),
    click.option("--exclude", multiple=True, metavar="PATTERN",
                 help="Skip paths matching this gitignore-style glob (adds to the configuration's)."),
    click.option("--force-exclude", is_flag=True,
                 help="Apply excludes to files named on the command line too (as pre-commit passes them)."),
    click.option("--respect-gitignore/--no-respect-gitignore", default=None,
                 help="Skip files that .gitignore files ignore [default: respect]."),
    click.option("-o", "--output-file", type=click.Path(dir_okay=False),
                 help="Write the diagnostics (or the document) to this file instead of stdout."),
    click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes [default: one per CPU]."),
    click.option("--no-cache", is_flag=True, help="Analyse every file, without reading or writing the cache."),
    click.option("--cache-dir", metavar="DIR", help="Where check results are cached [default: "
                 ".triton-migrate-cache]."),
    click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
                 help="Colour output; `auto`: on a terminal, unless NO_COLOR is set."),
    click.option("-q", "--quiet", is_flag=True, help="Print diagnostics and errors, but no summary or warnings."),
    click.option("-v", "--verbose", is_flag=True, help="Also say which files were skipped and why, and timings."),
]


def _decorated(function, decorators: list):
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def shared_options(function):
    return _decorated(function, SHARED)


def configuration_options(function):
    return _decorated(function, CONFIGURATION)


def resolve(params: dict, fmt_option: str | None = None) -> tuple[cfg.Resolver, cfg.Config]:
    """The configuration resolver for the command line's options (an option missing from `params` is not
    set) and the run-level configuration; exit 2 on a bad configuration."""
    overrides = {key: value for key, value in (
        ("target", params.get("target")), ("strict", params.get("strict")),
        ("unsafe-fixes", params.get("unsafe_fixes")),
        ("min-triton-version", params.get("min_triton_version")), ("select", params.get("select")),
        ("ignore", params.get("ignore")), ("output-format", fmt_option),
        ("respect-gitignore", params.get("respect_gitignore")), ("jobs", params.get("jobs")),
        ("line-length", params.get("line_length")), ("assume", params.get("assume")),
        ("triton-modules", _triton_modules_table(params.get("triton_module"))),
    ) if value is not None}
    try:
        resolver = cfg.Resolver(overrides, params.get("config_file"), params.get("isolated", False))
        return resolver, resolver.for_path(".")
    except cfg.ConfigError as exc:
        raise click.UsageError(f"configuration: {exc}") from None


def _triton_modules_table(entries: list[str] | None) -> dict | None:
    """`--triton-module vllm.triton_utils.tl=triton.language` as the configuration's table."""
    if entries is None:
        return None
    table: dict[str, dict[str, str]] = {}
    for entry in entries:
        named, equals, full = entry.partition("=")
        module, dot, name = named.strip().rpartition(".")
        if not (equals and dot and module and name):
            raise click.UsageError(f"--triton-module {entry!r}: expected MODULE.NAME=triton or "
                                   "MODULE.NAME=triton.language")
        table.setdefault(module, {})[name] = full.strip()
    return table


def _cache_home() -> str:
    from triton_migrate.frontend.cache import DIRECTORY

    return DIRECTORY


def _run(params: dict, options: Options, resolver: cfg.Resolver, run: cfg.Config) -> int:
    paths = params["paths"]
    options = replace(options, jobs=run.jobs or os.cpu_count() or 1, quiet=params["quiet"], verbose=params["verbose"],
                      color=params["color"], output_file=params["output_file"], force_exclude=params["force_exclude"],
                      cache_dir=None if params["no_cache"] else params["cache_dir"] or _cache_home())
    _verbose(options, f"configuration: {run.source or 'built-in defaults'}")
    try:
        # As in ruff, --stdin-filename without PATHS means "read stdin".
        if paths == ("-",) or (not paths and params.get("stdin_filename") is not None):
            return run_stdin(params.get("stdin_filename") or "-", resolver, options)
        if "-" in paths:
            raise click.UsageError("`-` (stdin) cannot be combined with other paths.")
        return run_paths(list(paths) or ["."], tuple(params["exclude"]), run.respect_gitignore, resolver, options)
    except cfg.ConfigError as exc:  # a nested pyproject.toml is only read when a file under it is reached
        raise click.UsageError(f"configuration: {exc}") from None


# --- commands ----------------------------------------------------------------------------------------------------


@click.command(epilog=EXIT_CODES, context_settings={"help_option_names": ["-h", "--help"]})
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

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] == "tune":  # `migrate tune` is `migrate verify tune`: it runs kernels too
            args = ["verify", *args]
        if not args or args[0] not in self.list_commands(ctx):
            args = [self.default, *args]
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return ["check", "report", "verify", "vendor-compat"]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "verify":
            return _verify_command()
        return {"check": check, "report": report, "vendor-compat": vendor_compat}.get(name)


def _verify_command() -> click.Command:
    # Imported on use only: verification needs triton and torch, which nothing else here may import.
    try:
        return importlib.import_module("triton_migrate.verify").command
    except Exception as exc:  # not installed yet, or a broken import: say so instead of a traceback
        reason = f"{type(exc).__name__}: {exc}"

    @click.command("verify", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    @click.pass_context
    def unavailable(ctx):
        """Not available in this installation."""
        click.echo(f"migrate verify is not available in this installation ({reason}).", err=True)
        ctx.exit(2)

    return unavailable


main = _DefaultGroup(name="migrate", context_settings={"help_option_names": ["-h", "--help"]},
                     help="Migrate Triton block pointers to tensor descriptors; see `migrate check --help`.")


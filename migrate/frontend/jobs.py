"""The jobs of a run: what a worker process does with one file, or with files migrated together (decode, the
engine, suppressions, select/ignore, the cache), every task of a run analysed in order (in worker processes
where it pays), the files written, and the summary line of what was found. Nothing here prints."""

from __future__ import annotations

import contextlib
import gc
from dataclasses import dataclass, replace
from typing import Callable

from triton_migrate.analysis.prefilter import might_need_migration
from triton_migrate.frontend import config as cfg
from triton_migrate.frontend import launch, lint_pragmas, suppressions
from triton_migrate.frontend.fileio import FileError, atomic_write, check_parses, decode, encode
from triton_migrate.frontend.output import FileResult
from triton_migrate.frontend.workers import Workers
from triton_migrate.frontend.written import as_written
from triton_migrate.outcome import Diagnostic, FileOutcome
from triton_migrate.policy import Layout, Policy


@dataclass(frozen=True)
class Job:
    """What a worker needs for one file (picklable)."""

    path: str
    data: bytes
    verify: bool
    policy: Policy
    layout: Layout  # how the rewrite lays out the code it writes (its configuration's line length)
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    cache_dir: str | None = None  # where check results are kept between runs (cache.py); None: no cache
    launch: str | None = None  # how the file imports its launch support (launch.py); None: the engine's `try`
    removable: frozenset[str] = frozenset()  # its uncalled helpers that nothing in the project names (TTD011)
    imported: tuple = ()  # names it imports from modules outside the run that bind them to triton (triton_modules.py)
    lint_codes: tuple[str, ...] = ()  # of lint_pragmas.CODES, those the project's ruff checks in the file
    lint_config: str | None = None  # the ruff configuration that selects them, as shown


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
    held = [r for r in results if r.path in outcomes and _held(outcomes[r.path], r)]
    if not held:
        return results
    # Files that share helpers are only right together: one held back (a suppression) holds back all, in a
    # check as in --write (which is what a check's fixable mark promises).
    why = f"left untouched with {held[0].path}, which shares `@triton.jit` helpers with it"
    return [replace(r, new_text=None, new_data=None, warnings=r.warnings + ((1, 1, why),),
                    diagnostics=tuple(_not_migrated(d, why) for d in r.diagnostics))
            if r.new_data is not None or any(d.fixed for d in r.diagnostics) else r for r in results]


def _held(outcome: FileOutcome, result: FileResult) -> bool:
    """Whether the file is left untouched although the engine migrated some of its sites (a suppression)."""
    return any(d.fixed for d in outcome.diagnostics) and not any(d.fixed for d in result.diagnostics)


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
                                        imported={job.path: job.imported for job in jobs},
                                        policies={job.path: job.policy for job in jobs},
                                        layouts={job.path: job.layout for job in jobs})
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
    migration = engine.MigrationContext.alone(job.policy, job.launch, job.removable, job.imported, job.layout)
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
    return (tuple(job.policy for job in jobs), tuple(job.layout for job in jobs),
            tuple(sorted(job.removable) for job in jobs), tuple(job.imported for job in jobs))


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
    new_text, notes = lint_pragmas.marked(decoded.text, new_text, job.lint_codes, job.lint_config)
    result = replace(result, warnings=tuple(sorted(warnings + notes)))
    new_data = encode(new_text, decoded.encoding)
    check_parses(job.path, job.data, new_data)
    needs = launch.location(job.path) if outcome.launch_functions else None
    return replace(result, new_text=new_text, new_data=new_data, launch_module=needs,
                   launch_functions=outcome.launch_functions,
                   stated_facts=outcome.stated_facts, summing=outcome.summing)


def _filter(outcome: FileOutcome, text: str, job: Job) -> tuple[list[Diagnostic], int, list, str | None]:
    """The diagnostics left after select/ignore and suppressions, how many were suppressed, the warnings, and
    the text that may be written."""
    everything = sorted(outcome.diagnostics, key=lambda d: (d.line, d.column, d.code))
    found = suppressions.find(text) if suppressions.might_have(job.data) else []
    warnings = [(s.line, s.column, message) for s, message in suppressions.unused(found, tuple(everything))]
    active = [d for d in everything if cfg.enabled(d.code, job.select, job.ignore)]
    shown = [d for d in active if not any(s.covers(d) for s in found)]
    # A migrated site that is suppressed or disabled: the engine cannot yet leave one site alone, so the file is.
    # (`shown` holds some of the same objects: by identity, where `in` compared thousands of dataclasses)
    shown_ids = set(map(id, shown))
    held = [d for d in everything if d.fixed and id(d) not in shown_ids]
    suppressed = len(active) - len(shown)
    if not held:
        return shown, suppressed, sorted(warnings), outcome.new_source
    # Held in a check too, where nothing is rewritten: its fixable marks promise what --write does.
    warnings.append((held[0].line, held[0].column, f"{held[0].code} is suppressed or disabled here: "
                     "the whole file is left untouched (sites cannot yet be skipped one by one)"))
    why = f"the file is left untouched because of line {held[0].line}"
    return [_not_migrated(d, why) for d in shown], suppressed, sorted(warnings), None


def _not_migrated(d: Diagnostic, why: str) -> Diagnostic:
    if not d.fixed:
        return d
    return replace(d, fixed=False, decision="untouched", message=f"{d.message} (not migrated: {why})")



# --- many files --------------------------------------------------------------------------------------------------


def analyse_all(tasks: list[tuple[Job, ...]], workers: Workers, progress: Callable) -> list[FileResult]:
    """Every task (a file, or files migrated together) once; results in task order, flattened. Tasks that
    the cache serves are read here: a run where it serves every one starts no worker (nor imports libcst).
    `progress(total)`: a context manager whose value counts the files done (`update(count)`)."""
    served = {id(task): _served(task) for task in tasks}
    pending = [task for task in tasks if served[id(task)] is None]
    with progress(sum(map(len, pending))) as bar:
        if workers.wanted(len(pending)):
            served.update(workers.run(pending, analyse_together, bar.update))
        else:
            served.update((id(task), _step(bar, analyse_together(task))) for task in pending)
    return [r for task in tasks for r in served[id(task)] or ()]  # (every one is served by now)


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



def write_all(results: list[FileResult], originals: dict[str, bytes]) -> list[FileResult]:
    """Every migrated file written (`originals`: path -> the bytes analysed); launch-support modules first:
    the modules that import them wait for them."""
    modules = {r.launch_module for r in results if r.launch_module}
    written = {r.path: _write(r, originals[r.path]) for r in results if r.path in modules}
    return [written.get(r.path) or _write(_waiting(r, written), originals[r.path]) for r in results]


def add_noqa_all(results: list[FileResult], originals: dict[str, bytes]) -> tuple[list[FileResult], int]:
    """`--add-noqa` on every file: the results, and how many lines were changed."""
    added = [_add_noqa(result, originals[result.path]) for result in results]
    return [result for result, _ in added], sum(n for _, n in added)


def _waiting(result: FileResult, written: dict[str, FileResult]) -> FileResult:
    """The result, or an error if the launch-support module it imports could not be written."""
    module = written.get(result.launch_module)
    if module is None or module.error is None or result.new_data is None:
        return result
    return replace(result, new_text=None, new_data=None, error=f"needs {result.launch_module}: {module.error}")


# --- summaries ---------------------------------------------------------------------------------------------------


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def summary(results: list[FileResult], checked: int, write: bool, failed: int = 0) -> str:
    """The line that ends a run: how many sites were found (or migrated) in how many of the `checked` files;
    `failed` files could not be read, analysed or written, and their errors were printed above."""
    diagnostics = [d for r in results for d in r.diagnostics]
    kept = sum(d.code == "TTD011" and not d.fixed for d in diagnostics)
    hidden = f"; {kept} of them in helpers kept, which `--unsafe-fixes` may remove (TTD011)" if kept else ""
    return _counts(results, diagnostics, checked, write, failed).removesuffix(".") + hidden + "."


def _counts(results: list[FileResult], diagnostics: list, checked: int, write: bool, failed: int) -> str:
    refused = sum(r.left for r in results)
    suppressed = sum(r.suppressed for r in results)
    # Only files that were processed count: a file whose write failed may well hold block pointers.
    files = plural(checked, "other file" if failed else "file")
    if not diagnostics and not any(r.new_data for r in results) and failed and not checked:
        return f"Nothing {'written' if write else 'checked'}: {plural(failed, 'file')} failed (see errors above)."
    if not diagnostics and not any(r.new_data for r in results) and suppressed:
        return f"Nothing to migrate in {files} ({plural(suppressed, 'site')} suppressed)."
    if not diagnostics and not any(r.new_data for r in results):
        return f"No block pointers found in {files}."
    if write:
        written = [r for r in results if r.new_data]
        migrated = sum(d.fixed for r in written for d in r.diagnostics)
        done = "No sites migrated"
        if written:
            done = f"Migrated {plural(migrated, 'site')} in {plural(len(written), 'file')}"
        left = f"; {plural(refused, 'site')} left (cannot be migrated)" if refused else ""
        return f"{done}{left}."
    fixable = len(diagnostics) - refused
    parts = [f"{fixable} can be migrated"] if fixable else []
    if refused:
        parts.append(f"{refused} cannot{'' if fixable else ' be migrated'} (see above)")
    with_sites = sum(bool(r.diagnostics) for r in results)
    return f"Found {plural(len(diagnostics), 'site')} in {plural(with_sites, 'file')}: {', '.join(parts)}."


"""The run API: the migration run over paths as the command line runs it (discovery, excludes, each file's
configuration, files that share helpers grouped, the jobs analysed), returning the results without writing
or printing anything. `migrate verify` and `migrate tune` migrate their copy of a tree with it, so that
they migrate what `--write` writes; the command line (cli.py) prints and writes what it returns."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, replace
from functools import partial
from typing import Callable

from triton_migrate.analysis.prefilter import may_concern_us, might_need_migration
from triton_migrate.frontend import config as cfg
from triton_migrate.frontend import launch, lint_pragmas, output, suppressions, triton_modules
from triton_migrate.frontend.discover import discover
from triton_migrate.frontend.fileio import FileError, read_bytes
from triton_migrate.frontend.jobs import Job, analyse_all
from triton_migrate.frontend.output import FileResult
from triton_migrate.frontend.settings import SETTINGS, Setting
from triton_migrate.frontend.workers import Workers
from triton_migrate.policy import Policy
from triton_migrate.rules import CODES

PROGRESS_MIN_FILES = 10  # fewer files than this finish before a progress bar would be worth drawing


class _NoBar:
    def update(self, _steps: int) -> None:
        pass


class Feedback:
    """What a run tells its user while it works: this one says nothing (the command line's prints it)."""

    def say(self, message: str) -> None:
        """A line of `-v`: which files were skipped and why, timings."""

    def progress(self, total: int):
        """A context manager whose value counts the `total` files analysed (`update(count)`)."""
        return contextlib.nullcontext(_NoBar())


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
    feedback: Feedback = Feedback()



class OptionError(Exception):
    """An option's value cannot be understood; the message names the option."""


def resolve(params: dict, fmt_option: str | None = None) -> tuple[cfg.Resolver, cfg.Config]:
    """The configuration resolver for the command line's options (`params`: by the default command's names; an
    option missing from it is not set) and the run-level configuration. Raises cfg.ConfigError for a bad
    configuration, OptionError for an option whose value cannot be understood (`--triton-module`)."""
    overrides = {"output-format": fmt_option} if fmt_option is not None else {}
    for setting in SETTINGS:
        value = params.get(setting.parameter) if setting.option is not None else None
        if value is not None:
            overrides[setting.key] = _as_toml(setting, value)
    resolver = cfg.Resolver(overrides, params.get("config_file"), params.get("isolated", False))
    return resolver, resolver.for_path(".")


def _as_toml(setting: Setting, value):
    """An option's value as the TOML value it overrides."""
    try:
        return setting.option.to_toml(value) if setting.option.to_toml else value
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def say(options: Options, message: str) -> None:
    """A line for `-v` (`[migrate] ...`)."""
    if options.verbose:
        options.feedback.say(f"[migrate] {message}")


def _analysed(tasks: list[tuple[Job, ...]], workers: Workers, options: Options) -> list[FileResult]:
    return analyse_all(tasks, workers, partial(_progress, options=options))


def _progress(total: int, options: Options):
    """A bar for long runs; short ones finish before it would be worth drawing."""
    if options.quiet or total < PROGRESS_MIN_FILES:
        return contextlib.nullcontext(_NoBar())
    return options.feedback.progress(total)


def job_for(path: str, data: bytes, config: cfg.Config, options: Options) -> Job:
    """What a worker needs for the file at `path`, under its configuration and the run's options."""
    verify = options.show_diff or options.mode == "write" or options.fmt in output.DOCUMENTS
    policy = config.policy_for(path)
    if options.policy_override is not None:
        policy = options.policy_override(policy)
    lint_codes = tuple(code for code in lint_pragmas.CODES if config.ruff.selects(code, path))
    return Job(path, data, verify, policy, config.layout(), config.select, config.ignored_for(path), options.cache_dir,
               None if options.standalone else launch.import_spec(path, data),
               imported=triton_modules.imported(path, data, config.triton_modules, known=config.known_triton_modules),
               lint_codes=lint_codes,
               lint_config=cfg.shown_path(config.ruff.source) if lint_codes else None)


def skip_reason(path: str, config: cfg.Config, explicit: bool, options: Options,
                named: tuple[str, ...] = ()) -> str | None:
    """Why the run leaves the file at `path` out (`explicit`: named on the command line), or None."""
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
            skip = skip_reason(path, config, path in explicit, options, named)
            if skip:
                say(options, f"{path}: skipped: {skip}")
                continue
            try:
                data = read_bytes(path)
            except FileError as exc:
                unreadable.append((path, str(exc)))
                continue
            checked += 1
            # The prefilter: a file without the telltale bytes costs this read and nothing more. One that
            # never says `triton` (nor `make_block_ptr`) has no site, and is not searched for suppressions
            # (which could name none): in a site-packages tree that search cost a sixth of a check.
            if not may_concern_us(data):
                continue
            if might_need_migration(data):
                jobs.append(job_for(path, data, config, options))
                workers.expect()
            elif suppressions.might_have(data):
                jobs.append(job_for(path, data, config, options))
            else:
                contents[path] = data  # it may define helpers that files with block pointers import
        tasks = _tasks(jobs, contents, resolver, options)
        tasks, results = _without_dead_helpers(tasks, _analysed(tasks, workers, options), found.files, options,
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
    again = _analysed([task for task in tasks if any(job.removable for job in task)], workers, options)
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
        tasks.append(tuple(by_path.get(p) or job_for(p, files[p], resolver.for_path(p), options) for p in group))
        grouped.update(group)
    return tasks + [(job,) for job in jobs if job.path not in grouped]


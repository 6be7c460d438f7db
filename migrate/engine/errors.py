"""What goes wrong in a migration, and whose module it is (ModuleFailure)."""

from __future__ import annotations

import contextlib

from triton_migrate.analysis import ast_tree
from triton_migrate.analysis.dataflow import CrossesFunctions


class SourceError(Exception):
    """The source cannot be parsed; nothing is rewritten."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


class InternalError(Exception):
    """The rewrite produced text that does not parse, is not a fixed point or reads a name it no longer
    binds: a bug, never written out."""


class ModuleFailure(Exception):
    """One module of a program cannot be migrated (`error` says why); the others can be, without it."""

    def __init__(self, module: str, error: Exception) -> None:
        super().__init__(f"{module}: {error}")
        self.module = module
        self.error = error


@contextlib.contextmanager
def blame(module: str):
    """What goes wrong while one module is parsed, analysed or rewritten is that module's."""
    try:
        yield
    except (ModuleFailure, ast_tree.Unsupported, CrossesFunctions):  # no failures: the caller handles them
        raise
    except RecursionError as error:
        raise ModuleFailure(module, SourceError("too deeply nested for the analysis", 0)) from error
    except UnicodeEncodeError as error:  # e.g. a lone surrogate in a str that never came from a file
        raise ModuleFailure(module, SourceError(f"cannot parse: {error.reason}", 0)) from error
    except Exception as error:  # an engine bug met in one module must not cost the others
        raise ModuleFailure(module, error) from error

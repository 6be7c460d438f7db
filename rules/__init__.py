"""The rule registry: one rule a module, each with its code, name, summary and documentation.

Codes TTD0xx are rewrites; TTD1xx are reasons a site is left untouched inside one function; TTD2xx are
reasons that involve other functions.

A rule module owns the meaning of its code: its documentation (what `--explain` prints and the documentation
site shows), its condition over plain values (numbers, names, flags; never a syntax tree) and the words of its
messages (a rule may take another's words: TTD002's advance of `None` is TTD003's compile error). It imports
nothing else of triton_migrate (tests/test_architecture.py): the analysis decides with the conditions and
writes its refusals and obstacles in the rules' words, the engine reports them, and the
syntax a rewrite emits is built in migrate/syntax/forms/. The front end (listing, selecting, explaining and
suppressing codes) knows the rules only through this registry. `_launch_support.py` is no rule: it is the host
code that guarded and stated kernels call at launch, which `migrate --write` writes beside them
(frontend/launch.py).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from types import ModuleType

_MODULES = (
    "ttd001_descriptor", "ttd002_advance", "ttd003_access", "ttd006_masked_pointers", "ttd007_compat",
    "ttd008_helper_parts", "ttd009_launch_guard", "ttd010_stated_facts", "ttd011_dead_helper",
    "ttd101_unchecked_dimension", "ttd102_inner_offset_alignment", "ttd103_no_unit_stride", "ttd104_volatile",
    "ttd105_rank", "ttd106_int64_offsets", "ttd107_narrow_block", "ttd108_unsupported_use",
    "ttd109_ambiguous_value", "ttd110_negative_store_offset", "ttd111_store_row_width",
    "ttd112_runtime_alignment", "ttd113_min_triton", "ttd114_rejected_call", "ttd115_masked_access",
    "ttd116_boundary_check_unread", "ttd117_padding_option", "ttd118_unfollowed_use", "ttd119_pipelined_creation",
    "ttd201_crosses_function", "ttd202_triton_imported_elsewhere", "ttd203_binding_not_followed",
)
# The codes without importing the rules, which a cached run never needs. tests/test_cli.py holds each module's
# CODE to its place here.
CODES = tuple(module[:6].upper() for module in _MODULES)
# A code that selects others: TTD108, the codes it was split into (rules/ttd108_unsupported_use.py).
ALIASES = {"TTD108": ("TTD114", "TTD115", "TTD116", "TTD117", "TTD118")}


def selects(listed: str, code: str) -> bool:
    """Whether a code a user lists (a suppression, an ignore) names `code`: itself, or an alias of it."""
    return code == listed or code in ALIASES.get(listed, ())


@lru_cache(maxsize=1)
def _rules() -> dict[str, ModuleType]:
    return {code: import_module(f"{__name__}.{module}") for code, module in zip(CODES, _MODULES)}


def __getattr__(name: str):
    """`RULES` (code -> module), imported on first use."""
    if name != "RULES":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _rules()


def explain(code: str) -> str:
    return _rules()[code.upper()].__doc__.strip()

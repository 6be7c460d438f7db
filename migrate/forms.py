"""What a block-pointer site can become (`Form`), what the user asks for (`Target`) and where that came from
(`Origin`): the one module that spells them (tests/test_architecture.py checks that no other module of
triton_migrate writes these words as strings), and the homonyms that share their spelling.

Each is a str: a member compares and hashes as its value (`Form.POINTER == "pointer"`), prints as it, and is
serialised as it (JSON, the report's `decision`), so configuration values and output stay plain strings.
"""

from __future__ import annotations

from enum import Enum


class _Word(str, Enum):
    """A str whose members print as their value (Python 3.11's StrEnum, on 3.9), also inside the records'
    reprs, which read as code (tests/test_analysis_records.py)."""

    def __repr__(self) -> str:
        return str.__repr__(self)

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(self, spec)


class Form(_Word):
    """What the accesses of a block pointer are rewritten to."""

    DESCRIPTOR = "descriptor"  # a tensor descriptor (TTD001, TTD010)
    GUARDED = "guarded"  # a descriptor where the launch check passes, masked pointers otherwise (TTD009)
    POINTER = "pointer"  # masked pointers with block-pointer semantics (TTD006)
    COMPAT = "compat"  # a tile of the compat shim (TTD007)
    PARTS = "parts"  # passed to a helper as its parts (TTD008)


class Target(_Word):
    """What the user asks for (`target`, `--target`, `kernel-targets`)."""

    AUTO = "auto"
    DESCRIPTOR = "descriptor"
    POINTER = "pointer"
    COMPAT = "compat"


# As plain strings, for the command line's choices and the configuration's validation.
TARGETS = tuple(target.value for target in Target)
KERNEL_TARGETS = tuple(target.value for target in (Target.AUTO, Target.DESCRIPTOR, Target.POINTER))  # `migrate tune`


class Origin(_Word):
    """Where a function's target came from: none given, the configuration (file or command line), or
    `migrate tune` (kernel-targets, a kernel's own or its callers')."""

    DEFAULT = "default"
    CONFIGURATION = "configuration"
    TUNED = "tuned"


# Homonyms: Triton's name for the pointer argument of `tl.load`/`tl.store`, and the name migrated code binds the
# compat shim to (unless the module already uses it).
POINTER_ARGUMENT = "pointer"
SHIM_NAME = "compat"

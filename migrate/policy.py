"""What the user allows the rewrite to do: the one place where policy knobs enter the engine."""

from __future__ import annotations

from dataclasses import dataclass

TARGETS = ("auto", "descriptor", "pointer", "compat")


@dataclass(frozen=True)
class Policy:
    # auto: a descriptor where it is provably legal and safe, the masked-pointer form otherwise;
    # descriptor: descriptors only (what cannot be one is left untouched and reported);
    # pointer: the masked-pointer form everywhere (exact block-pointer semantics, no TMA);
    # compat: tiles of the triton_migrate.compat shim, which picks its implementation per Triton version.
    target: str = "auto"
    # strict: a site whose safety depends on run-time values (row stride / base alignment, row width
    # of a TMA store) is not given a descriptor; permissive: it is, and the report lists what the
    # caller must guarantee.
    strict: bool = False
    # The oldest Triton the migrated code must run on: descriptors need 3.4, `padding_option` and
    # casting stores need 3.5.
    min_triton: tuple[int, int] = (3, 5)
    # Where the migrated code imports the shim from, for --target compat (a vendored copy, say).
    compat_module: str = "triton_migrate.compat"

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ValueError(f"unknown target {self.target!r}; choose one of {', '.join(TARGETS)}")

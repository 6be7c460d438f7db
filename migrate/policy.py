"""What the user allows the rewrite to do: the one place where policy knobs enter the engine."""

from __future__ import annotations

from dataclasses import dataclass, replace

TARGETS = ("auto", "descriptor", "pointer", "compat")
KERNEL_TARGETS = ("auto", "descriptor", "pointer")  # what `migrate tune` chooses between, per kernel


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
    # Per function (its name): the target measured fastest among the bit-identical ones (`migrate tune`).
    kernel_targets: tuple[tuple[str, str], ...] = ()
    # The columns the emitted code keeps within (the project's ruff, black or flake8 line length; see
    # config.LineLengths): a longer statement is laid out as black would (wrap.py).
    line_length: int = 88

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ValueError(f"unknown target {self.target!r}; choose one of {', '.join(TARGETS)}")
        for name, target in self.kernel_targets:
            if target not in KERNEL_TARGETS:
                raise ValueError(f"kernel {name!r}: target must be one of {', '.join(KERNEL_TARGETS)}")

    def for_function(self, name: str, inherited: str | None = None) -> "Policy":
        """The policy for one function: its tuned target, if it has one, else the one it `inherited` from its
        callers (compat stays file-wide)."""
        chosen = dict(self.kernel_targets).get(name, inherited)
        if chosen is None or self.target == "compat":
            return self
        return replace(self, target=chosen)

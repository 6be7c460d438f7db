"""What the user allows the rewrite to do: the one place where policy knobs enter the engine."""

from __future__ import annotations

from dataclasses import dataclass

from .forms import KERNEL_TARGETS, TARGETS, Target

MAX_LINE_LENGTH = 320  # ruff's upper bound

# What a user may state about a kernel's tensor arguments, which no source proves (rules/ttd010_stated_facts.py):
# the innermost dimension has stride 1; the data, every other stride and every offset the kernel adds to the
# pointer are multiples of 16 bytes; the innermost extent (a row) is a multiple of 16 bytes; the tiles the
# kernel accesses start inside the tensor and end inside it in the dimensions it does not boundary-check; a
# block's row (its innermost width, which the launch chooses, times the element size) holds 16 bytes. And
# about a kernel's launches: every launching thread has an allocator for descriptors (or needs none).
FACTS = ("contiguous", "aligned", "aligned-rows", "in-bounds", "widths", "allocator")
KERNEL_FACTS = ("allocator",)  # stated of a kernel, never of one argument

@dataclass(frozen=True)
class Statement:
    """A fact stated about the tensor arguments of kernels: every kernel's (`kernel` None), one kernel's
    (a function name), or one argument's of it; `where` says where it was stated, for the report."""

    fact: str
    where: str
    kernel: str | None = None
    argument: str | None = None

    def __post_init__(self) -> None:
        if self.fact not in FACTS:
            raise ValueError(f"unknown fact {self.fact!r}; choose from {', '.join(FACTS)}")
        if self.fact in KERNEL_FACTS and self.argument is not None:
            raise ValueError(f"`{self.fact}` is stated of a kernel, not of one argument ({self.argument!r})")

    def covers(self, kernel: str, argument: str) -> bool:
        return self.kernel in (None, kernel) and self.argument in (None, argument)

@dataclass(frozen=True)
class Layout:
    """How the rewrite lays out the code it writes: the engine hands it to the rewrite beside the policy, and the
    analysis never sees it (what a site becomes does not depend on it)."""

    # The columns the emitted code keeps within (the project's ruff, black or flake8 line length; see
    # config.LineLengths): a longer statement is laid out as black would (wrap.py).
    line_length: int = 88
    # Where nothing configures a line length, the file's own code is the evidence: its longest line of code,
    # where longer than `line_length` (rewrite/code_width.py).
    from_code: bool = False


@dataclass(frozen=True)
class Policy:
    # auto: a descriptor where it is provably legal and safe (checked at launch, or on stated facts), the
    # masked-pointer form otherwise; descriptor: descriptors only, where what they need is proven or stated
    # (the rest is left untouched and reported);
    # pointer: the masked-pointer form everywhere (exact block-pointer semantics, no TMA);
    # compat: tiles of the triton_migrate.compat shim, which picks its implementation per Triton version.
    target: str = Target.AUTO.value
    # strict: a site whose safety depends on run-time values (row stride / base alignment, row width
    # of a TMA store) is not given a descriptor, neither guarded nor on stated facts.
    strict: bool = False
    # The oldest Triton the migrated code must run on: descriptors need 3.4, `padding_option` and
    # casting stores need 3.5.
    min_triton: tuple[int, int] = (3, 5)
    # Where the migrated code imports the shim from, for --target compat (a vendored copy, say).
    compat_module: str = "triton_migrate.compat"
    # Per function (its name): the target measured fastest among the bit-identical ones (`migrate tune`).
    kernel_targets: tuple[tuple[str, str], ...] = ()
    # Facts the user states (`assume`, `per-file-assume`, `kernel-assume`; the source's own `# migrate:
    # assume[...]` comments are read by the engine): descriptors may rely on them (TTD010). Not under
    # `strict`, which relies on nothing it has not proven.
    assume: tuple[Statement, ...] = ()
    # Fixes that delete user code (ruff's `--unsafe-fixes`): a helper whose block-pointer parameters nothing
    # fills, or one returning a block pointer that every call now creates itself (TTD011). Off: such a
    # helper is kept and reported; a kernel is never removed.
    unsafe_fixes: bool = False

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ValueError(f"unknown target {self.target!r}; choose one of {', '.join(TARGETS)}")
        for name, target in self.kernel_targets:
            if target not in KERNEL_TARGETS:
                raise ValueError(f"kernel {name!r}: target must be one of {', '.join(KERNEL_TARGETS)}")

    def stated(self, kernel: str, argument: str) -> dict[str, str]:
        """The facts stated about one tensor argument of a kernel: fact -> where (the last statement, the most
        specific of the configuration's: `kernel-assume` after `per-file-assume` after `assume`)."""
        found: dict[str, str] = {}
        for statement in reversed(self.assume):
            if statement.covers(kernel, argument):
                found.setdefault(statement.fact, statement.where)
        return found

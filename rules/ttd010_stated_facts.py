"""TTD010 stated-facts: a tensor descriptor that relies on facts the user stated, not checked at each launch.

What it does: a block pointer becomes a plain tensor descriptor, where what it needs that the source cannot prove
is covered by a fact the user stated (`assume`), and the report lists each fact relied on.

Why: a device-side descriptor is legal on NVIDIA sm_90+ only if the tensor's data is 16-byte aligned, every
stride but the unit one and every offset added to the base is a multiple of 16 bytes, and the unit stride
is a compile-time 1; a descriptor store also overwrites a row's end up to the next 16 bytes (TMA stores
write whole 16-byte chunks: TTD111). No source proves a tensor's data alignment, so by default every
descriptor is chosen at launch (TTD009) and keeps its masked-pointer twin. A maintainer who knows their tensors (they
allocate them contiguous, with rows of 64 halves) can say so, and get what they would write by hand: plain
descriptors, for loads and stores, in loops or not, with no launch check (and, for block widths the launch
chooses, unless the code bounds it or `widths` is stated, a masked-pointer form that a test at compile time
picks where the block holds fewer than 16 bytes: TTD107).

The facts, about a kernel's tensor arguments and its launches:

* `aligned`: the data, every stride but the innermost and every offset the kernel adds to the pointer (`q + (bos *
  H + i_h) * K`: each term's witness, TTD009) are multiples of 16 bytes;
* `contiguous`: the innermost dimension has stride 1 (its stride argument is 1 at every launch, which the JIT
  specialises: the descriptor needs a compile-time 1), where the source does not prove it with a literal 1
  (`order`, a hint, may mark another dimension, or none);
* `aligned-rows`: a row, the innermost extent × itemsize, is a multiple of 16 bytes, so a descriptor store writes
  nothing past it (without it, stores keep masked pointers: TTD111);
* `in-bounds`: no tile starts before the tensor, and each lies inside it in the dimensions its access does not
  boundary-check: what one program per tile and shapes that are multiples of the blocks give, and what the humans
  relied on when they wrote a descriptor store at the grouped ordering's `pid_n * BLOCK_N` (TTD110) or a
  descriptor load the block pointer did not check (TTD101). No launch can check it (tiles depend on program ids),
  so only a plain descriptor, whose other facts are stated too, relies on it;
* `widths`: a block's row, its innermost width × itemsize, holds at least 16 bytes at every launch, where the
  launch chooses the width (`BK: tl.constexpr`) and the code does not bound it (an `@triton.autotune` whose
  every configuration sets it to 16 or more, or `tl.static_assert(BK >= 16)`, proves it for any element type):
  the descriptor needs no compile-time test of its width and no masked pointers to fall back on (TTD107);
* `allocator`, of a kernel: every thread that launches it has an allocator for device-side descriptors, or runs
  where none is needed (AMD, Intel XPU, NVIDIA before sm_90); the kernel then gets no hook, and its other facts
  cover what no launch could check (a base term without a witness); stated of a helper (every function: `assume`),
  it lets the helper's descriptors rely on facts.

Where: in `[tool.triton-migrate]`, `assume = ["aligned"]` (every kernel the configuration covers),
`[tool.triton-migrate.per-file-assume]` (gitignore-style glob = facts), `[tool.triton-migrate.kernel-assume]`
(`matmul_kernel = [...]`, or one argument: `"matmul_kernel.c_ptr" = [...]`), or `--assume aligned,...`;
in the source, `# migrate: assume[aligned, contiguous]` at the end of the kernel's `def` line (every
argument), of a line of its parameters (those), or of the line where a `tl.make_block_ptr` call starts
(that block pointer). Facts add up; nothing is assumed that no one stated.

What is still proven or refused, facts or not: an innermost offset that is a multiple of 16 bytes (TTD102),
int32 offsets (TTD106), no volatile, ranks 1 to 5; unless `allocator` is stated too, a base term without a
witness (`bos` loaded in the kernel, added unscaled) keeps the launch guard's answer, since `migrate verify`
could not test it at a launch. Triton itself rejects, when it compiles, a `bool` tensor; a block width the
launch chooses is tested when Triton compiles, masked pointers where it is under 16 bytes (TTD107). Only
launched kernels, and helpers whose `allocator` is stated, rely on facts; `--strict` relies on none, and
`--target pointer`, `--target compat` and a kernel tuned to `pointer` (`kernel-targets`) emit what they always
do.

The emitted code checks none of them: `migrate verify` does, at every launch it records, on the real
arguments, and names the first fact broken (kernel, argument, fact, value) before the migrated kernel runs.
Unless its `allocator` is stated, the kernel gets one decorator above `@triton.jit`, which gives each
launching thread the allocator that device-side descriptors need (per thread from Triton 3.5; autograd runs
backward on threads of its own) and checks nothing:

```python
@with_allocator
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, ...):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BM, BK])
```

`with_allocator` lives in `_triton_launch.py`, which `migrate --write` writes once per package, or beside
the migrated files of a folder that is no package (rules/_launch_support.py). `migrate report` lists each
such site with the facts it relies on and where they were stated. (The debug switch
`TRITON_MIGRATE_CHECK_FACTS` that earlier versions' hook read is gone: it checked nothing where `allocator`
was stated, and it put a check into every migrated package that `migrate verify` does better.)

`--target descriptor` is this, and nothing else: a descriptor where what it needs is proven or stated,
every other site left untouched with the fact that would make it migratable.

Example:

    # with `assume = ["aligned", "contiguous"]` in [tool.triton-migrate]
    a = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BM, 0), (BM, BK), (1, 0))
    # becomes
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, stride_ak], [BM, BK])

Fix safety: as safe as the facts stated: a wrong fact gives a fault or wrong data on the launches it does not hold
for, which `migrate verify` checks on recorded launches; JSON output marks such a fix unsafe and lists what it
relies on.

Fixtures: stated_facts_gemm, stated_facts_grouped_gemm (every fact: plain descriptors, no hook),
stated_facts_helper_parts (a block pointer passed to a helper whose `allocator` is stated), stated_facts_row_sums
(descriptor tiles summed: the note that they may round otherwise, docs/stated-facts.md "Reductions"),
stated_facts_widths (`widths` stated), stated_facts_autotune_widths and stated_facts_asserted_widths (widths
the code bounds: plain descriptors).
"""
from __future__ import annotations

from ._migrated import Migrated, words

CODE = "TTD010"
NAME = "stated-facts"
HOOK = "with_allocator"  # rules/_launch_support.py
SUMMARY = "tensor descriptor on facts the user stated (`assume`); `migrate verify` checks them"


def message(what: str, stem: str, facts: str, notes: str) -> str:
    return f"{what} → tensor descriptor `{stem}_desc` on stated facts ({facts}){notes}"


@words(order=4)
def migrated(site: Migrated) -> str | None:
    """A migrated site is this rule's where its descriptor relies on stated facts."""
    return message(site.what, site.stem, site.facts, site.notes) if site.facts else None


def stated(tensor: str, fact: str, expressions: list[str], where: str) -> str:
    """A fact a descriptor relies on, in words: what it means for this block pointer, and where it was stated."""
    listed = ", ".join(f"`{e}`" for e in expressions)
    meaning = {"aligned": f"its data{f', and {listed} × itemsize,' if listed else ''} multiples of 16 bytes",
               "contiguous": f"{listed} is 1",
               "aligned-rows": f"a row, {listed} × itemsize, a multiple of 16 bytes",
               "widths": f"a block's row, {listed} × itemsize, at least 16 bytes",
               "in-bounds": "no tile starts before it, and each lies inside it where its access does not "
                            "check the bounds (not checked at launch: tiles depend on program ids)"}[fact]
    return f"`{tensor}` stated `{fact}` ({where}): {meaning}"


def unstated(message: str, fact: str) -> str:
    """An obstacle's `message`, with the fact that would cover it named."""
    return f"{message}; no one stated `{fact}` for it, which a launched kernel's descriptor may rely on (TTD010)"


def stated_on_line(line: int) -> str:
    """Where a fact stated in the source was stated."""
    return f"`# migrate: assume` on line {line}"


def unknown_facts(line: int, unknown: list[str], facts) -> str:
    """A `# migrate: assume[...]` that states no fact this tool knows (`unknown`: what it states; `facts`: the
    known ones)."""
    return (f"line {line}: `# migrate: assume[...]` states {', '.join(map(repr, unknown)) or 'nothing'}; the facts "
            f"are {', '.join(facts)}")

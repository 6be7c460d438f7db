"""TTD009 launch-guard: a descriptor whose legality depends on the launch is chosen at launch.

What it does: the kernel gets a constexpr parameter, `USE_DESCRIPTORS: tl.constexpr = False`, which
`@launch_guard` (`@triton.heuristics` for one flag, with one Python frame less) sets on every launch from
the launch's own arguments, and every guarded access keeps both forms, chosen at compile time:

```python
@launch_guard(
    {"USE_DESCRIPTORS": lambda args: descriptor_fits(args["q"], args["BK"], args["H"] * args["K"], args["K"])}
)
@triton.jit
def kernel(q, ..., USE_DESCRIPTORS: tl.constexpr = False):
    p_q_desc = tl.make_tensor_descriptor(q + (bos * H + i_h) * K, ...) if USE_DESCRIPTORS else None
    b_q = p_q_desc.load([i_t * BT, 0]) if USE_DESCRIPTORS else tl.load(p_q_ptrs, mask=p_q_mask, other=0.0)
```

The check names a *witness* per term (`K` for `(bos * H + i_h) * K`: whatever `bos` is, the term is a multiple of
`K`; migrate/analysis/guards.py). Triton compiles one variant per value of the flag and caches both, so a launch
pays one host-side check and no device-side branch: on the H200, 3.5-3.8 µs over the original for a launch
that takes descriptors, 1.4-1.5 µs of which the descriptor form itself costs (Triton asks the allocator for
the descriptors' scratch memory at every launch; about 1 µs even with an allocator that does nothing)
(benchmarks/RESULTS.md). `launch_guard` and `descriptor_fits` live in `_triton_launch.py`, which `migrate --write`
writes once per package, or beside the migrated files of a folder that is no package, and the modules import
(rules/_launch_support.py). Where the check passes, the guard also installs an allocator (`triton.set_allocator`,
one scratch buffer per device and stream) in the launching thread when none is set there, which device-side
descriptors need on sm_90+ from any thread (from Triton 3.5 the allocator is per thread, and autograd runs
backward on threads of its own); a user's allocator is kept. Launched without the guard (the bare `kernel.fn`),
the flag's default keeps the masked pointers.

When it does not apply: in helpers (`@triton.jit` functions called by other ones; they have no launch),
where a term has no witness computed from the kernel's arguments (`pid * 3` added to the base), where
the masked-pointer fallback cannot express the access: such accesses use masked pointers (TTD006), with
the reason in the report. `--strict` never guards, `--target descriptor` never falls back (it refuses
what no one proved or stated); where the user stated the facts a descriptor needs, the kernel has no flag
and no fallback (TTD010).

Why: a device-side descriptor is legal on NVIDIA sm_90+ only if the tensor's data is 16-byte aligned,
every stride but the unit one and every offset added to the base is a multiple of 16 bytes, and the
innermost block holds at least 16 bytes. A view that starts mid-storage, a head dim of 60, a sequence
that starts at an odd row of a variable-length batch: each breaks one of these, and then a descriptor
faults ("misaligned address": tests/gpu_verify_facts.py shows it on a GPU) or reads wrong data, where
the block pointer ran.
The source cannot prove the data pointer's alignment, so no descriptor of the default output goes
unguarded.

Example:

    acc += tl.dot(tl.load(a, boundary_check=(0, 1)), b_tile)
    # becomes, in outline (the kernel gains `USE_DESCRIPTORS: tl.constexpr = False`, set by `@launch_guard`)
    acc += tl.dot((a_desc.load([a_off0, a_off1]) if USE_DESCRIPTORS else tl.load(p_a, mask=m_a)), b_tile)

Fix safety: safe: the descriptor runs only on launches whose arguments meet every condition it needs, checked on
the host; every other launch runs the masked pointers (TTD006).

Fixtures: launch_guard (and every fixture whose output has `USE_DESCRIPTORS`).
"""
from __future__ import annotations

from ._migrated import Migrated, words

CODE = "TTD009"
NAME = "launch-guard"
SUMMARY = "descriptor chosen at launch (`@launch_guard`), masked pointers otherwise"
FLAG = "USE_DESCRIPTORS"
GUARD = "launch_guard"  # rules/_launch_support.py
CHECK = "descriptor_fits"


def message(what: str, stem: str, notes: str) -> str:
    return f"{what} → tensor descriptor `{stem}_desc` where the launch allows it, masked pointers elsewhere{notes}"


@words(order=3)
def migrated(site: Migrated) -> str | None:
    """A migrated site is this rule's where the launch chooses its descriptor."""
    return message(site.what, site.stem, site.notes) if site.guarded else None


def checked(check: str) -> str:
    """The note that says what the launch checks (`check`, in words)."""
    return f"checked at launch: {check}"


def launch_check(tensor: str, width: str, multiples: list[str], unit_stride: str | None) -> str:
    """What the launch checks for a block pointer, in words."""
    facts = [f"`{tensor}` is 16-byte aligned", f"`{width}` elements hold 16 bytes or more"]
    facts += [f"`{m}` elements are a multiple of 16 bytes" for m in multiples]
    if unit_stride is not None:
        facts.append(f"`{unit_stride}` is 1")
    return ", ".join(facts)


# Why the analysis takes a function for one the host does not launch (no launch to check)
NOT_LAUNCHED = "this function is not launched from the host (it is called by other `@triton.jit` functions)"


def named_by(what: str) -> str:
    """A function that `what` (a helper's call elsewhere) names: taken for a helper."""
    return (f"{what} has this function's name, so it is taken for a helper of other `@triton.jit` functions, with "
            "no launch of its own to check")


# Why no launch check can be written for a block pointer
NO_UNIT_STRIDE = "no dimension has a unit stride"


def width_unchecked(width: str) -> str:
    return f"the innermost block width `{width}` is not computed from the kernel's arguments"


def unit_stride_unchecked(stride: str) -> str:
    return f"the unit stride `{stride}` is not one of the kernel's arguments"


def row_width_unchecked(width: str) -> str:
    return f"the row width `{width}` is not computed from the kernel's arguments"


def term_unchecked(term: str) -> str:
    return f"`{term}` is not a multiple of anything the kernel's arguments tell at launch"


def term_never_aligned(term: str) -> str:
    return f"`{term}` is never a multiple of 16 bytes"


def base_unchecked(base: str) -> str:
    return f"the base `{base}` is not a kernel argument plus offsets"


def base_of_several(base: str) -> str:
    return f"the base `{base}` is not one pointer argument plus offsets"


def argument_reassigned(name: str) -> str:
    return f"the pointer argument `{name}` is reassigned"

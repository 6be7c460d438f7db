"""TTD107 narrow-block: innermost block dimension may hold fewer than 16 bytes.

What it does: reports a block pointer whose innermost block dimension is a literal under 16 elements; no
descriptor is used for it.

Why: a descriptor's innermost block dimension must hold at least 16 bytes; `(BM, 1)`, `(BM, 8)`
with fp8/int8 or `(4,)` fp16 are rejected at trace time. Widening the block changes which elements are
masked and touched, so it is not a mechanical rewrite. Literal sizes under 16 elements are refused because
the element type is not visible in the source.

A width the launch chooses (`BK: tl.constexpr`) is known when Triton compiles the kernel, and so is the
element type: where a descriptor is plain (its other needs proven or stated, TTD010, or `--target descriptor`)
the function tests it at compile time, once at its top, and every access keeps both forms, laid out as the
launch guard's (TTD009) but with no check at launch and no parameter:

```python
def kernel(x_ptr, ..., BK: tl.constexpr):
    # a descriptor's block rows hold at least 16 bytes (128 bits)
    USE_DESCRIPTORS: tl.constexpr = BK * x_ptr.dtype.element_ty.primitive_bitwidth >= 128
    if USE_DESCRIPTORS:
        x_desc = tl.make_tensor_descriptor(x_ptr, [M, K], [stride_m, 1], [BM, BK])
    b = x_desc.load([i * BM, 0]) if USE_DESCRIPTORS else tl.load(x_ptrs, mask=x_mask, other=0.0)
```

Triton folds the test and compiles one form per width and type; a launch pays nothing. Where the code bounds
the width (every configuration of the kernel's `@triton.autotune` sets it to 16 or more, or `tl.static_assert(BK
>= 16)`: 16 bytes of a one-byte element) or the user states `widths` of the tensor (TTD010), the descriptor is
plain: no test, no masked pointers. Where a width cannot be tested at the function's top (computed in it), the
accesses use masked pointers (`--target descriptor`, which never falls back, leaves them untouched). The launch
guard (TTD009) checks widths at launch with the rest (`descriptor_fits`).

Example:

    p = tl.make_block_ptr(x, (M, N), (stride_m, 1), (0, 0), (BM, 8), (1, 0))
    # masked pointers (TTD006); a width the launch chooses (`BK: tl.constexpr`) is tested when Triton compiles

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: rank1 (wide), small_last_block_refused (a literal 2), stated_facts_narrow_block (a constexpr width
under stated facts), stated_facts_narrow_config_widths and stated_facts_computed_configs_widths (autotuned widths
that prove nothing), stated_facts_autotune_widths, stated_facts_asserted_widths and stated_facts_widths (widths
bounded or stated: no test), narrow block cases in the property test.
"""

from __future__ import annotations

CODE = "TTD107"
NAME = "narrow-block"
SUMMARY = "innermost block dimension may hold fewer than 16 bytes"
UNTESTED = ("the innermost block width is not a kernel parameter's (computed in the function), so no "
            "compile-time test at its top can tell whether it holds the 16 bytes a descriptor needs")
TESTED = "masked pointers where its innermost block holds fewer than 16 bytes, which Triton tells when it compiles"
FLAG = "WIDE_BLOCKS"  # the test's name where the launch guard's flag (TTD009) is taken


def too_narrow(width: int | None) -> bool:
    """`width`: the innermost block dimension's elements, where it is a literal."""
    return width is not None and width < 16


def message(width: int) -> str:
    return f"innermost block dimension of {width} elements may hold fewer than the 16 bytes a descriptor needs"

"""TTD119 pipelined-creation: a descriptor would be created in each pass of a loop that Triton pipelines.

What it does: reports a block pointer created inside a loop that calls `tl.dot`, from arguments the loop
changes (`hc + i * stride_h`), so that its descriptor could not be created once before the loop; no
descriptor (nor a compat tile's descriptor) is used for it.

Why: Triton pipelines the loads of a loop that feeds `tl.dot`, and its pipeliner cannot predicate the
`tensormap_create` that a device-side descriptor created there writes: for sm_90, Triton 3.6 and 3.8 stop with
"'ttng.tensormap_create' op pipeliner doesn't know how to predicate this op" (PassManager::run failed), a
compile error at the first launch on the GPU that the interpreter never shows. flash-linear-attention's
path-attention backward (`chunk_cumprod_householder_bwd_kernel`, its `hc_suffix + i_t_small * stride_h` tile)
failed so under `--target compat` on the H100. A creation whose arguments the loop does not change is created
before it (TTD001), or hoisted by Triton's own loop-invariant code motion, and compiles.

Example:

    for i_t in range(0, NT):
        p_hc = tl.make_block_ptr(hc + i_t * stride_h, (K, K), (K, 1), (0, 0), (BK, BK), (1, 0))
        b_dk -= tl.dot(b_k, tl.load(p_hc, boundary_check=(0, 1)))
    # masked pointers (TTD006); under --target compat the tile is always the emulation ("emu")

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, the emulation under
`--target compat`, or is left untouched under `--target descriptor`, with this code as the reason.

Fixtures: pipelined_creation_compat.
"""
CODE = "TTD119"
NAME = "pipelined-creation"
SUMMARY = "a descriptor created in each pass of a loop that Triton pipelines (one with `tl.dot`)"
MESSAGE = ("created in each pass of a loop with `tl.dot`, from arguments the loop changes: Triton's pipeliner "
           "cannot compile a descriptor created there for sm_90")

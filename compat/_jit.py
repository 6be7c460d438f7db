"""The ``@triton.jit`` helpers of the shim.

Rules this file follows (semantics brief, section 6 and 5.4):

* Every jit body names only ``tl`` attributes that exist in the installed Triton.  Triton <= 3.4 resolves each
  ``tl.X`` of a jit body while hashing it, even inside a branch a constexpr makes dead, so the descriptor and
  block-pointer bodies are *defined* only where the installed Triton has them; elsewhere a stub of the same name
  stands in and fails at trace time with a clear message.
* No module-level aliases of ``tl`` builtins (the interpreter only patches ``tl.X`` attribute lookups).
* Globals read inside jit code are ``tl.constexpr``.
* Constexprs do not survive being *returned* from a jit function in compiled mode (the interpreter accepts it,
  the compiler does not).  The handle therefore carries everything static in tensor *types*: ``ranges`` holds one
  ``tl.arange(0, B_i)`` per dimension (block shape), and ``meta`` is a tiny int8 tensor whose shape encodes the
  implementation and the padding.  The compiler removes both as dead values.

Handle layout (a tuple; position-free -- offsets are plain integers the kernel carries):
``(obj, base, shape, strides, ranges, meta)`` where ``obj`` is the tensor descriptor (desc), the block pointer at
offset 0 (bp) or the base pointer again (emu); ``shape``/``strides``/``ranges`` are tuples of the tile rank.
"""

import triton
import triton.language as tl

from . import _features

# --- constexpr globals readable from jit code ------------------------------------------------------------------
HAS_DESC = tl.constexpr(_features.HAS_DESC)
HAS_DESC_PADDING = tl.constexpr(_features.HAS_DESC_PADDING)
HAS_BP = tl.constexpr(_features.HAS_BP)
#: the implementation chosen at import time (environment override included): "desc", "bp" or "emu"
DEFAULT_IMPL = tl.constexpr(_features.DEFAULT_IMPL)
AUTO = tl.constexpr("auto")
DESC = tl.constexpr("desc")
BP = tl.constexpr("bp")
EMU = tl.constexpr("emu")

_NAN_BITS = tl.constexpr(0x7FC00000)  # fp32 quiet NaN; a NaN constexpr global would fail the JIT's
# "global changed" check (nan != nan)

# meta-tag codes (tensor dims must be powers of two)
_K_DESC = tl.constexpr(1)
_K_BP = tl.constexpr(2)
_K_EMU = tl.constexpr(4)
_P_NONE = tl.constexpr(1)
_P_ZERO = tl.constexpr(2)
_P_NAN = tl.constexpr(4)


# ================================================================================================================
# emulation: pointer + mask per dimension, exactly the 3.8 ``_block_ptr._materialize`` semantics
# (int64 coordinates, mask ``0 <= coord < shape`` on the checked dimensions only, ``other`` from the padding)
# ================================================================================================================


@triton.jit
def _inside(coords, extent):
    """``0 <= coords < extent`` as one unsigned comparison: a negative coordinate wraps past every extent, and a
    negative extent, clamped at 0, admits nothing (two comparisons and an ``&`` cost a chunked kernel 7-12 % on
    an H200: benchmarks/RESULTS.md)."""
    return coords.to(tl.uint64) < tl.maximum(tl.cast(extent, tl.int64), 0)


@triton.jit
def _emu_ptrs_mask(base, shape, strides, ranges, offsets, C0: tl.constexpr, C1: tl.constexpr, C2: tl.constexpr):
    RANK: tl.constexpr = len(ranges)
    tl.static_assert(RANK >= 1 and RANK <= 3, "triton_migrate.compat: the emulation supports ranks 1 to 3")
    tl.static_assert(len(offsets) == RANK, "triton_migrate.compat: offsets must have one entry per dimension")
    if RANK == 1:
        c0 = tl.cast(offsets[0], tl.int64) + ranges[0]
        ptrs = base + c0 * tl.cast(strides[0], tl.int64)
        mask = c0 == c0
        if C0:
            mask = _inside(c0, shape[0])
    elif RANK == 2:
        c0 = tl.expand_dims(tl.cast(offsets[0], tl.int64) + ranges[0], 1)
        c1 = tl.expand_dims(tl.cast(offsets[1], tl.int64) + ranges[1], 0)
        ptrs = base + c0 * tl.cast(strides[0], tl.int64) + c1 * tl.cast(strides[1], tl.int64)
        m0 = _inside(c0, shape[0])
        m1 = _inside(c1, shape[1])
        if C0:
            if C1:
                mask = m0 & m1
            else:
                mask = m0 & (c1 == c1)
        else:
            if C1:
                mask = (c0 == c0) & m1
            else:
                mask = (c0 == c0) & (c1 == c1)
    else:
        c0 = tl.expand_dims(tl.expand_dims(tl.cast(offsets[0], tl.int64) + ranges[0], 1), 2)
        c1 = tl.expand_dims(tl.expand_dims(tl.cast(offsets[1], tl.int64) + ranges[1], 0), 2)
        c2 = tl.expand_dims(tl.expand_dims(tl.cast(offsets[2], tl.int64) + ranges[2], 0), 1)
        ptrs = (base + c0 * tl.cast(strides[0], tl.int64) + c1 * tl.cast(strides[1], tl.int64)
                + c2 * tl.cast(strides[2], tl.int64))
        t0 = c0 == c0
        t1 = c1 == c1
        t2 = c2 == c2
        if C0:
            t0 = _inside(c0, shape[0])
        if C1:
            t1 = _inside(c1, shape[1])
        if C2:
            t2 = _inside(c2, shape[2])
        mask = t0 & t1 & t2
    return ptrs, mask


@triton.jit
def _emu_load(base, shape, strides, ranges, offsets, C0: tl.constexpr, C1: tl.constexpr, C2: tl.constexpr,
              PADK: tl.constexpr):
    ptrs, mask = _emu_ptrs_mask(base, shape, strides, ranges, offsets, C0, C1, C2)
    ANY: tl.constexpr = C0 or C1 or C2
    if not ANY:
        return tl.load(ptrs)
    elif PADK == _P_NAN:
        return tl.load(ptrs, mask=mask, other=tl.full((), _NAN_BITS, tl.uint32).to(tl.float32, bitcast=True))
    elif PADK == _P_ZERO:
        if base.dtype.element_ty.is_floating():
            return tl.load(ptrs, mask=mask, other=0.0)
        else:
            return tl.load(ptrs, mask=mask, other=0)
    else:
        return tl.load(ptrs, mask=mask)


@triton.jit
def _emu_store(base, shape, strides, ranges, offsets, value, C0: tl.constexpr, C1: tl.constexpr,
               C2: tl.constexpr):
    ptrs, mask = _emu_ptrs_mask(base, shape, strides, ranges, offsets, C0, C1, C2)
    v = tl.broadcast_to(value.to(base.dtype.element_ty), ptrs.shape)
    ANY: tl.constexpr = C0 or C1 or C2
    if ANY:
        tl.store(ptrs, v, mask=mask)
    else:
        tl.store(ptrs, v)


# ================================================================================================================
# tensor descriptors (3.4+) and native block pointers (<= 3.8): defined only where they exist
# ================================================================================================================

@triton.jit
def _broadcast_to_ranges(v, ranges):
    RANK: tl.constexpr = len(ranges)
    if RANK == 1:
        return tl.broadcast_to(v, (ranges[0].shape[0], ))
    elif RANK == 2:
        return tl.broadcast_to(v, (ranges[0].shape[0], ranges[1].shape[0]))
    elif RANK == 3:
        return tl.broadcast_to(v, (ranges[0].shape[0], ranges[1].shape[0], ranges[2].shape[0]))
    elif RANK == 4:
        return tl.broadcast_to(v, (ranges[0].shape[0], ranges[1].shape[0], ranges[2].shape[0], ranges[3].shape[0]))
    else:
        return tl.broadcast_to(v, (ranges[0].shape[0], ranges[1].shape[0], ranges[2].shape[0], ranges[3].shape[0],
                                   ranges[4].shape[0]))


if _features.HAS_DESC:

    @triton.jit
    def _desc_new(base, shape, strides, block_shape, PADK: tl.constexpr):
        if PADK == _P_NAN:
            return tl.make_tensor_descriptor(base, shape, strides, block_shape, padding_option="nan")
        else:
            return tl.make_tensor_descriptor(base, shape, strides, block_shape)

    @triton.jit
    def _desc_make(base, shape, strides, block_shape, PADK: tl.constexpr):
        # strides as a list literal: the 3.4 frontend assigns ``strides[-1] = ...`` in place, which the Python tuple
        # the interpreter passes rejects ("'tuple' object does not support item assignment").  Built here and passed
        # down, not returned from a helper: a returned constexpr last stride stops being a constexpr on <= 3.6.
        RANK: tl.constexpr = len(strides)
        if RANK == 1:
            return _desc_new(base, shape, [strides[0]], block_shape, PADK)
        elif RANK == 2:
            return _desc_new(base, shape, [strides[0], strides[1]], block_shape, PADK)
        elif RANK == 3:
            return _desc_new(base, shape, [strides[0], strides[1], strides[2]], block_shape, PADK)
        elif RANK == 4:
            return _desc_new(base, shape, [strides[0], strides[1], strides[2], strides[3]], block_shape, PADK)
        else:
            return _desc_new(base, shape, [strides[0], strides[1], strides[2], strides[3], strides[4]], block_shape,
                             PADK)

    @triton.jit
    def _desc_load(d, offsets):
        return d.load(offsets)

    @triton.jit
    def _desc_store(d, offsets, value):
        # 3.4 does not cast, and the value must have the block shape (a scalar is not broadcast)
        d.store(offsets, tl.broadcast_to(value.to(d.dtype), d.block_shape))

else:

    @triton.jit
    def _desc_make(base, shape, strides, block_shape, PADK: tl.constexpr):
        tl.static_assert(False, "triton_migrate.compat: this Triton has no tl.make_tensor_descriptor")

    @triton.jit
    def _desc_load(d, offsets):
        tl.static_assert(False, "triton_migrate.compat: this Triton has no tensor descriptors")

    @triton.jit
    def _desc_store(d, offsets, value):
        tl.static_assert(False, "triton_migrate.compat: this Triton has no tensor descriptors")


if _features.HAS_BP:

    @triton.jit
    def _bp_make(base, shape, strides, block_shape):
        RANK: tl.constexpr = len(block_shape)
        if RANK == 1:
            return tl.make_block_ptr(base, shape, strides, (0, ), block_shape, (0, ))
        elif RANK == 2:
            return tl.make_block_ptr(base, shape, strides, (0, 0), block_shape, (1, 0))
        elif RANK == 3:
            return tl.make_block_ptr(base, shape, strides, (0, 0, 0), block_shape, (2, 1, 0))
        elif RANK == 4:
            return tl.make_block_ptr(base, shape, strides, (0, 0, 0, 0), block_shape, (3, 2, 1, 0))
        else:
            return tl.make_block_ptr(base, shape, strides, (0, 0, 0, 0, 0), block_shape, (4, 3, 2, 1, 0))

    @triton.jit
    def _bp_load(bp, offsets, BC: tl.constexpr, PADK: tl.constexpr):
        p = tl.advance(bp, offsets)
        if PADK == _P_NAN:
            return tl.load(p, boundary_check=BC, padding_option="nan")
        elif PADK == _P_ZERO:
            return tl.load(p, boundary_check=BC, padding_option="zero")
        else:
            return tl.load(p, boundary_check=BC)

    @triton.jit
    def _bp_store(bp, base, offsets, value, BC: tl.constexpr, ranges):
        # <= 3.7 requires the exact pointee dtype, and a tile of the block shape
        v = _broadcast_to_ranges(value.to(base.dtype.element_ty), ranges)
        tl.store(tl.advance(bp, offsets), v, boundary_check=BC)

else:

    @triton.jit
    def _bp_make(base, shape, strides, block_shape):
        tl.static_assert(False, "triton_migrate.compat: this Triton has no working block pointers")

    @triton.jit
    def _bp_load(bp, offsets, BC: tl.constexpr, PADK: tl.constexpr):
        tl.static_assert(False, "triton_migrate.compat: this Triton has no working block pointers")

    @triton.jit
    def _bp_store(bp, base, offsets, value, BC: tl.constexpr, ranges):
        tl.static_assert(False, "triton_migrate.compat: this Triton has no working block pointers")


# ================================================================================================================
# public API
# ================================================================================================================


# The defaults are constexpr objects, not plain strings: Triton <= 3.6 wraps an omitted argument's default in a
# constexpr only for numbers and dtypes, so a str default reaches the compiler bare ("'str' object has no attribute
# 'type'"); the interpreter and 3.7+ accept either.
@triton.jit
def make_tile(base, shape, strides, block_shape, padding_option: tl.constexpr = tl.constexpr("zero"),
              impl: tl.constexpr = AUTO):
    """Create a position-free tile handle over ``base`` (like ``make_block_ptr`` without offsets/order).

    ``shape``/``strides``/``block_shape`` are tuples of the same rank; ``padding_option`` is ``""``, ``"zero"`` or
    ``"nan"``; ``impl`` is ``"auto"`` (the import-time default), ``"desc"``, ``"bp"`` or ``"emu"``.  With ``desc``
    the last stride must be a compile-time 1.  Accesses a descriptor cannot express exactly (a last block dim under
    16 bytes, ``bool`` data, ``nan`` padding without descriptor padding support, rank > 5) use the emulation.
    """
    RANK: tl.constexpr = len(block_shape)
    tl.static_assert(len(shape) == RANK and len(strides) == RANK,
                     "triton_migrate.compat.make_tile: shape, strides and block_shape need the same length")
    if padding_option == "nan":
        PADK: tl.constexpr = _P_NAN
    elif padding_option == "zero":
        PADK: tl.constexpr = _P_ZERO
    else:
        tl.static_assert(padding_option == "", "triton_migrate.compat: padding_option must be '', 'zero' or 'nan'")
        PADK: tl.constexpr = _P_NONE
    if impl == "auto":
        WANT: tl.constexpr = DEFAULT_IMPL
    else:
        tl.static_assert(impl == "desc" or impl == "bp" or impl == "emu",
                         "triton_migrate.compat: impl must be 'auto', 'desc', 'bp' or 'emu'")
        WANT: tl.constexpr = impl
    ELT: tl.constexpr = base.dtype.element_ty
    if RANK == 1:
        ranges = (tl.arange(0, block_shape[0]), )
    elif RANK == 2:
        ranges = (tl.arange(0, block_shape[0]), tl.arange(0, block_shape[1]))
    elif RANK == 3:
        ranges = (tl.arange(0, block_shape[0]), tl.arange(0, block_shape[1]), tl.arange(0, block_shape[2]))
    elif RANK == 4:
        ranges = (tl.arange(0, block_shape[0]), tl.arange(0, block_shape[1]), tl.arange(0, block_shape[2]),
                  tl.arange(0, block_shape[3]))
    else:
        tl.static_assert(RANK == 5, "triton_migrate.compat: ranks 1 to 5 only (the emulation: 1 to 3)")
        ranges = (tl.arange(0, block_shape[0]), tl.arange(0, block_shape[1]), tl.arange(0, block_shape[2]),
                  tl.arange(0, block_shape[3]), tl.arange(0, block_shape[4]))
    # static eligibility of the descriptor path (runtime eligibility is the host guard's job)
    DESC_OK: tl.constexpr = (HAS_DESC and RANK <= 5 and ELT.primitive_bitwidth > 1
                             and block_shape[RANK - 1] * ELT.primitive_bitwidth >= 128
                             and (PADK != _P_NAN or HAS_DESC_PADDING))
    if WANT == "desc" and DESC_OK:
        return (_desc_make(base, shape, strides, block_shape, PADK), base, shape, strides, ranges,
                tl.zeros((_K_DESC, PADK), tl.int8))
    elif WANT == "bp":
        return (_bp_make(base, shape, strides, block_shape), base, shape, strides, ranges,
                tl.zeros((_K_BP, PADK), tl.int8))
    else:
        return (base, base, shape, strides, ranges, tl.zeros((_K_EMU, PADK), tl.int8))


@triton.jit
def load(h, offsets, boundary_check=None):
    """Load the tile at ``offsets`` (a tuple of integers).

    ``boundary_check=None`` checks every dimension (the only thing a descriptor does); a tuple of dimensions
    checks exactly those, as a block pointer does (a subset on a descriptor handle uses the exact emulation).
    Masked lanes get the handle's padding.
    """
    KIND: tl.constexpr = h[5].shape[0]
    PADK: tl.constexpr = h[5].shape[1]
    RANK: tl.constexpr = len(h[4])
    # no reassigned locals here: Triton 3.6 turns constexprs reassigned in static loops into tensors
    B: tl.constexpr = (0, 1, 2, 3, 4, -1) if boundary_check is None else boundary_check + (-1, -1, -1, -1, -1, -1)
    NCHK: tl.constexpr = RANK if boundary_check is None else len(boundary_check)
    tl.static_assert(NCHK <= RANK, "triton_migrate.compat: boundary_check has more entries than dimensions")
    c0: tl.constexpr = B[0] == 0 or B[1] == 0 or B[2] == 0
    c1: tl.constexpr = B[0] == 1 or B[1] == 1 or B[2] == 1
    c2: tl.constexpr = B[0] == 2 or B[1] == 2 or B[2] == 2
    ALL: tl.constexpr = NCHK == RANK
    if KIND == _K_DESC and ALL:
        return _desc_load(h[0], offsets)
    elif KIND == _K_BP:
        if boundary_check is None:
            if RANK == 1:
                return _bp_load(h[0], offsets, (0, ), PADK)
            elif RANK == 2:
                return _bp_load(h[0], offsets, (0, 1), PADK)
            elif RANK == 3:
                return _bp_load(h[0], offsets, (0, 1, 2), PADK)
            elif RANK == 4:
                return _bp_load(h[0], offsets, (0, 1, 2, 3), PADK)
            else:
                return _bp_load(h[0], offsets, (0, 1, 2, 3, 4), PADK)
        elif NCHK == 0:
            # 3.8's block pointer rejects a padding with nothing checked ("`other` cannot be provided without `mask`")
            return _bp_load(h[0], offsets, boundary_check, _P_NONE)
        else:
            return _bp_load(h[0], offsets, boundary_check, PADK)
    else:
        return _emu_load(h[1], h[2], h[3], h[4], offsets, c0, c1, c2, PADK)


@triton.jit
def store(h, offsets, value, boundary_check=None):
    """Store ``value`` (cast to the element type, broadcast to the block) at ``offsets``; see :func:`load`."""
    KIND: tl.constexpr = h[5].shape[0]
    RANK: tl.constexpr = len(h[4])
    # no reassigned locals here: Triton 3.6 turns constexprs reassigned in static loops into tensors
    B: tl.constexpr = (0, 1, 2, 3, 4, -1) if boundary_check is None else boundary_check + (-1, -1, -1, -1, -1, -1)
    NCHK: tl.constexpr = RANK if boundary_check is None else len(boundary_check)
    tl.static_assert(NCHK <= RANK, "triton_migrate.compat: boundary_check has more entries than dimensions")
    c0: tl.constexpr = B[0] == 0 or B[1] == 0 or B[2] == 0
    c1: tl.constexpr = B[0] == 1 or B[1] == 1 or B[2] == 1
    c2: tl.constexpr = B[0] == 2 or B[1] == 2 or B[2] == 2
    ALL: tl.constexpr = NCHK == RANK
    if KIND == _K_DESC and ALL:
        _desc_store(h[0], offsets, value)
    elif KIND == _K_BP:
        if boundary_check is None:
            if RANK == 1:
                _bp_store(h[0], h[1], offsets, value, (0, ), h[4])
            elif RANK == 2:
                _bp_store(h[0], h[1], offsets, value, (0, 1), h[4])
            elif RANK == 3:
                _bp_store(h[0], h[1], offsets, value, (0, 1, 2), h[4])
            elif RANK == 4:
                _bp_store(h[0], h[1], offsets, value, (0, 1, 2, 3), h[4])
            else:
                _bp_store(h[0], h[1], offsets, value, (0, 1, 2, 3, 4), h[4])
        else:
            _bp_store(h[0], h[1], offsets, value, boundary_check, h[4])
    else:
        _emu_store(h[1], h[2], h[3], h[4], offsets, value, c0, c1, c2)


@triton.jit
def advance(offsets, deltas):
    """``tl.advance`` for position-free handles: element-wise ``offsets + deltas`` (tuples of one rank)."""
    RANK: tl.constexpr = len(offsets)
    tl.static_assert(len(deltas) == RANK, "triton_migrate.compat.advance: offsets and deltas differ in length")
    if RANK == 1:
        return (offsets[0] + deltas[0], )
    elif RANK == 2:
        return (offsets[0] + deltas[0], offsets[1] + deltas[1])
    elif RANK == 3:
        return (offsets[0] + deltas[0], offsets[1] + deltas[1], offsets[2] + deltas[2])
    elif RANK == 4:
        return (offsets[0] + deltas[0], offsets[1] + deltas[1], offsets[2] + deltas[2], offsets[3] + deltas[3])
    else:
        return (offsets[0] + deltas[0], offsets[1] + deltas[1], offsets[2] + deltas[2], offsets[3] + deltas[3],
                offsets[4] + deltas[4])


@triton.jit
def impl_of(h):
    """The implementation behind a handle, as a scalar int32: 1 desc, 2 bp, 4 emu (for tests and debugging)."""
    return tl.full((), h[5].shape[0], tl.int32)

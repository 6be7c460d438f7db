"""Host-side runtime guard: is the tensor-descriptor path legal and safe for these tensors on this device?

Duck-typed (anything with ``data_ptr()``, ``stride()``, ``shape`` and ``element_size()``), so this module does
not import torch.  Rules (semantics brief 1.4, D5, D6, D7, D12, D15):

* unit last stride; rank 1..5;
* base address a multiple of 16 bytes, every other stride x itemsize a multiple of 16 bytes -- enforced by the
  interpreter and required by NVIDIA TMA (sm_90+), where a violation is a ``misaligned address`` fault or silent
  wrong data; pre-Hopper NVIDIA and AMD CDNA rewrite descriptors to pointers and do not need it;
* TMA stores (NVIDIA sm_90+) write whole 16-byte chunks: a stored tensor whose last extent x itemsize is not a
  multiple of 16 has its neighbours overwritten (triton#11583);
* descriptor shapes are int32 (larger values are truncated without error) and offsets must be int32;
* no ``bool`` data, and (where the block shape is given) an innermost block of at least 16 bytes: descriptors reject
  both everywhere.  The shim already emulates such tiles one by one at trace time; the verdict says so too, so that
  a guard and the codemod's default output refuse the same launches.

What the guard cannot see: offsets the kernel adds to a base pointer (``q + (bos * H + i_h) * K``).  A tile whose
base carries one must be proven aligned in the source, or use ``impl="emu"``: ``migrate --target compat`` pins
``"emu"`` on every tile whose base offset it cannot prove a multiple of 16 bytes.

What the guard cannot see: inner *offsets* that are not multiples of 16 bytes, and negative store offsets (both
trap on TMA).  Keep tile offsets multiples of the block, with blocks of at least 16 bytes in the last dimension.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
from dataclasses import dataclass, field

from . import _features

log = logging.getLogger("triton_migrate.compat")

INT32_MAX = 2**31 - 1

#: device profiles: which rule sets apply
TMA = "nvidia-tma"  # NVIDIA capability >= 9: every rule
INTERPRETER = "interpreter"  # alignment asserted; stores exact
POINTER = "pointer"  # descriptors lowered to pointers (sm < 90, AMD CDNA, Intel fallback): unit stride + int32
UNKNOWN = "unknown"  # treated like TMA (conservative)


@dataclass
class Verdict:
    ok: bool
    reasons: list = field(default_factory=list)
    profile: str = UNKNOWN

    def __bool__(self) -> bool:
        return self.ok


def _interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "on", "yes")


def device_profile(tensor=None) -> str:
    """Which rule set applies to launches on ``tensor``'s device (or the current device)."""
    if _interpreting():
        return INTERPRETER
    dev = getattr(tensor, "device", None)
    dtype = getattr(dev, "type", None)
    if dtype == "cpu":
        return INTERPRETER  # only the interpreter can run on CPU tensors
    if dtype not in (None, "cuda"):
        return POINTER if dtype == "xpu" else UNKNOWN
    try:
        import torch
    except ImportError:  # pragma: no cover
        return UNKNOWN
    if not torch.cuda.is_available():
        return UNKNOWN
    index = dev.index if dev is not None and dev.index is not None else torch.cuda.current_device()
    if getattr(torch.version, "hip", None):
        arch = getattr(torch.cuda.get_device_properties(index), "gcnArchName", "")
        # gfx1250/1251 keep descriptors (TDM): treat conservatively
        return UNKNOWN if arch.startswith("gfx125") else POINTER
    major, _ = torch.cuda.get_device_capability(index)
    return TMA if major >= 9 else POINTER


def check_tensor(t, *, store: bool = False, profile: str | None = None, block=None, name: str = "tensor") -> Verdict:
    """Check one tensor for the descriptor path. ``store=True`` adds the TMA store row-width rule."""
    profile = profile or device_profile(t)
    reasons = []
    shape = tuple(int(s) for s in t.shape)
    strides = tuple(int(s) for s in t.stride())
    itemsize = int(t.element_size())
    rank = len(shape)
    if not 1 <= rank <= 5:
        reasons.append(f"{name}: rank {rank} (descriptors take 1 to 5)")
    if rank and strides[-1] != 1:
        reasons.append(f"{name}: last stride {strides[-1]} != 1")
    if str(getattr(t, "dtype", "")).endswith("bool"):
        reasons.append(f"{name}: bool data (descriptors reject it)")
    block = tuple(block) if block is not None else ()
    if block and int(block[-1]) * itemsize < 16:
        reasons.append(f"{name}: innermost block of {block[-1]} x {itemsize} B under the 16 bytes a descriptor needs")
    for i, s in enumerate(shape):
        lim = INT32_MAX - (int(block[i]) if i < len(block) else 0)
        if s > lim:
            reasons.append(f"{name}: dim {i} extent {s} does not fit int32 shapes/offsets")
    if profile in (TMA, INTERPRETER, UNKNOWN):
        ptr = int(t.data_ptr())
        if ptr % 16:
            reasons.append(f"{name}: base address {ptr:#x} not 16-byte aligned (misaligned by {ptr % 16})")
        for i, s in enumerate(strides[:-1]):
            if (s * itemsize) % 16:
                reasons.append(f"{name}: stride[{i}]={s} x {itemsize} B = {s * itemsize} B not a multiple of 16")
    if store and profile in (TMA, UNKNOWN) and rank:
        row = shape[-1] * itemsize
        if row % 16:
            reasons.append(f"{name}: TMA store of rows of {shape[-1]} x {itemsize} B = {row} B overruns to the next "
                           "16-byte boundary (triton#11583)")
    return Verdict(not reasons, reasons, profile)


def check(tensors, stores=(), *, profile: str | None = None, blocks=None) -> Verdict:
    """Check several tensors. ``tensors``: mapping name -> tensor (or a sequence); ``stores``: names (or the
    tensors themselves) that the kernel writes; ``blocks``: optional mapping name -> block shape."""
    if not isinstance(tensors, dict):
        tensors = {f"arg{i}": t for i, t in enumerate(tensors)}
    store_ids = {id(s) for s in stores if not isinstance(s, str)}
    store_names = {s for s in stores if isinstance(s, str)}
    blocks = blocks or {}
    reasons = []
    prof = profile
    for name, t in tensors.items():
        p = profile or device_profile(t)
        prof = prof or p
        v = check_tensor(t, store=(name in store_names or id(t) in store_ids), profile=p, block=blocks.get(name),
                         name=name)
        reasons += v.reasons
    return Verdict(not reasons, reasons, prof or device_profile())


def choose_impl(verdict) -> str:
    """The implementation a guarded launch should use: the import-time default unless that is ``desc`` and the
    verdict says the descriptor path is unsafe, in which case ``emu``."""
    default = _features.DEFAULT_IMPL
    if default == "desc" and not bool(verdict):
        return "emu"
    return default


def _is_tensor(x) -> bool:
    return all(hasattr(x, a) for a in ("data_ptr", "stride", "element_size", "shape"))


def _diagnostics_on(flag) -> bool:
    if flag is not None:
        return bool(flag)
    return os.environ.get(_features.ENV_LOG, "0").lower() in ("1", "true", "on", "yes")


class _Guarded:
    """Launch proxy: ``guarded_kernel[grid](*args, **kwargs)``."""

    def __init__(self, fn, impl_arg, stores, only, select, diagnose, allocator):
        self.kernel = fn  # not `fn`: a JITFunction has its own `.fn` attribute
        self.impl_arg = impl_arg
        self.stores = tuple(stores)
        self.only = tuple(only) if only else None
        self.select = select
        self.diagnose = diagnose
        self.allocator = allocator
        self.last_impl = None
        self.last_verdict = None
        self.is_kernel = hasattr(fn, "arg_names") and hasattr(fn, "run")
        if self.is_kernel:
            self.arg_names = list(fn.arg_names)
            if select and impl_arg not in self.arg_names:
                raise TypeError(f"guarded kernel {getattr(fn, '__name__', fn)} has no parameter {impl_arg!r} "
                                "(declare it as `IMPL: tl.constexpr` and pass it to compat.make_tile)")
        else:
            self.sig = inspect.signature(fn)
        functools.update_wrapper(self, fn, updated=())  # copy the name/doc, never the JITFunction's __dict__

    def _bind(self, args, kwargs):
        if self.is_kernel:
            named = dict(zip(self.arg_names, args))
            named.update(kwargs)
            return named
        b = self.sig.bind_partial(*args, **kwargs)
        return dict(b.arguments)

    def _prepare(self, args, kwargs):
        named = self._bind(args, kwargs)
        tensors = {k: v for k, v in named.items() if _is_tensor(v) and (self.only is None or k in self.only)}
        verdict = check(tensors, self.stores)
        impl = choose_impl(verdict)
        self.last_verdict, self.last_impl = verdict, impl
        if not verdict.ok and _diagnostics_on(self.diagnose):
            log.warning("%s: descriptor path unsafe on %s (%s)%s", getattr(self.kernel, "__name__", self.kernel),
                        verdict.profile, "; ".join(verdict.reasons),
                        f"; using {impl}" if self.select else "")
        if self.select and self.impl_arg not in kwargs:
            kwargs = dict(kwargs)
            kwargs[self.impl_arg] = impl
        if self.allocator and (impl == "desc" or not self.select):
            from .allocator import ensure_allocator
            ensure_allocator()
        return kwargs

    def __getitem__(self, grid):
        if not self.is_kernel:
            raise TypeError("only a guarded @triton.jit kernel can be indexed with a grid")

        def launch(*args, **kwargs):
            kwargs = self._prepare(args, kwargs)
            return self.kernel[grid](*args, **kwargs)

        return launch

    def __call__(self, *args, **kwargs):
        if self.is_kernel:
            raise TypeError("launch a guarded kernel as kernel[grid](...)")
        kwargs = self._prepare(args, kwargs)
        return self.kernel(*args, **kwargs)


def guard(fn=None, *, impl_arg: str = "IMPL", stores=(), only=None, select: bool = True, diagnose=None,
          allocator: bool = True):
    """Decorate a ``@triton.jit`` kernel (put it above ``@triton.jit``) or a Python launcher function.

    On each launch the tensors among the arguments are checked (:func:`check`; ``stores`` names the ones the kernel
    writes, ``only`` restricts the check to some arguments).  With ``select=True`` the keyword ``impl_arg`` is set
    to ``"desc"`` or ``"emu"`` (a constexpr, so both variants compile and cache; an explicit value from the caller
    wins).  With ``select=False`` nothing is changed and only diagnostics are produced.  ``diagnose`` (default: the
    ``TRITON_MIGRATE_COMPAT_LOG`` environment variable) logs every unsafe launch on the ``triton_migrate.compat``
    logger.  ``allocator=True`` calls :func:`ensure_allocator` in the launching thread when descriptors may be used.
    """

    def wrap(f):
        return _Guarded(f, impl_arg, stores, only, select, diagnose, allocator)

    return wrap(fn) if fn is not None else wrap

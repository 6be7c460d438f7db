"""``ensure_allocator()``: install a torch-backed ``triton.set_allocator`` only where device-side descriptors need it.

Needed only on NVIDIA capability >= 9.0 (device-side descriptors write a 128-byte CUtensorMap into global scratch);
never in the interpreter, on AMD (descriptors live in registers or become pointers), on Intel XPU, or before Hopper.
From Triton 3.5 the allocator is a ``ContextVar``: each thread (and each ``contextvars`` context) must set it, so
call this in the launching thread -- the guard does so on every launch.  torch is imported only when a decision
needs it.  Do not call it inside ``torch.compile`` regions (it graph-breaks there).
"""

from __future__ import annotations

import contextvars
import os

import triton

INSTALLED = "installed"
ALREADY_SET = "already-set"


class TorchAllocator:
    """``alloc_fn(size, alignment, stream)`` returning a torch int8 buffer on the current CUDA device."""

    def __call__(self, size: int, alignment: int, stream):
        import torch

        return torch.empty(size, device="cuda", dtype=torch.int8)


def _current_allocator():
    try:
        from triton.runtime import _allocation
    except ImportError:  # pragma: no cover - Triton without set_allocator
        return None, False
    cur = getattr(_allocation, "_allocator", None)
    # 3.5+: ContextVar; 3.4: a plain module global
    value = cur.get() if isinstance(cur, contextvars.ContextVar) else cur
    null = isinstance(value, getattr(_allocation, "NullAllocator", ())) or value is None
    return value, not null


def decide(*, interpreting: bool, backend: str | None, capability: tuple | None, has_set_allocator: bool,
           already_set: bool) -> str:
    """Pure decision (tested directly): ``INSTALLED`` means install now; anything else is a reason not to."""
    if not has_set_allocator:
        return "not-needed: this Triton has no set_allocator"
    if interpreting:
        return "not-needed: interpreter"
    if backend is None:
        return "not-needed: no GPU"
    if backend == "hip":
        return "not-needed: AMD"
    if backend == "xpu":
        return "not-needed: Intel XPU"
    if backend != "cuda":
        return f"not-needed: backend {backend}"
    if capability is None or capability[0] < 9:
        return f"not-needed: capability {capability} < 9.0"
    if already_set:
        return ALREADY_SET
    return INSTALLED


def _probe_device():
    """(backend, capability) of the current device, importing torch only here."""
    try:
        import torch
    except ImportError:
        return None, None
    if getattr(torch.version, "hip", None):
        return ("hip", None) if torch.cuda.is_available() else (None, None)
    if torch.cuda.is_available():
        return "cuda", tuple(torch.cuda.get_device_capability())
    xpu = getattr(torch, "xpu", None)
    if xpu is not None and getattr(xpu, "is_available", lambda: False)():
        return "xpu", None
    return None, None


def ensure_allocator() -> str:
    """Idempotent; returns ``"installed"``, ``"already-set"`` or ``"not-needed: <why>"``."""
    interpreting = os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "on", "yes")
    has = hasattr(triton, "set_allocator")
    if not has or interpreting:
        return decide(interpreting=interpreting, backend=None, capability=None, has_set_allocator=has,
                      already_set=False)
    backend, cap = _probe_device()
    _, already = _current_allocator()
    verdict = decide(interpreting=False, backend=backend, capability=cap, has_set_allocator=True,
                     already_set=already)
    if verdict == INSTALLED:
        triton.set_allocator(TorchAllocator())
    return verdict

"""What the installed Triton provides, decided by feature probes (never by version strings).

Vendor builds (pytorch-triton-xpu, ROCm forks) report their own versions, so every decision here is
``hasattr``/signature based.  This module imports triton only.
"""

from __future__ import annotations

import inspect
import os

import triton.language as tl

ENV_IMPL = "TRITON_MIGRATE_COMPAT"
ENV_LOG = "TRITON_MIGRATE_COMPAT_LOG"

IMPLS = ("desc", "bp", "emu")


def _params(fn) -> tuple:
    try:
        return tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # pragma: no cover - builtins without signature
        return ()


#: device-side tensor descriptors: ``tl.make_tensor_descriptor`` (public from 3.4)
HAS_DESC = hasattr(tl, "make_tensor_descriptor")
#: ``padding_option=`` on ``make_tensor_descriptor`` (3.5+); without it only zero padding exists
HAS_DESC_PADDING = HAS_DESC and "padding_option" in _params(tl.make_tensor_descriptor)
#: native block pointers that still work: 3.9 keeps ``tl.make_block_ptr`` as a stub that raises, but its
#: ``tl.load`` has lost ``boundary_check`` -- that is the reliable probe.
HAS_BP = (hasattr(tl, "make_block_ptr") and hasattr(tl, "advance") and "boundary_check" in _params(tl.load))


def available() -> tuple:
    """Implementations usable on the installed Triton, in order of preference."""
    out = []
    if HAS_DESC:
        out.append("desc")
    if HAS_BP:
        out.append("bp")
    out.append("emu")
    return tuple(out)


def resolve_default(env_value: str | None = None) -> str:
    """The import-time implementation: the environment override if set (and usable), else the best available."""
    if env_value is None:
        env_value = os.environ.get(ENV_IMPL, "")
    choice = env_value.strip().lower()
    if choice in ("", "auto"):
        return available()[0]
    if choice not in IMPLS:
        raise ValueError(f"{ENV_IMPL}={env_value!r}: expected one of auto, desc, bp, emu")
    if choice not in available():
        raise RuntimeError(f"{ENV_IMPL}={choice} but the installed Triton does not provide it "
                           f"(available: {', '.join(available())})")
    return choice


DEFAULT_IMPL = resolve_default()

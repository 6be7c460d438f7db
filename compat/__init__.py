"""triton_migrate.compat: write a kernel once against position-free tile handles; run it on tensor descriptors,
native block pointers or an exact masked-pointer emulation (see README.md).

Depends on triton only; torch is imported lazily by the guard's device probe and by ``ensure_allocator``.
"""

from . import _features
from ._features import ENV_IMPL, ENV_LOG, available
from ._guard import Verdict, check, check_tensor, choose_impl, device_profile, guard
from ._jit import (
    AUTO,
    BP,
    DEFAULT_IMPL,
    DESC,
    EMU,
    HAS_BP,
    HAS_DESC,
    HAS_DESC_PADDING,
    advance,
    impl_of,
    load,
    make_tile,
    store,
)
from .allocator import ensure_allocator

#: the import-time implementation as a plain string ("desc", "bp" or "emu")
default_impl = _features.DEFAULT_IMPL

__all__ = [
    "make_tile", "load", "store", "advance", "impl_of", "AUTO", "DESC", "BP", "EMU", "DEFAULT_IMPL", "HAS_DESC",
    "HAS_BP", "HAS_DESC_PADDING", "default_impl", "available", "ENV_IMPL", "ENV_LOG", "guard", "check",
    "check_tensor", "choose_impl", "device_profile", "Verdict", "ensure_allocator",
]

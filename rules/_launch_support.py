"""The host code that migrated kernels call at launch (not a rule: the registry lists only `ttdNNN_*` modules).

`launch_guard` and `descriptor_fits` choose a guarded kernel's form at each launch (TTD009); `with_allocator`
gives the launching thread of a kernel whose descriptors rely on stated facts the allocator they need
(TTD010). Both install a Triton allocator in the launching thread if it has none (device-side descriptors
need one on NVIDIA sm_90+, per thread from Triton 3.5; autograd runs backward on threads of its own), so the
migrated code needs nothing from its user.

Where it lives: `_triton_launch.py`, a module of its own that `migrate --write` writes once per package,
next to the package's outermost `__init__.py`, or next to the migrated files of a folder that is not a
package (a namespace package, scripts); migrated modules import it (frontend/launch.py), never paste it.
Its text is `SOURCE`, whole: every module of ours is the same file, so a later run rewrites an older one.

What a launch costs (benchmarks/launch_overhead.py): `launch_guard` is `@triton.heuristics` for one flag
with one frame less, `descriptor_fits` only reads each tensor once, the guard installs the allocator once per
launch that takes descriptors, and that allocator keeps one scratch buffer per device and stream instead of
calling `torch.empty` at each launch.
"""

from __future__ import annotations

import re

MODULE = "_triton_launch"
MARK = "Written by triton-migrate"  # in the docstring: a later run recognises what an earlier one wrote
CALLED = ("descriptor_fits", "launch_guard", "with_allocator")  # what migrated modules import

SOURCE = '''"""Launch-time support for the tensor descriptors of migrated Triton kernels.

Written by triton-migrate (`migrate --write`); regenerate it rather than
edit it. `launch_guard` picks a guarded kernel's form at each launch
(TTD009), `with_allocator` hooks a kernel whose descriptors rely on stated
facts (TTD010). Device-side descriptors need a Triton allocator in every
launching thread (NVIDIA sm_90+; per thread from Triton 3.5, and autograd
runs backward on threads of its own): both install one where none is set,
and keep a user's.

Triton has no public API that reads the current allocator: it is read from
`triton.runtime._allocation` (a ContextVar from Triton 3.5, a module global
in 3.4).
"""

from contextvars import ContextVar

import torch
import triton
from triton.runtime import _allocation
from triton.runtime.autotuner import Heuristics

_TMA_BYTES = 16  # a descriptor's data, strides and block rows: multiples of it


def descriptor_fits(tensor, width, *multiples, unit_stride=1):
    """Whether a tensor descriptor over `tensor` is legal at this launch.

    Its data 16-byte aligned, not bool, `width` elements at least 16
    bytes, each of `multiples` (strides and offsets, in elements) a
    multiple of 16 bytes, a unit last stride.
    """
    try:
        size = tensor.element_size()
        start = tensor.data_ptr()
    except AttributeError:  # None or a number where the kernel takes one
        return False
    if start % _TMA_BYTES or width * size < _TMA_BYTES or unit_stride != 1:
        return False
    for multiple in multiples:  # a loop: a generator costs more than the test
        if multiple * size % _TMA_BYTES:
            return False
    return tensor.dtype is not torch.bool


def launch_guard(values):
    """`@triton.heuristics` for the one flag that picks a kernel's form.

    `@launch_guard({"FLAG": lambda args: ...})` sets FLAG at every launch
    from the launch's arguments (`args`: name -> value), as the heuristic
    would, with one Python frame less on the way to the kernel. A launch
    that takes descriptors gives its thread an allocator first.
    """
    return lambda kernel: _Guarded(kernel, values)


class _Guarded(Heuristics):
    def __init__(self, kernel, values):
        super().__init__(kernel, kernel.arg_names, values)
        ((self.flag, self.decide),) = values.items()

    def run(self, *args, **kwargs):  # under an autotuner, or warmed up
        kwargs[self.flag] = _decided(self.decide, self.arg_names, args, kwargs)
        return self.fn.run(*args, **kwargs)

    def __getitem__(self, grid):
        run, names, flag, decide = (
            self.fn.run, self.arg_names, self.flag, self.decide)

        def launch(*args, **kwargs):
            kwargs[flag] = _decided(decide, names, args, kwargs)
            return run(*args, grid=grid, warmup=False, **kwargs)

        return launch


def _decided(decide, names, args, kwargs):
    """The flag for a launch, from its arguments by name (the positional
    ones, then keywords; not `zip`: `zip(..., strict=False)`, which a
    project's linter may ask for, needs Python 3.10)."""
    named = {name: args[i] for i, name in enumerate(names[: len(args)])}
    named.update(kwargs)
    use = decide(named)
    if use:
        _ensure_allocator()
    return use


def with_allocator(kernel):
    """A `@triton.jit` kernel whose every launch finds an allocator."""
    kernel.add_pre_run_hook(lambda *args, **kwargs: _ensure_allocator())
    return kernel


def _ensure_allocator():
    """Give this thread an allocator for descriptors, unless it has one."""
    held = _allocation._allocator
    if isinstance(held, ContextVar):
        held = held.get()
    if isinstance(held, _allocation.NullAllocator):
        triton.set_allocator(_scratch)


_buffers = {}  # (device, stream) -> the scratch buffer its launches share


def _scratch(size, alignment, stream):
    """Scratch memory for one launch's descriptors.

    One buffer per device and stream, grown as needed: launches on a stream
    run one after another, as torch's caching allocator assumes when it
    hands a freed block to the next allocation on the same stream. A CUDA
    graph being captured gets memory of its own, which it keeps.
    """
    if torch.cuda.is_current_stream_capturing():
        return torch.empty(size, dtype=torch.int8, device="cuda")
    key = (torch.cuda.current_device(), stream)
    buffer = _buffers.get(key)
    if buffer is None or buffer.numel() < size:
        buffer = torch.empty(size, dtype=torch.int8, device="cuda")
        _buffers[key] = buffer
    return buffer
'''


def module_source() -> str:
    """`_triton_launch.py`: the same text wherever it is written."""
    return SOURCE


def defined(source: str) -> set[str]:
    """The functions of CALLED that a module an earlier run wrote (`source`) defines."""
    return set(re.findall(r"^(?:def|class) (\w+)\b", source, flags=re.M)) & set(CALLED)

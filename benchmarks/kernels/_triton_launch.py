"""Launch-time support for the tensor descriptors of migrated Triton kernels.

Written by triton-migrate (`migrate --write`); regenerate it rather than
edit it. `launch_guard` picks a guarded kernel's form at each launch
(TTD009). `with_allocator` hooks a kernel whose descriptors rely on
stated facts (TTD010).
The allocator that device-side descriptors need (NVIDIA sm_90+; per thread
from Triton 3.5) is installed in a launching thread that has none.
"""

from contextvars import ContextVar
from inspect import isfunction, signature
from types import CodeType, FunctionType

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
    return size > 1 or tensor.dtype is not torch.bool


def launch_guard(values):
    """`@triton.heuristics` for the one flag that picks a kernel's form
    (`args`: name -> value, defaults bound), at less cost per launch."""
    return lambda kernel: _Guarded(kernel, values)


class _Guarded(Heuristics):
    def __init__(self, kernel, values):
        super().__init__(kernel, kernel.arg_names, values)
        ((self.flag, decide),) = values.items()
        self.decide = _bound(kernel, decide)

    def run(self, *args, **kwargs):  # under an autotuner, or warmed up
        kwargs[self.flag] = _decided(self.decide, args, kwargs)
        return self.fn.run(*args, **kwargs)

    def __getitem__(self, grid):
        run, flag, decide = self.fn.run, self.flag, self.decide

        def launch(*args, **kwargs):
            kwargs[flag] = _decided(decide, args, kwargs)
            return run(*args, grid=grid, warmup=False, **kwargs)

        return launch


def _bound(kernel, decide):
    """`decide` as a function of the kernel's parameters, made once as
    Triton makes its launcher's binder: no launch gathers its arguments
    in Python. Compiled, not `exec`uted, which a linter would flag."""
    function = kernel.fn
    while not isfunction(function):  # through Triton's wrappers
        function = function.fn
    parameters = signature(function).parameters.values()
    heads = ", ".join(p.name if p.default is p.empty else f"{p.name}=None"
                      for p in parameters)
    named = ", ".join(f"{p.name!r}: {p.name}" for p in parameters)
    source = (f"def {function.__name__}({heads}, **__options):\n"
              f"    return __decide({{{named}}})")
    module = compile(source, "<launch_guard>", "exec")
    code = next(c for c in module.co_consts if isinstance(c, CodeType))
    defaults = tuple(p.default for p in parameters if p.default is not p.empty)
    return FunctionType(code, {"__decide": decide}, None, defaults)


def _decided(decide, args, kwargs):
    """The flag for a launch; an allocator first if it takes descriptors."""
    use = decide(*args, **kwargs)
    if use:
        _ensure_allocator()
    return use


def with_allocator(kernel):
    """A `@triton.jit` kernel whose every launch finds an allocator."""
    kernel.add_pre_run_hook(lambda *args, **kwargs: _ensure_allocator())
    return kernel


def _ensure_allocator():
    """Give this thread an allocator for descriptors, unless it has one."""
    held = _allocation._allocator  # no public API reads it
    if isinstance(held, ContextVar):  # from Triton 3.5; a global in 3.4
        held = held.get()
    if isinstance(held, _allocation.NullAllocator):
        triton.set_allocator(_scratch)


_buffers = {}  # (device, stream) -> the scratch buffer its launches share


def _scratch(size, alignment, stream):
    """Scratch memory for one launch's descriptors: one buffer per device
    and stream, as launches on a stream run one after another. A CUDA graph
    being captured (never on the default stream, 0) gets memory it keeps."""
    if stream and torch.cuda.is_current_stream_capturing():
        return torch.empty(size, dtype=torch.int8, device="cuda")
    key = (torch.cuda.current_device(), stream)
    buffer = _buffers.get(key)
    if buffer is None or buffer.numel() < size:
        buffer = torch.empty(size, dtype=torch.int8, device="cuda")
        _buffers[key] = buffer
    return buffer

"""The host code that migrated kernels call at launch (not a rule: the registry lists only `ttdNNN_*` modules).

`launch_guard` and `descriptor_fits` choose a guarded kernel's form at each launch (TTD009); `with_allocator`
gives the launching thread of a kernel whose descriptors rely on stated facts the allocator they need
(TTD010). Both install a Triton allocator in the launching thread if it has none (device-side descriptors
need one on NVIDIA sm_90+, per thread from Triton 3.5; autograd runs backward on threads of its own), so the
migrated code needs nothing from its user.

Where it lives: `_triton_launch.py`, a module of its own that `migrate --write` writes once per package,
next to the package's outermost `__init__.py`, or next to the migrated files of a folder that is not a
package (a namespace package, scripts); migrated modules import it (frontend/launch.py), never paste it.
It holds what the package's modules import, in parts (`module_source`): the guard, the hook, and the
allocator both use; a later run keeps the parts an earlier one wrote there and adds those it needs.

What a launch costs (benchmarks/launch_overhead.py; the floor of each part: experiments/launch_floor.py):
`launch_guard` is `@triton.heuristics` for one flag with one frame less, its check binds the launch's
arguments through a function made once with the kernel's parameters (as Triton's launcher does) instead of
gathering them in Python, `descriptor_fits` reads each tensor once, the guard installs the allocator once
per launch that takes descriptors, and that allocator keeps one scratch buffer per device and stream
instead of calling `torch.empty` at each launch, and asks about graph capture only off the legacy default
stream.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MODULE = "_triton_launch"
MARK = "Written by triton-migrate"  # in the docstring: a later run recognises what an earlier one wrote
CALLED = ("descriptor_fits", "launch_guard", "with_allocator")  # what migrated modules import

# The module's text, in parts: a package's module holds the parts its kernels use (and any an earlier run
# wrote there), so that a package of guarded kernels does not carry the allocator hook, nor one of hooked
# kernels the guard.
_DOC = '''"""Launch-time support for the tensor descriptors of migrated Triton kernels.

Written by triton-migrate (`migrate --write`); regenerate it rather than
edit it. {parts}
The allocator that device-side descriptors need (NVIDIA sm_90+; per thread
from Triton 3.5) is installed in a launching thread that has none.
"""
'''

_SAYS = {"guard": "`launch_guard` picks a guarded kernel's form at each launch\n(TTD009).",
         "hook": "`with_allocator` hooks a kernel whose descriptors rely on\nstated facts (TTD010)."}

# (line, the part that needs it, None: every module), in the order isort sorts them
_IMPORTS = (("from contextvars import ContextVar", None), ("from inspect import isfunction, signature", "guard"),
            ("from types import CodeType, FunctionType", "guard"), ("", None), ("import torch", None),
            ("import triton", None), ("from triton.runtime import _allocation", None),
            ("from triton.runtime.autotuner import Heuristics", "guard"))

_GUARD = '''_TMA_BYTES = 16  # a descriptor's data, strides and block rows: multiples of it


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
    source = (f"def {function.__name__}({heads}, **__options):\\n"
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
'''

_HOOK = '''def with_allocator(kernel):
    """A `@triton.jit` kernel whose every launch finds an allocator."""
    kernel.add_pre_run_hook(lambda *args, **kwargs: _ensure_allocator())
    return kernel
'''

_ALLOCATOR = '''def _ensure_allocator():
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
'''

_PARTS = (("guard", _GUARD), ("hook", _HOOK), (None, _ALLOCATOR))


def _part(function: str) -> str:
    """The part of the module that defines `function` (of CALLED)."""
    return "hook" if function == "with_allocator" else "guard"


def module_source(functions: Iterable[str] = CALLED) -> str:
    """`_triton_launch.py` holding what a package's modules import (`functions`, of CALLED): the guard's part
    (`descriptor_fits`, `launch_guard`), the hook's (`with_allocator`), and the allocator both use. The
    same parts give the same text, in whatever order they are asked for."""
    parts = {_part(f) for f in functions} | {None}
    doc = _DOC.format(parts=" ".join(_SAYS[p] for p in ("guard", "hook") if p in parts))
    imports = "\n".join(line for line, part in _IMPORTS if part in parts)
    gap = "\n\n" if "guard" in parts else "\n\n\n"  # before `_TMA_BYTES = 16`, or a def
    return doc + "\n" + imports + gap + "\n\n".join(text for part, text in _PARTS if part in parts)


def defined(source: str) -> set[str]:
    """The functions of CALLED that a module an earlier run wrote (`source`) defines."""
    return set(re.findall(r"^(?:def|class) (\w+)\b", source, flags=re.M)) & set(CALLED)

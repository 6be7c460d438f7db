"""A torch-backed default allocator for Triton, in every thread: a pytest plugin (`-p allocator`) and a helper.

On NVIDIA sm_90+ a device-side tensor descriptor (`tl.make_tensor_descriptor`) needs scratch memory from
`triton.set_allocator`. From Triton 3.5 that setting holds only in the thread that made it, and autograd
runs backward on threads of its own: setting it once in the main thread is not enough. Instead, Triton's
"no allocator" placeholder, which every thread starts with, is made to allocate through torch. Used by
run_tests.py --allocator and time_ops.py --allocator to tell "the migrated code has no allocator" apart
from other failures; an allocator that a library sets itself still wins.
"""


def _torch_allocation(self, size, alignment, stream):
    import torch

    # torch's caching allocator returns 256-byte aligned blocks, more than any descriptor asks for.
    return torch.empty(size, dtype=torch.int8, device="cuda")


def install():
    from triton.runtime import _allocation

    _allocation.NullAllocator.__call__ = _torch_allocation


def pytest_configure(config):
    install()

"""Everything that differs between devices, behind one small interface: which torch device tensors live on,
whether Triton's interpreter runs the kernels, how to wait for the device, how to time a launch and whether
descriptors need a global-memory allocator.

torch and triton are imported inside the functions: importing triton_migrate.verify must stay cheap.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Callable

KINDS = ("cpu", "cuda", "rocm", "xpu")


# Launches per timed sample (Device.time_ms), each behind an L2 flush as in do_bench, all queued behind a
# device sleep: a kernel of 20 µs launched alone is timed with its Python launch cost, which differs between
# forms (a helper's parts are more arguments).
TIMED_BATCH = 5
QUEUE_CYCLES = 10_000_000  # about 5 ms at the H100's clock: longer than Python takes to queue a batch
FLUSH_BYTES = 256 * 1024 * 1024  # more than any L2 (do_bench's figure)


@dataclass(frozen=True)
class Device:
    kind: str  # one of KINDS
    torch_device: str  # "cpu", "cuda" (NVIDIA and ROCm builds of torch both say cuda), "xpu"

    @property
    def interpreted(self) -> bool:
        return self.kind == "cpu"

    def synchronize(self) -> None:
        import torch

        if self.kind in ("cuda", "rocm"):
            torch.cuda.synchronize()
        elif self.kind == "xpu":
            torch.xpu.synchronize()

    def time_ms(self, launch: Callable[[], object], batch: int = 1) -> float:
        """Milliseconds of device time per launch, the mean of `batch` launches (wall time on the CPU, where
        the interpreter runs them). Each launch finds a cold L2, as under do_bench (warm, a descriptor's
        form and a pointer's differ by other per cents than in a benchmark); all are queued behind a device
        sleep, so that a kernel shorter than Python's launch cost (rms_norm's 16 µs) is timed as itself."""
        import torch

        if self.interpreted:
            start = time.perf_counter()
            for _ in range(batch):
                launch()
            return (time.perf_counter() - start) * 1e3 / batch
        events = torch.xpu if self.kind == "xpu" else torch.cuda
        flush = _flush_buffer(self.torch_device)
        spans = [(events.Event(enable_timing=True), events.Event(enable_timing=True)) for _ in range(batch)]
        if events is torch.cuda:
            torch.cuda._sleep(QUEUE_CYCLES)
        for begin, end in spans:
            flush.zero_()
            begin.record()
            launch()
            end.record()
        spans[-1][1].synchronize()
        return sum(begin.elapsed_time(end) for begin, end in spans) / batch

    def samples_ms(self, launch: Callable[[], object], warmup: int, repeat: int) -> list[float]:
        """`repeat` samples of `time_ms` (TIMED_BATCH launches each), after `warmup` samples that are dropped;
        none at all when `repeat` is 0."""
        if not repeat:
            return []
        return [self.time_ms(launch, TIMED_BATCH) for _ in range(warmup + repeat)][warmup:]

    def needs_allocator(self) -> bool:
        """Device-side descriptors need global scratch only on NVIDIA sm_90 and later (brief §3); AMD, Intel
        and the interpreter never call the allocator."""
        import torch

        return self.kind == "cuda" and torch.cuda.get_device_capability()[0] >= 9

    def ensure_allocator(self) -> None:
        """Install a torch-backed allocator in the calling context if none is set there. The allocator is a
        ContextVar (Triton ≥ 3.5): every thread must have its own, so this runs before every launch."""
        if not self.needs_allocator():
            return
        import torch
        from triton.runtime import _allocation

        current = _allocation._allocator.get()
        if isinstance(current, _allocation.NullAllocator):
            device = self.torch_device
            _allocation.set_allocator(lambda size, align, stream: torch.empty(size, device=device, dtype=torch.int8))


@functools.cache
def _flush_buffer(torch_device: str):
    """What a timed launch's L2 flush overwrites: one buffer per device, for the whole run."""
    import torch

    return torch.empty(FLUSH_BYTES, dtype=torch.int8, device=torch_device)


def detect(requested: str = "auto") -> Device:
    """The device to run on: `requested` if given, else the first accelerator torch can see, else the CPU."""
    if requested not in ("auto", *KINDS):
        raise ValueError(f"unknown device {requested!r}; choose auto or one of {', '.join(KINDS)}")
    if requested == "cpu":
        return Device("cpu", "cpu")
    import torch

    available = _available(torch)
    if requested == "auto":
        return available[0] if available else Device("cpu", "cpu")
    for device in available:
        if device.kind == requested:
            return device
    raise ValueError(f"device {requested!r} is not available here (torch sees: "
                     f"{', '.join(d.kind for d in available) or 'no accelerator'})")


def _available(torch) -> list[Device]:
    found = []
    if torch.cuda.is_available():
        found.append(Device("rocm" if torch.version.hip else "cuda", "cuda"))
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        found.append(Device("xpu", "xpu"))
    return found


def from_kind(kind: str) -> Device:
    """The Device a recording names (no availability check: the recording process already made it)."""
    return Device(kind, {"cpu": "cpu", "xpu": "xpu"}.get(kind, "cuda"))

"""The facts a migration relied on, checked by the runner at every launch of the migrated kernel.

A descriptor on stated facts (TTD010) needs what the user stated (`assume = ["aligned", ...]`,
`kernel-assume`, `# migrate: assume[...]`) to hold at each launch; the migrated code checks nothing, so a
broken fact is a misaligned-address fault on a GPU, or silently wrong data. The analysis tells which facts
each kernel's descriptors rely on and through which of its arguments (`FileOutcome.stated_facts`: for
`aligned`, the strides and offsets the kernel adds, in elements; for `aligned-rows`, the row width; for
`contiguous`, the unit stride; for `widths`, the innermost block width); the recorder evaluates them here on
the launch's real arguments, before the kernel runs, and names the first one broken. `in-bounds` depends on
program ids, so no launch can check it.

This module imports neither torch nor triton at import time: the recorder loads it in the user's process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class StatedFactBroken(ValueError):
    """Raised in the user's program, instead of launching a kernel whose stated facts this launch breaks."""


@dataclass(frozen=True)
class Broken:
    """A stated fact this launch breaks."""

    kernel: str
    argument: str | None  # None: a fact of the kernel (`allocator`)
    fact: str
    value: str  # what the argument is instead, in words
    where: str  # where the fact was stated

    def detail(self) -> str:
        subject = f"`{self.argument}`" if self.argument else "its launching thread"
        return f"{subject} is stated `{self.fact}` ({self.where}), but {self.value}"

    def message(self) -> str:
        return f"stated fact broken: {self.kernel}: {self.detail()}"

    def as_json(self) -> dict:
        return {"kernel": self.kernel, "argument": self.argument, "fact": self.fact, "value": self.value,
                "where": self.where, "detail": self.detail()}


def first_broken(kernel: str, facts: list[dict], values: dict, device) -> Broken | None:
    """The first of `facts` (FileOutcome.stated_facts' entries) that the launch's bound arguments `values`
    break, on `device` (verify.devices.Device); None if all hold."""
    for fact in facts:
        value = _breaks(fact, values, device)
        if value is not None:
            return Broken(kernel, fact["argument"], fact["fact"], value, fact["where"])
    return None


def _breaks(fact: dict, values: dict, device) -> str | None:
    if fact["fact"] == "allocator":
        return None if _has_allocator(device) else "none is set (triton.set_allocator) where this device needs one"
    tensor: Any = values.get(fact["argument"])  # what the launch passed
    if not hasattr(tensor, "data_ptr"):  # None, where the kernel takes one
        return None
    size = tensor.element_size()
    if str(tensor.dtype) == "torch.bool":
        return "it holds bool data, which no tensor descriptor takes"
    wrong = []
    if fact["fact"] == "aligned" and tensor.data_ptr() % 16:
        offset = tensor.storage_offset()
        wrong.append(f"its data starts {tensor.data_ptr() % 16} bytes past a multiple of 16 ({offset} "
                     f"element{'s' if offset != 1 else ''} into its storage)")
    for expression in fact["expressions"]:
        try:
            value = _evaluate(expression, values)
        except Exception:  # noqa: BLE001, S112 - an argument left to a default that Triton fills in
            continue
        if fact["fact"] == "contiguous" and value != 1:
            wrong.append(f"`{expression}` is {value}, not 1")
        elif fact["fact"] == "widths" and value * size < 16:
            wrong.append(f"`{expression}` is {value} elements, {value * size} bytes, fewer than the 16 a block row "
                         "needs")
        elif fact["fact"] not in ("contiguous", "widths") and value * size % 16:
            wrong.append(f"`{expression}` is {value} elements, {value * size} bytes, not a multiple of 16")
    return "; ".join(wrong) or None


def _evaluate(expression: str, values: dict):
    """The kernel's own arithmetic on its arguments (`stride_am`, `N`, `(bos * H + i_h) * K`)."""
    return eval(expression, {"__builtins__": {}}, values)  # the analysis wrote it from the kernel's own code


def _has_allocator(device) -> bool:
    """Whether the launching thread has an allocator for device-side descriptors, or runs where none is
    needed (verify.devices: only NVIDIA sm_90+ calls it)."""
    if not device.needs_allocator():
        return True
    from triton.runtime import _allocation  # no public API says whether one is set

    current = _allocation._allocator
    held = current.get() if hasattr(current, "get") else current
    return not isinstance(held, _allocation.NullAllocator)

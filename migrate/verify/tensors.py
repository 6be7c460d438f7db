"""Tensor state as the runner sees it: the whole buffer behind a kernel argument (a kernel gets a pointer
and can write outside the view it was given), as raw bits, with a NaN-canonical digest so that two computed
NaNs compare equal whatever their payload.

Callers import torch before calling anything here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import torch

INT_OF_SIZE = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
_CHUNK_BYTES = 64 << 20  # a large buffer is copied to the host in pieces of this size, never at once
SPOTS = 32
# What the recorder fills memory allocated without initialising with (`torch.empty`, record.py): an element
# still holding it in every byte was most likely never written.
SENTINEL_BYTE = 0xA5


def buffer_of(t: torch.Tensor) -> torch.Tensor:
    """The whole storage behind `t`, flat, in `t`'s dtype (a partial trailing element is dropped)."""
    storage = t.untyped_storage()
    flat = torch.empty(0, dtype=t.dtype, device=t.device)
    return flat.set_(storage, 0, (storage.nbytes() // t.element_size(), ), (1, ))


def bits_of(flat: torch.Tensor) -> torch.Tensor:
    """An integer view of the same bytes (never a bool copy: torch canonicalises bool bytes)."""
    return flat.view(INT_OF_SIZE[flat.element_size()])


def _canonical_bits(flat: torch.Tensor) -> torch.Tensor:
    bits = bits_of(flat)
    if not flat.dtype.is_floating_point:
        return bits
    nan_bits = bits_of(torch.full((1, ), float("nan"), dtype=flat.dtype))[0].item()
    return bits.masked_fill(flat.isnan(), nan_bits)


@dataclass
class State:
    """One buffer after (or before) a launch: its digest, and its bits on the host when small enough."""
    digest: str
    host_bits: torch.Tensor | None  # flat integer bits on the CPU, or None above the size limit
    spots: list  # [[element index, bits], ...] at fixed positions, for buffers kept only as a digest


def capture(t: torch.Tensor, keep_limit: int) -> State:
    flat = buffer_of(t)
    digest, pieces = hashlib.blake2b(digest_size=16), []
    keep = flat.numel() * flat.element_size() <= keep_limit
    step = max(1, _CHUNK_BYTES // flat.element_size())
    for start in range(0, flat.numel(), step):
        piece = _canonical_bits(flat[start:start + step]).cpu()
        digest.update(piece.numpy().tobytes())
        if keep:
            pieces.append(bits_of(flat[start:start + step]).cpu())
    host = torch.cat(pieces) if pieces else bits_of(flat).cpu() if keep else None
    return State(digest.hexdigest(), host, [] if keep else spot_values(flat))


def spot_values(flat: torch.Tensor) -> list:
    if flat.numel() == 0:
        return []
    # Integer arithmetic: a float32 linspace rounds indices above 2**24, the last one past the end.
    count = min(SPOTS, flat.numel())
    where = (torch.arange(count, dtype=torch.int64) * (flat.numel() - 1) // max(count - 1, 1)).unique()
    values = bits_of(flat)[where.to(flat.device)].cpu()
    return [[int(i), int(v)] for i, v in zip(where, values)]


def from_bits(bits: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return bits.view(dtype) if dtype != torch.bool else bits.view(torch.uint8)


def difference(a_bits: torch.Tensor, b_bits: torch.Tensor, dtype: torch.dtype) -> dict | None:
    """None when the buffers are the same bits (NaN-aware), else how many elements differ, the first one,
    and the largest absolute and ULP differences with where they occur (element indices in the buffer)."""
    if a_bits.shape != b_bits.shape:
        return {"count": None, "reason": f"buffer sizes differ: {a_bits.numel()} vs {b_bits.numel()} elements"}
    differs = a_bits != b_bits
    a, b = from_bits(a_bits, dtype), from_bits(b_bits, dtype)
    if dtype.is_floating_point:
        differs &= ~(a.isnan() & b.isnan())
    count = int(differs.sum())
    if count == 0:
        return None
    where = differs.nonzero().flatten()
    gap = (a[where].double() - b[where].double()).abs().nan_to_num(nan=float("inf"))
    worst = int(gap.argmax())
    result = {"count": count, "first": int(where[0]), "max_abs": float(gap[worst]), "max_abs_at": int(where[worst]),
              "a": _scalar(a[where[worst]]), "b": _scalar(b[where[worst]])}
    if dtype.is_floating_point:
        ulps = (_ordered(a_bits[where]) - _ordered(b_bits[where])).abs()
        result["max_ulp"] = int(ulps.max())
    sentinel = _sentinel_bits(a_bits.element_size())
    result["unwritten_a"] = int((a_bits[where] == sentinel).sum())
    result["unwritten_b"] = int((b_bits[where] == sentinel).sum())
    return result


def _sentinel_bits(itemsize: int) -> int:
    return int(torch.full((itemsize, ), SENTINEL_BYTE, dtype=torch.uint8).view(INT_OF_SIZE[itemsize])[0])


def _scalar(v: torch.Tensor):
    value = v.item()
    return value if value == value else "nan"  # JSON has no NaN


def _ordered(bits: torch.Tensor) -> torch.Tensor:
    """Sign-magnitude float bits → integers whose distance is the ULP distance (−0 and +0 coincide)."""
    width = bits.element_size() * 8
    signed = bits.long()
    if bits.dtype == torch.uint8:
        signed = torch.where(signed >= 128, signed - 256, signed)
    lowest = -(1 << (width - 1))
    return torch.where(signed < 0, lowest - signed, signed)


def locate(index: int, arg: dict) -> str:
    """An element index in the buffer, described through the argument's view when it falls inside it."""
    rel = index - arg["offset"]
    coords = {}
    for dim in sorted(range(len(arg["shape"])), key=lambda d: -arg["stride"][d]):
        stride = arg["stride"][dim]
        coords[dim] = rel // stride if stride else 0
        rel -= coords[dim] * stride
    inside = rel == 0 and all(0 <= coords[d] < arg["shape"][d] for d in coords)
    if inside:
        return "[" + ", ".join(str(coords[d]) for d in range(len(arg["shape"]))) + "]"
    return f"buffer element {index} (outside the view)"

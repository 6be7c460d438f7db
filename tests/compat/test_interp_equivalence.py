"""The three implementations agree bit for bit (NaN-aware) in the interpreter: desc/bp/emu on Triton 3.8 and
desc/emu on Triton 3.9, against each other, across versions, and against an independent NumPy model of block-pointer
semantics (sentinel-filled buffers catch every out-of-bounds write)."""

import json
import sys

import numpy as np
import pytest
from conftest import HERE, finish, run_py

sys.path.insert(0, str(HERE))
import _worker as W  # noqa: E402  (imports torch + triton; its kernels are never launched in this process)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    d = tmp_path_factory.mktemp("compat")
    p38, p39 = d / "o38.npz", d / "o39.npz"
    procs = [run_py([str(HERE / "_worker.py"), str(p38)]), run_py([str(HERE / "_worker.py"), str(p39)], triton39=True)]
    for pr in procs:
        finish(pr)
    out = {}
    for tag, p in (("3.8", p38), ("3.9", p39)):
        out[tag] = (dict(np.load(p)), json.load(open(str(p) + ".json")))
    return out


def _float_view(a):
    return a.view({1: np.int8, 2: np.float16, 4: np.float32}[a.itemsize]) if a.itemsize != 1 else a


def same(a, b, floating=True):
    """Bit-equal, except that any NaN equals any NaN (padding NaN payloads are not part of the contract)."""
    if a.shape != b.shape:
        return False
    if not floating:
        return np.array_equal(a, b)
    fa, fb = _float_view(a), _float_view(b)
    na, nb = np.isnan(fa), np.isnan(fb)
    return np.array_equal(na, nb) and np.array_equal(a[~na], b[~nb])


NAN_BITS = {2: 0x7E00, 4: 0x7FC00000}


def reference(c, x_raw, y_raw):
    """NumPy model of block-pointer copy semantics on the raw flat buffers (see _worker.run_case for layouts)."""
    if c["kind"] == "2d":
        phys, base_view, shape, block, grid, yshift = (80, 96), (6, 0), (50, 70), (16, 32), (4, 3), 16
        shift0 = c["off0"]
    elif c["kind"] == "1d":
        phys, base_view, shape, block, grid, yshift, shift0 = (128, ), (0, ), (70, ), (32, ), (3, ), 32, 0
    else:
        phys, base_view, shape, block, grid, yshift, shift0 = ((6, 16, 24), (0, 0, 0), (3, 10, 20), (2, 8, 16),
                                                               (2, 2, 2), 16, 0)
    rank = len(phys)
    strides = [int(np.prod(phys[i + 1:])) for i in range(rank)]
    xbase = sum(b * s for b, s in zip(base_view, strides))
    ybase = xbase + yshift
    lbc = range(rank) if c["lbc"] is None else c["lbc"]
    sbc = range(rank) if c["sbc"] is None else c["sbc"]
    pad = c["pad"]
    y = y_raw.copy()
    fill = NAN_BITS[x_raw.itemsize] if pad == "nan" else 0
    for tile in np.ndindex(*grid):
        starts = [tile[d] * block[d] + (shift0 if d == 0 else 0) for d in range(rank)]
        coords = np.meshgrid(*[np.arange(s, s + b) for s, b in zip(starts, block)], indexing="ij")
        lin = sum(co * st for co, st in zip(coords, strides))
        inb = [(co >= 0) & (co < n) for co, n in zip(coords, shape)]
        lmask = np.ones(lin.shape, bool)
        for d in lbc:
            lmask &= inb[d]
        smask = np.ones(lin.shape, bool)
        for d in sbc:
            smask &= inb[d]
        vals = np.where(lmask, x_raw[np.clip(xbase + lin, 0, None)], fill).astype(x_raw.dtype)
        y[(ybase + lin)[smask]] = vals[smask]
    return y


def test_versions_and_impls(results):
    assert results["3.8"][1]["version"] == "3.8.0" and results["3.8"][1]["available"] == ["desc", "bp", "emu"]
    assert results["3.9"][1]["version"] == "3.9.0" and results["3.9"][1]["available"] == ["desc", "emu"]
    assert results["3.8"][1]["default"] == "desc" and results["3.9"][1]["default"] == "desc"


@pytest.mark.parametrize("c", W.cases(), ids=W.case_id)
def test_case(results, c):
    cid = W.case_id(c)
    floating = c["dtype"].is_floating_point
    arrays38, arrays39 = results["3.8"][0], results["3.9"][0]
    base = arrays38[f"{cid}#emu#y"]
    # every implementation on 3.8 equals the 3.8 native block pointer, bit for bit
    for impl in ("desc", "emu"):
        assert same(arrays38[f"{cid}#{impl}#y"], arrays38[f"{cid}#bp#y"], floating), f"3.8 {impl} != bp"
    # 3.9: desc and emu agree with each other and with 3.8
    for impl in ("desc", "emu"):
        assert same(arrays39[f"{cid}#{impl}#y"], base, floating), f"3.9 {impl} != 3.8 emu"
    # inputs untouched
    assert np.array_equal(arrays38[f"{cid}#emu#x"], arrays38[f"{cid}#bp#x"])
    if c["kind"] == "rowsum":
        y = base.view(np.float32)
        x = arrays38[f"{cid}#emu#x"]
        xf = (x.view(np.float16) if x.itemsize == 2 else x.view(np.float32)).reshape(40, 70).astype(np.float32)
        np.testing.assert_allclose(y[8:48], xf.sum(1), rtol=1e-5, atol=1e-4)
        assert np.all(y[:8] == -7777.0) and np.all(y[48:] == -7777.0)
    else:
        ref = reference(c, arrays38[f"{cid}#emu#x"], _sentinel_like(base, c))
        assert same(base, ref, floating), f"emu != NumPy block-pointer model ({(base != ref).sum()} cells differ)"


def _sentinel_like(arr, c):
    s = W.SENT[c["dtype"]]
    import torch
    t = torch.full((arr.size, ), s, dtype=c["dtype"])
    return t.view(torch.int8).numpy().view(arr.dtype).copy()


def test_subset_checks_really_differ(results):
    """Guard against a vacuous model: unchecked dimensions must read and write outside the logical tensor."""
    a = results["3.8"][0]
    k = "kind=2d|lbc={}|off0=0|pad=nan|sbc={}|dtype=float32#bp#y"
    full = a[k.format(None, None)]
    store_rows_unchecked = a[k.format(None, (1, ))]  # writes NaN padding below the logical tensor
    both_rows_unchecked = a[k.format((1, ), (1, ))]  # copies the physical rows below the logical tensor
    store_cols_unchecked = a[k.format(None, (0, ))]
    assert not same(full, store_rows_unchecked)
    assert not same(store_rows_unchecked, both_rows_unchecked)
    assert not same(full, store_cols_unchecked)


def test_static_fallbacks(results):
    """Handles a descriptor cannot express exactly fall back to the emulation at trace time."""
    for tag in ("3.8", "3.9"):
        w = results[tag][1]["which"]
        assert w["f32_b32|auto"] == 1 and w["f32_b32|desc"] == 1 and w["f32_b32|emu"] == 4
        assert w["f32_b2|desc"] == 4  # 8-byte last block dim
        assert w["bool_b32|desc"] == 4  # int1 cannot be a descriptor
        assert w["i8_b16|desc"] == 1 and w["i8_b8|desc"] == 4  # the 16-byte rule exactly
        assert w["f32_nan|desc"] == 1  # nan padding is native from 3.5
    assert results["3.8"][1]["which"]["f32_b2|bp"] == 2

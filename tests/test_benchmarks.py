"""The benchmark suite (benchmarks/): its generated modules are the tool's current output, and every case,
at small shapes in Triton's interpreter, gives bit-identical outputs for the original kernels and each
migrated form, with sentinel-filled buffers around every tensor so out-of-bounds reads and writes show.
The originals are also checked against torch references, so that the suite measures kernels that work."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest
import torch

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import cases as C  # noqa: E402
import regenerate  # noqa: E402
from run_suite import load  # noqa: E402

SMALL = C.suite("small")
FORMS = list(regenerate.FORMS)  # migrated, migrated_pointer, migrated_tuned
# Triton 3.8's interpreter keeps bf16 as uint16 and multiplies those integers in tl.dot: bf16 products are
# garbage there (deterministic garbage, so the original-vs-migrated comparison still holds). The fp16
# cases of these kernels check the arithmetic against torch.
DOT_KERNELS = {"gemm", "gemm_bt", "gemm_helper", "bmm", "attn_fwd", "attn_fwd_staged", "attn_bwd_dkdv",
               "chunk_fwd_kernel_h", "chunk_fwd_kernel_o"}


def test_generated_modules_are_the_tools_current_output():
    stale = regenerate.stale()
    paths = ", ".join(f"benchmarks/kernels/{name}.py" for name in stale)
    assert not stale, (f"{paths}: not what `migrate` produces for original.py now; run "
                       "`python benchmarks/regenerate.py` and commit the result")


def test_generated_modules_keep_no_block_pointers():
    for name in FORMS:
        text = (BENCHMARKS / "kernels" / f"{name}.py").read_text()
        assert "make_block_ptr" not in text and "tl.advance" not in text, name


def test_every_kernel_has_a_case_in_both_suites():
    original = (BENCHMARKS / "kernels" / "original.py").read_text()
    defined = {line.split("def ", 1)[1].split("(", 1)[0] for line in original.splitlines() if line.startswith("def ")}
    kernels = {name for name in defined if not name.startswith("_")}  # `_helpers` are called, not launched
    for size in ("small", "large"):
        assert {case.kernel for case in C.suite(size)} == kernels, size


@functools.cache
def module(name: str):
    return load(name)


@functools.cache
def outputs(case_name: str, form: str) -> dict[str, C.Out]:
    case = next(c for c in SMALL if c.name == case_name)
    mem = C.Memory("cpu", padded=True)
    setup = case.setup(mem)
    out = setup.new_outputs(mem)
    setup.run(module(form), out)
    return out


def _tolerance(setup: C.Setup, name: str, dtype: torch.dtype) -> float:
    return setup.tolerance.get(name, 1e-3 if dtype == torch.float32 else 1e-2)


@pytest.mark.parametrize("case", SMALL, ids=[c.name for c in SMALL])
def test_original_writes_its_whole_view_and_nothing_else(case):
    for name, out in outputs(case.name, "original").items():
        sentinel = C.SENTINEL_BITS[out.buffer.dtype][1]
        inside = C.view_mask(out.buffer, out.view)
        bits = C.raw_bits(out.buffer)
        assert (bits[~inside] == sentinel).all(), f"{name}: written outside its view"
        assert not (bits[inside] == sentinel).any(), f"{name}: cells of the view left unwritten"


# Not for bf16 `tl.dot` cases: the interpreter multiplies bf16 bit patterns as integers there (the fp16 cases
# check the arithmetic; the bit-identity tests below still run every case).
WITH_REFERENCE = [c for c in SMALL if not (c.kernel in DOT_KERNELS and "bf16" in c.name)]


@pytest.mark.parametrize("case", WITH_REFERENCE, ids=[c.name for c in WITH_REFERENCE])
def test_original_matches_torch_reference(case):
    setup = case.setup(C.Memory("cpu", padded=True))
    reference = setup.reference()
    for name, out in outputs(case.name, "original").items():
        got, want = out.view.float(), reference[name].float()
        assert not got.isnan().any(), f"{name}: NaN in the output"
        error = (got - want).abs().max().item()
        bound = _tolerance(setup, name, out.view.dtype) * want.abs().max().item() + 1e-6
        assert error <= bound, f"{name}: off the torch reference by {error:.4g} (allowed {bound:.4g})"


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("case", SMALL, ids=[c.name for c in SMALL])
def test_migrated_is_bit_identical_to_original(case, form):
    before, after = outputs(case.name, "original"), outputs(case.name, form)
    assert before.keys() == after.keys()
    for name in before:
        differ = C.difference(before[name].buffer, after[name].buffer)
        if differ.any():
            first = tuple(int(i) for i in differ.nonzero()[0])
            where = "inside" if C.view_mask(before[name].buffer, before[name].view)[first] else "OUTSIDE"
            pytest.fail(f"{form}: {name}: {int(differ.sum())} of {differ.numel()} cells differ; first at buffer index "
                        f"{first} ({where} the view): {before[name].buffer[first].item()!r} vs "
                        f"{after[name].buffer[first].item()!r}")


def test_comparison_sees_out_of_bounds_writes_and_computed_nans():
    mem = C.Memory("cpu", padded=True)
    a = mem.output((5, 7), torch.float16)
    a.view.fill_(1.0)
    b = C.Out(a.buffer.clone(), None)
    assert C.identical(a.buffer, b.buffer)
    b.buffer[0, 0] = 0.0  # a write outside the view
    assert not C.identical(a.buffer, b.buffer)
    assert not C.view_mask(a.buffer, a.view)[0, 0]
    b = a.buffer.clone()
    b[1, 0] = float("nan")  # NaN, but not the sentinel's payload, over a sentinel
    assert not C.identical(a.buffer, b)
    c, d = a.buffer.clone(), a.buffer.clone()
    c[2, 9], d[2, 9] = float("nan"), float("nan")
    d.view(torch.int16)[2, 9] = 0x7E01  # another computed NaN payload
    assert C.identical(c, d)
    e = a.buffer.clone()
    e.view(torch.int16)[3, 9] ^= 1  # one bit
    assert not C.identical(a.buffer, e)

"""The launch guard (TTD009): what the launch checks, which form each launch takes, and the allocator it
installs in the launching thread. The fixture `launch_guard` runs the guarded kernel bit for bit against
the original (tests/test_fixtures.py); these tests pin down the decisions behind it."""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path

import libcst as cst
import pytest

from triton_migrate import engine
from triton_migrate.analysis.facts import FunctionFacts
from triton_migrate.analysis.guards import Arguments, Check, launch_check
from triton_migrate.analysis.triton_names import TritonNames
from triton_migrate.engine.scanning import ModuleScan
from triton_migrate.policy import Policy
from triton_migrate.syntax.walk import walk

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

KERNEL = '''\
import triton
import triton.language as tl


@triton.jit
def k(q, o, cu_seqlens, T, H, stride_qz, stride_qh, stride_qm, off, K: tl.constexpr, BT: tl.constexpr,
      BK: tl.constexpr = 64):
    i_t, i_bh = tl.program_id(0), tl.program_id(1)
    i_b, i_h = i_bh // H, i_bh % H
    bos = tl.load(cu_seqlens + i_b)
    LOCAL
    p = tl.make_block_ptr(BASE, (T, K), (STRIDE, 1), (i_t * BT, 0), (BT, BK), (1, 0))
    tl.store(o + tl.arange(0, BT)[:, None] * BK + tl.arange(0, BK)[None, :], tl.load(p, boundary_check=(0, 1)))
'''


def check_of(base: str, stride: str = "H * K", local: str = "pass"):
    source = KERNEL.replace("BASE", base).replace("STRIDE", stride).replace("LOCAL", local)
    module = cst.parse_module(source)
    names = TritonNames.of_cst(module)
    scan = ModuleScan(names)
    walk(scan, module)
    function = scan.all_functions[0]
    facts = FunctionFacts(function, names, scan.function_assignments[id(function)], launched=True)
    call = next(c for c in scan.calls if names.member(c.func) == "make_block_ptr")
    base_arg, _, strides, _, block, _ = (a.value for a in call.args)
    return launch_check(base_arg, [e.value for e in strides.elements], [e.value for e in block.elements], 1, facts,
                        Arguments(function))


def test_a_varlen_head_offset_is_checked_through_its_head_dim():
    # (bos * H + i_h) * K is a multiple of K whatever bos (loaded in the kernel) is: K is the witness.
    assert check_of("q + (bos * H + i_h) * K") == Check("q", 'args.get("BK", 64)', ('args["H"] * args["K"]',
                                                                                    'args["K"]'))


def test_each_summand_of_an_offset_has_its_own_witness():
    assert check_of("q + i_b * stride_qz + i_h * stride_qh", "stride_qm").multiples == (
        'args["stride_qm"]', 'args["stride_qz"]', 'args["stride_qh"]')


def test_a_pointer_argument_moved_in_place_is_followed():
    # flash-attention style: `q += off_z * stride_qz + off_h * stride_qh`, then the block pointer on `q`.
    check = check_of("q", "stride_qm", "q += i_b * stride_qz + i_h * stride_qh")
    assert check.multiples == ('args["stride_qm"]', 'args["stride_qz"]', 'args["stride_qh"]')


def test_a_local_base_is_followed_to_its_pointer_argument():
    check = check_of("q_base + i_t * BK", "stride_qm", "q_base = q + i_b * stride_qz")
    assert check == Check("q", 'args.get("BK", 64)', ('args["stride_qm"]', 'args["stride_qz"]'))


def test_an_offset_without_a_witness_cannot_be_guarded():
    # `bos` is loaded in the kernel: nothing the launch sees bounds its alignment; an odd multiple of a
    # program id is a multiple of 16 bytes for no element type.
    assert "`tl.load(cu_seqlens + i_b)` is not a multiple" in check_of("q + bos", "stride_qm")
    assert "never a multiple of 16 bytes" in check_of("q + i_t * 3", "stride_qm")
    assert check_of("q + i_t * 8", "stride_qm").multiples == ('args["stride_qm"]', "8")


def test_an_offset_that_is_a_multiple_of_the_block_needs_no_check():
    assert check_of("q + i_t * BK", "stride_qm").multiples == ('args["stride_qm"]',)


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def guarded_fixture():
    sys.path.insert(0, str(FIXTURES))
    try:
        harness = _load(FIXTURES / "launch_guard" / "harness.py", "launch_guard_harness")
        after = _load(FIXTURES / "launch_guard" / "after.py", "launch_guard_after")
    finally:
        sys.path.remove(str(FIXTURES))
    return harness, after


@pytest.mark.parametrize("case, takes_descriptor", [
    ("aligned-K64", True), ("varlen-K64", True),  # sequences start anywhere: (bos * H + i_h) * 64 is aligned
    ("varlen-K60", False),  # rows of 120 bytes
    ("view-mid-storage-K64", False),  # data one element into its storage
    ("K100", False),
])
def test_each_launch_takes_the_form_its_arguments_allow(guarded_fixture, case, takes_descriptor):
    harness, after = guarded_fixture
    inputs = dict(harness.cases())[case]
    args = {"x": inputs["x"], "w": inputs["w"], "H": harness.H, "K": inputs["K"], "N": harness.N, "BK": inputs["BK"],
            "BN": harness.BN}
    decide = after.varlen_project_kernel.values["USE_DESCRIPTORS"]
    assert decide(args) is takes_descriptor


def _launched_in_a_thread(harness, after, case, allocator=None):
    """Launch the guarded kernel on `case` in a thread of its own (the allocator is per thread from Triton
    3.5): whether it took descriptors, and the allocator the thread then holds."""
    from triton.runtime import _allocation

    seen = {}

    def launch():
        if allocator is not None:
            _allocation.set_allocator(allocator)
        harness.run(after, dict(harness.cases())[case])
        seen["allocator"] = _allocation._allocator.get()

    thread = threading.Thread(target=launch)
    thread.start()
    thread.join()
    return seen["allocator"]


def test_a_launch_that_takes_descriptors_gives_its_thread_an_allocator_and_keeps_a_users(guarded_fixture):
    from triton.runtime import _allocation

    harness, after = guarded_fixture
    installed = _launched_in_a_thread(harness, after, "aligned-K64")
    assert not isinstance(installed, _allocation.NullAllocator)

    def users(size, alignment, stream):
        raise AssertionError("not called: the interpreter needs no scratch memory")

    assert _launched_in_a_thread(harness, after, "aligned-K64", users) is users
    # what a launch installs stays in the thread that launched
    other = {}
    thread = threading.Thread(target=lambda: other.update(allocator=_allocation._allocator.get()))
    thread.start()
    thread.join()
    assert isinstance(other["allocator"], _allocation.NullAllocator)


def test_a_launch_on_masked_pointers_installs_nothing(guarded_fixture):
    from triton.runtime import _allocation

    harness, after = guarded_fixture
    assert isinstance(_launched_in_a_thread(harness, after, "view-mid-storage-K64"), _allocation.NullAllocator)


def test_the_guard_binds_a_launchs_arguments_as_the_kernel_does(guarded_fixture):
    """The check sees the launch's arguments by name whether they came by position or by keyword, with the
    kernel's defaults bound and launch options left out; an argument missing is the error a plain Triton
    kernel gives (the kernel and the argument named), not a KeyError from inside the check."""
    import torch

    harness, after = guarded_fixture
    kernel = after.varlen_project_kernel
    inputs = dict(harness.cases())["aligned-K64"]
    x, w, cu = inputs["x"], inputs["w"], inputs["cu"]
    o = torch.empty(x.shape[0], harness.H, harness.N, dtype=x.dtype)
    constexprs = {"H": harness.H, "K": inputs["K"], "N": harness.N, "BT": harness.BT, "BK": inputs["BK"],
                  "BN": harness.BN, "IS_VARLEN": False}
    by_position = kernel.decide(x, w, o, cu, 8, *constexprs.values(), num_warps=4)
    by_keyword = kernel.decide(x=x, w=w, o=o, cu_seqlens=cu, T=8, **constexprs)
    assert by_position is by_keyword is True
    with pytest.raises(TypeError, match=r"varlen_project_kernel\(\) missing 1 required positional argument: 'K'"):
        kernel[(1, 1, 1)](x, w, o, cu, 8, H=harness.H, N=harness.N, BT=harness.BT, BK=inputs["BK"], BN=harness.BN,
                            IS_VARLEN=False)


def test_the_check_only_checks(guarded_fixture):
    # descriptor_fits runs once per tensor of a launch: the allocator is the launch's business, once.
    import torch
    from triton.runtime import _allocation

    _, after = guarded_fixture
    result = {}
    thread = threading.Thread(target=lambda: result.update(
        fits=after.descriptor_fits(torch.zeros(64, dtype=torch.float16), 64), allocator=_allocation._allocator.get()))
    thread.start()
    thread.join()
    assert result["fits"] is True and isinstance(result["allocator"], _allocation.NullAllocator)


HELPER = '''\
import triton
import triton.language as tl


@triton.jit
def _tile(x, M, N, stride, i, BM: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(x, (M, N), (stride, 1), (i * BM, 0), (BM, BN), (1, 0))
    return tl.load(p, boundary_check=(0, 1))


@triton.jit
def kernel(x, y, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    i = tl.program_id(0)
    t = _tile(x, M, N, stride, i, BM, BN)
    tl.store(y + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], t)
'''


def test_a_helper_has_no_launch_to_check_and_keeps_masked_pointers():
    outcome = engine.migrate_source(HELPER)
    (site,) = outcome.diagnostics
    assert site.decision == "pointer" and "not launched from the host" in site.message
    assert "USE_DESCRIPTORS" not in outcome.new_source and "make_block_ptr" not in outcome.new_source


def test_strict_never_guards():
    source = (FIXTURES / "launch_guard" / "before.py").read_text()
    outcome = engine.migrate_source(source, policy=Policy(strict=True))
    assert {d.decision for d in outcome.diagnostics} == {"pointer"}
    assert "USE_DESCRIPTORS" not in outcome.new_source and "heuristics" not in outcome.new_source


def test_a_launch_installs_the_allocator_on_triton_34_where_it_is_one_module_global(guarded_fixture,
                                                                                   monkeypatch):
    # Triton 3.4 keeps the allocator in a plain module global (a ContextVar from 3.5): the guard reads either.
    from triton.runtime import _allocation

    harness, after = guarded_fixture
    monkeypatch.setattr(_allocation, "_allocator", _allocation.NullAllocator())
    installed = []
    monkeypatch.setattr(after.triton, "set_allocator", installed.append)
    harness.run(after, dict(harness.cases())["aligned-K64"])
    assert len(installed) == 1 and callable(installed[0])
    monkeypatch.setattr(_allocation, "_allocator", installed[0])  # a user's (or the guard's) allocator stays
    harness.run(after, dict(harness.cases())["aligned-K64"])
    assert len(installed) == 1


def test_what_a_loop_first_pass_proved_leaves_no_descriptor_behind():
    """The first pass over a loop sees the offset before any advance (0: aligned) and chose a guarded
    descriptor; the fixed point (advanced by 1 each iteration) chose masked pointers. The block pointer was
    reported `guarded+pointer` and kept an unused descriptor, created under the launch check."""
    source = (FIXTURES / "launch_guard" / "before.py").read_text().replace("p_x = tl.advance(p_x, (0, BK))",
                                                                          "p_x = tl.advance(p_x, (0, 1))")
    outcome = engine.migrate_source(source)
    assert [d.decision for d in outcome.diagnostics] == ["pointer", "guarded", "pointer"]
    assert "p_x_desc" not in outcome.new_source and 'args["x"]' not in outcome.new_source

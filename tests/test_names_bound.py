"""A block pointer's creation is never deleted while something still reads it: a call the rewrite leaves
alone keeps its argument, and the self-check (unbound.py) turns any rewrite that reads a name it no longer
binds into an internal error, the file left as it was."""

from __future__ import annotations

import ast

import pytest

from triton_migrate import engine
from triton_migrate.analysis.crossing import Crossing
from triton_migrate.rewrite.unbound import newly_unbound

HELPER = """\
import triton
import triton.language as tl


@triton.jit
def _inner(acc, V_block_ptr, N, BLOCK_N: tl.constexpr):
    for start_n in range(0, N, BLOCK_N):
        v = tl.load(V_block_ptr)
        acc += tl.sum(v, 0)
        V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
    return acc


@triton.jit
def kernel(V, Out, N, stride_vn, stride_vk, BLOCK_N: tl.constexpr, D: tl.constexpr):
    order: tl.constexpr = (1, 0)
{placeholder}    V_block_ptr = tl.make_block_ptr(V, (N, D), (stride_vn, stride_vk), (0, 0), (BLOCK_N, D), {order})
    acc = tl.zeros([D], dtype=tl.float32)
    acc = _inner(acc, V_block_ptr, N, BLOCK_N)
    tl.store(Out + tl.arange(0, D), acc)
"""
# The tutorial's fused attention: the order of V is a constexpr chosen from the data type.
TUTORIAL_ORDER = "v_order"
TUTORIAL_LINE = "    v_order: tl.constexpr = (0, 1) if V.dtype.element_ty == tl.float8e5 else (1, 0)\n"


def _source(order: str, placeholder: str = "") -> str:
    source = HELPER.format(order=order, placeholder=placeholder)
    return source.replace("    order: tl.constexpr = (1, 0)\n", TUTORIAL_LINE) if order == TUTORIAL_ORDER else source


@pytest.mark.parametrize("order", ["order", TUTORIAL_ORDER, "(1, 0)"])
@pytest.mark.parametrize("placeholder", ["", "    V_block_ptr = None\n"], ids=["plain", "None first"])
def test_a_block_pointer_passed_to_a_helper_is_never_left_behind(order, placeholder):
    """Once deleted (TTD006) while `_inner(acc, V_block_ptr, ...)` stayed: a NameError, or with `= None`
    first, `tl.advance(None)` in the helper. Either the call passes parts or the creation stays."""
    source = _source(order, placeholder)
    outcome = engine.migrate_source(source)
    new = outcome.new_source or source
    assert "_inner(acc, V_block_ptr," not in new or "V_block_ptr = tl.make_block_ptr" in new, new
    assert not newly_unbound(source, new)


def test_the_check_finds_a_deleted_binding_that_is_still_read():
    before = "def f(a):\n    p = g(a)\n    return h(p)\n"
    after = "def f(a):\n    return h(p)\n"
    assert newly_unbound(before, after) == {"f": {"p"}}


@pytest.mark.parametrize("after", [
    "def f(a):\n    p = None\n    return h(p)\n",  # still bound (what the check cannot see is the helper's job)
    "def f(a):\n    return h(q)\n",  # read unbound before too (a star import, a name injected at run time)
    "def f(a):\n    for p in a:\n        pass\n    return h(p, q)\n",
    "def f(a):\n    def inner():\n        nonlocal p\n    return h(p, q)\n",
    "import p\ndef f(a):\n    return h(p, q)\n",
])
def test_the_check_accepts_names_bound_some_other_way(after):
    before = "def f(a):\n    p = g(a)\n    return h(p, q)\n"
    assert newly_unbound(before, after) == {}


def test_a_method_is_checked_under_its_class():
    before = "class C:\n    def f(self):\n        p = 1\n        return p\n"
    assert newly_unbound(before, "class C:\n    def f(self):\n        return p\n") == {"C.f": {"p"}}


def test_a_rewrite_that_reads_a_deleted_binding_is_an_internal_error(monkeypatch):
    """An engine bug simulated: the helper call is taken as handled but not rewritten, so the creation,
    with no other use, is deleted. The file fails rather than being written with a NameError in it."""
    monkeypatch.setattr(Crossing, "helper_call", lambda self, node, state: True)
    with pytest.raises(engine.InternalError, match="reads names it no longer binds: `V_block_ptr` in `kernel`"):
        engine.migrate_source(_source("(1, 0)"))


@pytest.mark.parametrize("order", ["order", TUTORIAL_ORDER])
@pytest.mark.parametrize("placeholder", ["", "    V_block_ptr = None\n"], ids=["plain", "None first"])
def test_an_order_that_is_not_a_literal_still_travels_as_parts(order, placeholder):
    """Masked pointers never need `order`: the tutorial's `v_order` passes parts like `(1, 0)` does."""
    outcome = engine.migrate_source(_source(order, placeholder))
    assert [(d.code, d.fixed) for d in outcome.diagnostics] == [("TTD006", True), ("TTD008", True)]
    assert "_inner(acc, V, D, stride_vn, stride_vk, 0, 0, D, N, BLOCK_N)" in outcome.new_source


def test_a_name_the_source_read_before_assigning_it_is_not_the_rewrites_fault():
    """Found by the fuzz campaign: a kernel that reads `p` before any assignment of it (and not in a loop
    that assigns it) fails already; the rewrite that then deletes the later assignments is no bug."""
    before = "def f(a):\n    for i in a:\n        h(p)\n    for j in a:\n        p = g(j)\n        h(p)\n"
    assert newly_unbound(before, "def f(a):\n    for i in a:\n        h(p)\n    for j in a:\n        h(j)\n") == {}


@pytest.mark.parametrize("before", [
    "def f(a):\n    for i in a:\n        h(p)\n        p = g(i)\n",  # the loop's next pass reads the assignment
    "def f(p):\n    h(p)\n    p = g(p)\n",  # a parameter
])
def test_a_read_that_an_assignment_can_reach_is_still_checked(before):
    after = before.replace("        p = g(i)\n", "").replace("    p = g(p)\n", "").replace("def f(p)", "def f(a)")
    assert newly_unbound(before, after) == {"f": {"p"}}


def test_the_output_tree_the_fixed_point_check_parsed_gives_the_same_answer():
    """migrate_sources hands over the output's ast from the fixed-point check: parsed once, not twice."""
    before, after = "def f(a):\n    p = g(a)\n    return h(p)\n", "def f(a):\n    return h(p)\n"
    assert newly_unbound(before, after, ast.parse(after)) == newly_unbound(before, after) == {"f": {"p"}}


DEAD_AFTER_RETURN = """\
import triton
import triton.language as tl


@triton.jit
def _load_tile(p):
    return tl.load(p, boundary_check=(0, 1), padding_option="zero")
    return tl.load(p, boundary_check=(0, 1), padding_option="zero")


@triton.jit
def kernel(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(y_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], _load_tile(src))
"""


def test_unreachable_code_reading_a_parameter_the_rewrite_replaces_is_rewritten_too():
    """What hypothesis found (test_fuzz): a helper's dead second `return` still read its block-pointer
    parameter, which became parts, and the file failed with an internal error."""
    outcome = engine.migrate_source(DEAD_AFTER_RETURN)
    assert all(d.fixed for d in outcome.diagnostics)
    helper = outcome.new_source.split("def kernel")[0]
    assert helper.count("tl.load(") == 2 and "boundary_check" not in helper

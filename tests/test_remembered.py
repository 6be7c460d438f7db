"""FunctionFacts remembers answers per node (speed: every loop pass and rerun of an analysis asks again); a
remembered answer must be the one a fresh computation gives, for each question asked."""

from __future__ import annotations

import libcst as cst

from triton_migrate.analysis.facts import FunctionFacts
from triton_migrate.analysis.triton_names import TritonNames
from triton_migrate.engine.scanning import ModuleScan
from triton_migrate.syntax.build import movable_elements
from triton_migrate.syntax.walk import walk

KERNEL = '''\
import triton
import triton.language as tl


@triton.jit
def k(x, i, BK: tl.constexpr, BV: tl.constexpr):
    offset = i * BK
    p = tl.make_block_ptr(x, (64, 64), (64, 1), (0, offset), (BV, BK), (1, 0))
'''


def _facts() -> tuple[FunctionFacts, cst.Call]:
    module = cst.parse_module(KERNEL)
    names = TritonNames.of_cst(module)
    scan = ModuleScan(names)
    walk(scan, module)
    function = scan.all_functions[0]
    call = next(c for c in scan.calls if names.member(c.func) == "make_block_ptr")
    return FunctionFacts(function, names, scan.function_assignments[id(function)]), call


def test_one_offset_is_proved_aligned_afresh_for_each_block():
    facts, call = _facts()
    offset = call.args[3].value.elements[1].value
    block_v, block_k = (e.value for e in call.args[4].value.elements)
    assert facts.is_aligned(offset, block_k)  # `i * BK` is a multiple of BK ...
    assert not facts.is_aligned(offset, block_v)  # ... not of BV: the answer for BK must not be reused
    assert facts.is_aligned(offset, cst.Name("BK"))  # another node with BK's code: the same proof


def test_remembered_elements_are_the_callers_own_list():
    facts, call = _facts()
    shape = call.args[1].value
    first = facts.movable_elements(shape)
    first.append(cst.Name("mutated"))
    again = facts.movable_elements(shape)
    assert [cst.Module([]).code_for_node(e) for e in again] == ["64", "64"]
    assert again == movable_elements(shape)
    assert facts.movable_elements(cst.Name("x")) is None  # not a tuple: None, remembered as such


INT64 = '''\
import triton.language as tl


def k(x, i, n):
    wide = i.to(tl.int64)
    a = wide * 2
    b = a + n
    c = i + n
    for j in range(b):
        d = j
'''


def test_int64_answers_are_those_of_fresh_facts():
    """The names and `int64` mentions of each expression are remembered, and reused for every offset whose
    assignments reach it: each answer must be a fresh FunctionFacts' first answer."""
    module = cst.parse_module(INT64)
    names = TritonNames.of_cst(module)
    scan = ModuleScan(names)
    walk(scan, module)
    function = scan.all_functions[0]
    fresh = lambda: FunctionFacts(function, names, scan.function_assignments[id(function)])  # noqa: E731
    shared = fresh()
    for name, expected in [("b", True), ("c", False), ("d", True), ("a", True), ("c", False), ("b", True)]:
        value = cst.Name(name)
        assert shared.mentions_int64(value) == fresh().mentions_int64(value) == expected, name

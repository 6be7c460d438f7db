"""Which loads' tiles reach a use whose result follows the tile's layout (analysis/layout.py): a transposed
view's load keeps its exact form there (TTD103), and only there."""

from __future__ import annotations

import libcst as cst

from triton_migrate.analysis import layout
from triton_migrate.analysis.triton_names import TritonNames

ATTENTION = '''import triton.language as tl


def attn(q_ptr, k_ptr, o_ptr, N):
    q = tl.load(q_ptr)
    acc = tl.zeros((16,), tl.float32)
    for start_n in range(0, N, 16):
        k = tl.load(k_ptr)
        qk = tl.dot(q, k)
        qk += tl.where(start_n + tl.arange(0, 16) < N, 0.0, -1.0e6)[None, :]
        acc += tl.max(qk, 1)
    tl.store(o_ptr, acc)


def sums(k_ptr, o_ptr):
    k = tl.load(k_ptr)
    w = k * 2.0
    tl.store(o_ptr, tl.sum(w, axis=1))


def handed_back(k_ptr):
    k = tl.load(k_ptr)
    return k
'''


def sensitive(function_name: str) -> list[str]:
    module = cst.parse_module(ATTENTION)
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == function_name)
    found = layout.sensitive_loads(function, TritonNames.of_cst(module).member)
    loads = []

    class Loads(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if id(call) in found:
                loads.append(module.code_for_node(call.args[0].value))

    function.visit(Loads())
    return loads


def test_a_dot_operand_in_a_loop_is_not_sensitive_though_the_loop_holds_reductions():
    assert sensitive("attn") == []  # once the loop counter read as the whole loop: every tile in it was tainted


def test_a_reduction_of_anything_computed_from_the_tile_is():
    assert sensitive("sums") == ["k_ptr"]


def test_a_tile_handed_back_is():
    assert sensitive("handed_back") == ["k_ptr"]

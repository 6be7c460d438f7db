"""Which loads' tiles reach a use whose result follows the tile's layout (analysis/layout.py): a transposed
view's load keeps its exact form there (TTD103), and only there."""

from __future__ import annotations

from collections import Counter

import libcst as cst

from triton_migrate.analysis import layout
from triton_migrate.analysis.triton_names import TritonNames
from triton_migrate.syntax.walk import walk

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


def chained_loads(count: int) -> str:
    """`count` loads, each feeding a chain of element-wise steps that ends in one reduction."""
    lines = ["import triton.language as tl", "", "", "def chains(p, o):"]
    for i in range(count):
        lines.append(f"    x{i}_0 = tl.load(p + {i})")
        lines += [f"    x{i}_{s + 1} = x{i}_{s} * 2.0 + x{i}_{s}" for s in range(4)]
    lines.append(f"    tl.store(o, tl.sum({' + '.join(f'x{i}_4' for i in range(count))}, axis=0))")
    return "\n".join(lines) + "\n"


def most_walks_of_one_node(source: str, monkeypatch) -> int:
    """How many times the analysis walks the expression it walks most often (each walk counted by its root)."""
    module = cst.parse_module(source)
    roots = Counter()

    def counting_walk(visitor, node):
        roots[id(node)] += 1
        walk(visitor, node)

    monkeypatch.setattr(layout, "walk", counting_walk)
    assert len(layout.sensitive_loads(module.body[-1], TritonNames.of_cst(module).member)) == source.count("tl.load")
    return max(roots.values())


def test_each_expression_is_read_a_bounded_number_of_times_whatever_the_number_of_loads(monkeypatch):
    # A fixed point re-walking every assignment for every load took 22 of 30 s of a check of
    # flash-linear-attention: what the analysis reads must not grow with the loads times the assignments.
    one, twelve = (most_walks_of_one_node(chained_loads(count), monkeypatch) for count in (1, 12))
    assert twelve == one

"""A helper given block pointers of different ranks at different calls is copied once per call signature
(rewrite/specialise.py), as Triton compiles it once per signature: each group of calls calls its own copy, and
what the copies report is where the helper is in the source as written. The fixture helper_ranks_differ runs it."""

from __future__ import annotations

import ast

from triton_migrate.engine import migrate_source, migrate_sources
from triton_migrate.rewrite import specialise

HEAD = "import triton\nimport triton.language as tl\n\n\n"
LOAD = "@triton.jit\ndef load(p):\n    return tl.load(p, boundary_check=(0,))\n\n\n"
KERNEL = """@triton.jit
def k(x_ptr, w_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    w = tl.make_block_ptr(w_ptr, (M,), (1,), (0,), (BM,), (0,))
    tl.store(x_ptr + tl.arange(0, BM)[:, None] * N + tl.arange(0, BN)[None, :], {uses})
"""


def test_each_group_of_calls_calls_a_copy_of_its_own_named_after_its_ranks():
    source = HEAD + LOAD + KERNEL.format(uses="load(x) + load(w)[:, None] * load(w)[:, None] + load(x)")
    outcome = migrate_source(source)
    new = outcome.new_source
    assert "make_block_ptr" not in new and not outcome.refused
    functions = [f.name for f in ast.parse(new).body if isinstance(f, ast.FunctionDef)]
    assert functions == ["load", "load_1d", "k"]  # the copy right after the helper
    kernel = new[new.index("def k("):]
    assert kernel.count("load_1d(w_ptr") == 2 and kernel.count("load(x_ptr") == 2
    [note] = [d for d in outcome.diagnostics if d.code == "TTD008" and "copied" in d.message]
    assert (note.line, note.column) == (6, 5) and "`load_1d` for the calls that pass a rank-1 block pointer in `p`" \
        in note.message
    # the copy's parameter is reported where the helper's is, saying which copy it is about
    at_parameter = sorted(d.message.startswith("in `load_1d`: ") for d in outcome.diagnostics
                          if (d.line, d.column) == (6, 10))
    assert at_parameter == [False, True]
    assert {(d.line, d.column) for d in outcome.diagnostics} >= {(12, 9), (13, 9)}  # the kernel's, below the copy


def test_positions_in_the_text_with_copies_map_to_the_text_as_written():
    source = "def f(p):\n    return p\n\n\ndef g():\n    f(a) + f(b)\n    f(c)\n"
    groups = [((("p", 2),), [(6, 4)]), ((("p", 1),), [(6, 11), (7, 4)])]
    text, relocation, names = specialise.copies(source, ast.parse(source), {"f": groups}, {"f", "g", "f_1d"})
    assert names == {"f": ["f_1d_2"]}  # `f_1d` is taken
    assert text == ("def f(p):\n    return p\n\n\ndef f_1d_2(p):\n    return p\n\n\n"
                    "def g():\n    f(a) + f_1d_2(b)\n    f_1d_2(c)\n")
    assert relocation.original(5, 12) == (1, 7, "f_1d_2")  # the copy's parameter: the helper's
    assert relocation.original(6, 5) == (2, 5, "f_1d_2")
    assert relocation.original(10, 17) == (6, 12, None)  # `b`, after a callee that grew by 5
    assert relocation.original(10, 5) == (6, 5, None)
    assert relocation.original(11, 12) == (7, 7, None)


def test_a_helper_called_from_other_modules_with_different_ranks_is_still_refused():
    """A copy would have to be imported where its calls are: the caller's block pointers stay, with the reason."""
    sources = {"helpers": HEAD + LOAD, "kernel": HEAD + "from helpers import load\n\n\n" +
               KERNEL.format(uses="load(x) + load(w)[:, None]")}
    outcomes = migrate_sources(sources)
    assert outcomes["kernel"].new_source is None
    assert {d.code for d in outcomes["kernel"].refused} == {"TTD201"}
    assert all("different ranks at different call sites" in d.message for d in outcomes["kernel"].refused)

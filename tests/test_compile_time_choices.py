"""Block pointers whose padding or whose existence is chosen at compile time: `padding_option=PADDING` (a
constexpr) and `p = tl.make_block_ptr(...) if FLAG else None`. The fixtures constexpr_padding and
conditional_creation run them bit for bit; these pin down the forms, the targets that cannot take them, and
that no block pointer is left behind."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Layout, Policy, Statement

HEAD = "import triton\nimport triton.language as tl\n\n\n"
PADDED = HEAD + """@triton.jit
def k(x_ptr, y_ptr, N, PADDING: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    tl.store(y_ptr + tl.arange(0, BN), tl.load(p, boundary_check=(0,), padding_option=PADDING))
"""


# The default guards only loads feeding `tl.dot` in a loop; with facts stated every access is a descriptor.
# These tests read the forms emitted, on one line each: no line length to lay them out within.
ONE_LINE = Layout(line_length=320)
DESCRIPTOR = Policy(target="descriptor", assume=(Statement("aligned", "test"), Statement("aligned-rows", "test")))


def codes(outcome) -> list[str]:
    return [d.code for d in outcome.diagnostics]


def test_a_constexpr_padding_gives_masked_pointers_that_choose_other_at_compile_time():
    outcome = migrate_source(PADDED, layout=ONE_LINE)
    assert codes(outcome) == ["TTD006"]
    assert "make_block_ptr" not in outcome.new_source
    assert 'other=float("nan") if PADDING == "nan" else 0.0 if PADDING == "zero" else None)' in outcome.new_source


@pytest.mark.parametrize("target", ["descriptor", "compat"])
def test_a_constexpr_padding_is_refused_where_only_one_padding_can_be_created(target):
    outcome = migrate_source(PADDED, policy=Policy(target=target))
    assert codes(outcome) == ["TTD117"]
    assert outcome.new_source is None  # nothing changes


def test_padding_none_is_no_padding():
    source = PADDED.replace("padding_option=PADDING", "padding_option=None")
    outcome = migrate_source(source, policy=DESCRIPTOR, layout=ONE_LINE)
    assert codes(outcome) == ["TTD010"]
    assert "p_desc.load([0])" in outcome.new_source


def migrated(source: str, policy: Policy | None = None, layout: Layout | None = None) -> str:
    outcome = migrate_source(source, policy=policy, layout=layout)
    assert all(d.code.startswith("TTD0") for d in outcome.diagnostics), outcome.diagnostics
    assert "make_block_ptr" not in outcome.new_source
    return outcome.new_source


CONDITIONAL = HEAD + """@triton.jit
def k(x_ptr, y_ptr, N, BN: tl.constexpr):
    p = {creation}
    if x_ptr is not None:
        tl.store(y_ptr + tl.arange(0, BN), tl.load(p, boundary_check=(0,)))
"""
CREATION = "tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))"


@pytest.mark.parametrize("creation, expected", [
    (f"{CREATION} if x_ptr is not None else None",
     "p_desc = tl.make_tensor_descriptor(x_ptr, [N], [1], [BN]) if x_ptr is not None else None"),
    (f"None if x_ptr is None else {CREATION}",
     "p_desc = None if x_ptr is None else tl.make_tensor_descriptor(x_ptr, [N], [1], [BN])"),
])
def test_a_conditional_creation_keeps_its_condition(creation, expected):
    assert f"    {expected}\n" in migrated(CONDITIONAL.format(creation=creation), DESCRIPTOR, ONE_LINE)


@pytest.mark.parametrize("with_x", [True, False])
def test_a_conditional_creation_becomes_its_pointers_under_the_same_condition(tmp_path, with_x):
    source = CONDITIONAL.format(creation=f"{CREATION} if x_ptr is not None else None")
    new = migrated(source, Policy(target="pointer"))
    assert "    p = x_ptr + tl.arange(0, BN) if x_ptr is not None else None" in new.splitlines()
    x = torch.arange(16, dtype=torch.float32) if with_x else None
    assert torch.equal(run(new, tmp_path / "after.py", x), run(source, tmp_path / "before.py", x))


def test_a_conditional_creation_overwritten_before_use_leaves_nothing_behind():
    """It used to be refused and stay, unused, while the block pointer that replaced it was migrated. The
    two are one block pointer after the `if`, as with `if`/`else` statements."""
    source = HEAD + f"""@triton.jit
def k(x_ptr, y_ptr, N, F: tl.constexpr, BN: tl.constexpr):
    p = {CREATION} if F else None
    if F:
        p = {CREATION}
        tl.store(y_ptr + tl.arange(0, BN), tl.load(p, boundary_check=(0,)))
"""
    literal_width = source.replace("(BN,), (0,)", "(16,), (0,)")
    assert migrated(literal_width, DESCRIPTOR, ONE_LINE).split("def k(")[1].splitlines()[1:] == [
        "    p_desc = tl.make_tensor_descriptor(x_ptr, [N], [1], [16]) if F else None", "    if F:",
        "        p_desc = tl.make_tensor_descriptor(x_ptr, [N], [1], [16])",
        "        tl.store(y_ptr + tl.arange(0, BN), p_desc.load([0]))"]


LOOP = HEAD + f"""@triton.jit
def k(x_ptr, y_ptr, N, BN: tl.constexpr):
    acc = tl.zeros((BN,), dtype=tl.float32)
    for i in range(2):
        p = {CREATION} if x_ptr is not None else None
        if x_ptr is not None:
            acc += tl.load(p, boundary_check=(0,))
    tl.store(y_ptr + tl.arange(0, BN), acc)
"""


def run(source: str, path, x) -> torch.Tensor:
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    y = torch.zeros(16)
    module.k[(1,)](x, y, 10, BN=16)
    return y


@pytest.mark.parametrize("with_x", [True, False])
def test_a_conditional_creation_in_a_loop_is_not_hoisted_out_of_its_condition(tmp_path, with_x):
    new = migrated(LOOP, DESCRIPTOR, ONE_LINE)
    assert "        p_desc = tl.make_tensor_descriptor(x_ptr, [N], [1], [BN]) if x_ptr is not None else None" in new
    x = torch.arange(16, dtype=torch.float32) if with_x else None
    assert torch.equal(run(new, tmp_path / "after.py", x), run(LOOP, tmp_path / "before.py", x))


def test_an_offset_that_moves_keeps_the_condition_unless_it_is_a_literal():
    source = HEAD + """@triton.jit
def k(x_ptr, y_ptr, N, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (tl.program_id(0) * BN,), (BN,), (0,)) if x_ptr is not None else None
    q = tl.make_block_ptr(y_ptr, (N,), (1,), (0,), (BN,), (0,)) if x_ptr is not None else None
    for i in range(2):
        if x_ptr is not None:
            tl.store(q, tl.load(p, boundary_check=(0,)), boundary_check=(0,))
            p = tl.advance(p, (BN,))
            q = tl.advance(q, (BN,))
"""
    lines = migrated(source, Policy(target="pointer")).splitlines()
    assert "    p_off0 = tl.program_id(0) * BN if x_ptr is not None else None" in lines and "    q_off0 = 0" in lines

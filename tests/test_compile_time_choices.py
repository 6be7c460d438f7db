"""Block pointers whose padding or whose existence is chosen at compile time: `padding_option=PADDING` (a
constexpr) and `p = tl.make_block_ptr(...) if FLAG else None`. The fixtures constexpr_padding and
conditional_creation run them bit for bit; these pin down the forms, the targets that cannot take them, and
that no block pointer is left behind."""

from __future__ import annotations

import importlib.util

import pytest
import torch

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Policy

HEAD = "import triton\nimport triton.language as tl\n\n\n"
PADDED = HEAD + """@triton.jit
def k(x_ptr, y_ptr, N, PADDING: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    tl.store(y_ptr + tl.arange(0, BN), tl.load(p, boundary_check=(0,), padding_option=PADDING))
"""


def codes(outcome) -> list[str]:
    return [d.code for d in outcome.diagnostics]


def test_a_constexpr_padding_gives_masked_pointers_that_choose_other_at_compile_time():
    outcome = migrate_source(PADDED)
    assert codes(outcome) == ["TTD006"]
    assert "make_block_ptr" not in outcome.new_source
    assert 'other=float("nan") if PADDING == "nan" else 0.0 if PADDING == "zero" else None)' in outcome.new_source


@pytest.mark.parametrize("target", ["descriptor", "compat"])
def test_a_constexpr_padding_is_refused_where_only_one_padding_can_be_created(target):
    outcome = migrate_source(PADDED, policy=Policy(target=target))
    assert codes(outcome) == ["TTD108"]
    assert outcome.new_source is None  # nothing changes


def test_padding_none_is_no_padding():
    source = PADDED.replace("padding_option=PADDING", "padding_option=None")
    outcome = migrate_source(source)
    assert codes(outcome) == ["TTD001"]
    assert "p_desc.load([0])" in outcome.new_source

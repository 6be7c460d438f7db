"""Values the rewrite would compute again are written once (rewrite/repeated.py): a block pointer created again
before a second loop (fla's based and rebased kernels), and an offset or mask the kernel already holds in a
variable of its own (`o_v = i_v * BV + tl.arange(0, BV)`, fla's gated_oja_rule and 70 more kernels). Each
form runs bit for bit against the original in the interpreter; where something could change the value
between the two, both stay."""

from __future__ import annotations

import pytest

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Layout, Policy

POLICIES = {"default": Policy(), "pointer": Policy(target="pointer"), "compat": Policy(target="compat")}
WIDE = Layout(line_length=120)  # statements read whole, on one line each


# Two loops over the same keys, the second from a block pointer created again where the first loop stopped.
TWO_LOOPS = '''
import triton
import triton.language as tl


@triton.jit
def two_loops(q, k, o, T, K: tl.constexpr, BT: tl.constexpr, BS: tl.constexpr, BK: tl.constexpr):
    i_t = tl.program_id(0)
    p_q = tl.make_block_ptr(q, (T, K), (K, 1), (i_t * BT, 0), (BT, BK), (1, 0))
    p_k = tl.make_block_ptr(k, (K, T), (1, K), (0, 0), (BK, BS), (0, 1))
    b_q = tl.load(p_q, boundary_check=(0, 1))
    b_o = tl.zeros([BT, BS], dtype=tl.float32)
    for _ in range(0, i_t * BT, BS):
        b_o += tl.dot(b_q, tl.load(p_k, boundary_check=(0, 1)))
        p_k = tl.advance(p_k, (0, BS))
    p_k = tl.make_block_ptr(k, (K, T), (1, K), (0, i_t * BT), (BK, BS), (0, 1))
    for _ in range(i_t * BT, (i_t + 1) * BT, BS):
        b_o += 2 * tl.dot(b_q, tl.load(p_k, boundary_check=(0, 1)))
        p_k = tl.advance(p_k, (0, BS))
    p_o = tl.make_block_ptr(o, (T, BS), (BS, 1), (i_t * BT, 0), (BT, BS), (1, 0))
    tl.store(p_o, b_o, boundary_check=(0, 1))
'''

# The kernel holds the column offsets and their mask; the block pointers' columns are the same.
OWN_OFFSETS = '''
import triton
import triton.language as tl


@triton.jit
def scale_columns(x, s, y, T, V, BT: tl.constexpr, BV: tl.constexpr):
    i_t, i_v = tl.program_id(0), tl.program_id(1)
    o_v = i_v * BV + tl.arange(0, BV)
    m_v = o_v < V
    b_s = tl.load(s + o_v, mask=m_v, other=0.)
    p_x = tl.make_block_ptr(x, (T, V), (V, 1), (i_t * BT, i_v * BV), (BT, BV), (1, 0))
    p_y = tl.make_block_ptr(y, (T, V), (V, 1), (i_t * BT, i_v * BV), (BT, BV), (1, 0))
    tl.store(p_y, tl.load(p_x, boundary_check=(0, 1)) * b_s[None, :], boundary_check=(0, 1))
'''


def migrated(source: str, policy: str = "pointer") -> str:
    return migrate_source(source, layout=WIDE, policy=POLICIES[policy]).new_source


def lines(source: str, policy: str = "pointer") -> list[str]:
    return [line.strip() for line in migrated(source, policy).splitlines()]


def test_a_block_pointer_created_again_before_a_second_loop_is_written_once():
    found = lines(TWO_LOOPS)
    creations = [line for line in found if line.startswith("p_k = ")]
    assert len(creations) == 1, creations
    assert found.count("p_k_off1 = 0") == 1 and "p_k_off1 = i_t * BT" in found  # where each loop starts


def test_a_guarded_descriptor_created_again_is_written_once():
    found = migrated(TWO_LOOPS, "default")
    assert found.count("tl.make_tensor_descriptor(k") == 1 and found.count("USE_DESCRIPTORS") >= 3


@pytest.mark.parametrize("between", ["    k += 0\n", "    if T > 0:\n        k = k + 1\n"])
def test_a_creation_stays_where_what_it_reads_may_have_changed(between):
    source = TWO_LOOPS.replace("    p_k = tl.make_block_ptr(k, (K, T), (1, K), (0, i_t * BT)",
                               between + "    p_k = tl.make_block_ptr(k, (K, T), (1, K), (0, i_t * BT)")
    found = lines(source)
    assert len([line for line in found if line.startswith("p_k = k")]) == 2


def test_a_range_the_kernel_holds_is_read_from_its_variable():
    held = "    o_v = i_v * BV + tl.arange(0, BV)\n    m_v = o_v < V\n    b_s = tl.load(s + o_v, "
    found = lines(OWN_OFFSETS.replace(held, "    o_v = tl.arange(0, BV)\n    b_s = tl.load(s + i_v * BV + o_v, "
                                            "mask=o_v < V, other=0.)\n    b_s += tl.load(s + o_v, "))
    assert "offs_v = i_v * BV + o_v.to(tl.int64)" in found and "mask_v = o_v < tl.maximum(V, 0) - i_v * BV" in found


def test_a_mask_the_kernel_holds_on_a_sum_that_may_wrap_is_not_read():
    """The kernel's `m_v = o_v < V` over `o_v = i_v * BV + tl.arange(0, BV)` wraps in int32 past 2^31 - 1, where
    a block pointer's coordinates do not: the block pointer's bound is written as it is."""
    found = lines(OWN_OFFSETS)
    assert "mask_v = r_v < tl.maximum(V, 0) - i_v * BV" in found
    assert "offs_v = i_v * BV + r_v.to(tl.int64)" in found and found.count("r_v = tl.arange(0, BV)") == 1
    assert "m_tv = m_t[:, None] & mask_v[None, :]" in found and "\n".join(found).count("mask=m_tv") == 2


def test_a_part_of_a_line_reads_the_variable_that_holds_it():
    """fla's kernels hold `o_i = tl.arange(0, BT)`: the rows inside a block, as its maintainers wrote them,
    widened where a stride scales them."""
    source = OWN_OFFSETS.replace("    o_v = i_v * BV", "    o_i = tl.arange(0, BT)\n    o_v = i_v * BV")
    assert "o_t = o_i.to(tl.int64)" in lines(source) and "m_t = o_i < tl.maximum(T, 0) - i_t * BT" in lines(source)


def test_what_stood_above_a_dropped_line_stays():
    """The blank line between two paragraphs of the kernel stood above the range of a block pointer, which the
    kernel already held: it stays above the next line, the comment on its own."""
    source = OWN_OFFSETS.replace(
        "    o_v = i_v * BV + tl.arange(0, BV)\n    m_v = o_v < V\n    b_s = tl.load(s + o_v, mask=m_v, other=0.)\n",
        "    o_v = tl.arange(0, BV)\n    b_s = tl.load(s + i_v * BV + o_v)\n").replace(
        "    p_x = tl.make_block_ptr(x, (T, V), (V, 1), (i_t * BT, i_v * BV), (BT, BV), (1, 0))\n"
        "    p_y = tl.make_block_ptr(y, (T, V), (V, 1), (i_t * BT, i_v * BV), (BT, BV), (1, 0))\n"
        "    tl.store(p_y, tl.load(p_x, boundary_check=(0, 1)) * b_s[None, :], boundary_check=(0, 1))\n",
        "\n    # one row\n    p_y = tl.make_block_ptr(y + i_t * V, (V,), (1,), (i_v * BV,), (BV,), (0,))\n"
        "    tl.store(p_y, b_s, boundary_check=(0,))\n"
        "    p_x = tl.make_block_ptr(x + i_t * V, (V,), (1,), (i_v * BV,), (BV,), (0,))\n"
        "    tl.store(p_x, b_s, boundary_check=(0,))\n")
    found = migrated(source)
    assert "o_v)\n\n    # tl.maximum(V, 0): none in bounds where V < 0, as with block pointers\n" \
        "    m_v = o_v < tl.maximum(V, 0) - i_v * BV\n    # one row\n" \
        "    p_y = y + i_t * V + i_v * BV + o_v\n" in found, found


@pytest.mark.parametrize("change", [
    ("    b_s = tl.load(", "    o_v = o_v + 0\n    b_s = tl.load("),  # assigned twice
    ("    i_t, i_v = tl.program_id(0), tl.program_id(1)\n",
     "    i_t, i_v = tl.program_id(0), tl.program_id(1)\n    i_v = i_v % 2\n"),  # what it reads, twice
])
def test_a_variable_that_may_hold_another_value_is_not_read(change):
    found = lines(OWN_OFFSETS.replace(*change))
    assert any(line.startswith("offs_v = ") for line in found), found


def test_a_variable_assigned_after_the_access_is_not_read():
    source = OWN_OFFSETS.replace("    o_v = i_v * BV + tl.arange(0, BV)\n    m_v = o_v < V\n", "").replace(
        "    b_s = tl.load(s + o_v, mask=m_v, other=0.)\n", "").replace(
        "b_s[None, :], boundary_check=(0, 1))\n",
        "2, boundary_check=(0, 1))\n    o_v = i_v * BV + tl.arange(0, BV)\n    tl.store(s + o_v, 1.0, mask=o_v < V)\n")
    found = lines(source)
    assert any(line.startswith("offs_v = ") for line in found), found


def test_lines_the_user_repeated_stay():
    source = TWO_LOOPS.replace("    b_q = tl.load(", "    o_s = tl.arange(0, BS)\n    o_s = tl.arange(0, BS)\n"
                                                    "    b_q = tl.load(")
    assert lines(source).count("o_s = tl.arange(0, BS)") == 2


@pytest.mark.parametrize("policy", POLICIES)
def test_what_is_written_once_computes_what_the_block_pointers_did(tmp_path, policy):
    import torch
    from differential import compare_outputs, import_path

    outputs = {}
    for which, (source, runs) in {"two": (TWO_LOOPS, _two_loops), "own": (OWN_OFFSETS, _scale_columns)}.items():
        for form, text in (("before", source), ("after", migrated(source, policy))):
            path = tmp_path / f"{which}_{form}.py"
            path.write_text(text)
            outputs[which, form] = runs(import_path(path, f"repeated_{policy}_{which}_{form}"), torch)
        assert compare_outputs(outputs[which, "before"], outputs[which, "after"]) == [], which


def _two_loops(module, torch):
    import triton

    T, K, BT, BS = 45, 16, 16, 16  # T not a multiple of a block: the last tiles are masked
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(T, K, generator=gen), torch.randn(T, K, generator=gen)
    o = torch.full((T, BS), -7.0)
    module.two_loops[(triton.cdiv(T, BT),)](q, k, o, T, K=K, BT=BT, BS=BS, BK=16)
    return {"o": o}


def _scale_columns(module, torch):
    import triton

    T, V = 37, 21
    gen = torch.Generator().manual_seed(1)
    x, s = torch.randn(T, V, generator=gen), torch.randn(V, generator=gen)
    y = torch.full((T, V), -7.0)
    module.scale_columns[(triton.cdiv(T, 16), triton.cdiv(V, 16))](x, s, y, T, V, BT=16, BV=16)
    return {"y": y, "s": s}


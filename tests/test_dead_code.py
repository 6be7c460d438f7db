"""What a migration makes dead goes (dead_code.py); what the user wrote dead, or what has side effects, stays.
Each kernel runs in the interpreter through the fixtures that hold the pattern (constexpr_none_placeholder,
helper_order_name, helper_order_name_none_first, merged_unchecked_load); these pin the limits."""

from __future__ import annotations

from triton_migrate.engine import migrate_source

HEAD = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
KERNEL = HEAD + """def k(x_ptr, y_ptr, N, FP8: tl.constexpr, HAS_Y: tl.constexpr, B: tl.constexpr):
    unused = N * 2
    # the order Triton's tutorial picks from the data type
    order: tl.constexpr = (0,) if FP8 else (0,)
    if HAS_Y:
        p_y = tl.make_block_ptr(y_ptr, (N,), (1,), (0,), (B,), order)
    else:
        p_y = None
    p_x = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (B,), (0,))
    v = tl.load(p_x, boundary_check=(0,), padding_option="zero")
    if HAS_Y:
        tl.store(p_y, v, boundary_check=(0,))
"""


def migrated(source: str) -> str:
    outcome = migrate_source(source)
    assert outcome.new_source is not None and all(d.fixed for d in outcome.diagnostics)
    return outcome.new_source


def test_names_only_the_creations_read_go_with_them_and_so_does_the_emptied_if():
    new = migrated(KERNEL)
    assert "order: tl.constexpr" not in new
    # p_y holds its pointers now: the branch assigns them, and `None` on the other path stays the user's
    assert "        p_y = y_ptr + o_b\n    else:\n        p_y = None\n" in new
    unread = migrated(KERNEL.replace("    else:\n        p_y = None\n", "").replace(
        "        tl.store(p_y, v, boundary_check=(0,))", "        pass"))
    assert "p_y" not in unread and unread.count("if HAS_Y:") == 1  # the one that only created p_y is gone


def test_the_users_own_dead_code_and_comments_stay():
    new = migrated(KERNEL)
    assert "    unused = N * 2\n    # the order Triton's tutorial picks from the data type\n    o_b = " in new


def test_a_value_or_test_with_side_effects_stays():
    source = KERNEL.replace("(0,) if FP8 else (0,)", "pick(FP8)")
    source = source.replace("if HAS_Y:\n        p_y", "if f(HAS_Y):\n        p_y")
    source = source.replace("    else:\n        p_y = None\n", "").replace(
        "        tl.store(p_y, v, boundary_check=(0,))", "        pass")
    new = migrated(source)
    assert "order: tl.constexpr = pick(FP8)" in new
    assert "if f(HAS_Y):\n        pass\n" in new


def test_only_triton_calls_count_as_free_of_side_effects():
    """A call is judged by what it resolves to, not by its name: `tl.arange` may go, a user's `arange` stays."""
    user = migrated(KERNEL.replace("(0,) if FP8 else (0,)", "helpers.arange(FP8)"))
    assert "order: tl.constexpr = helpers.arange(FP8)" in user
    assert "order: tl.constexpr" not in migrated(KERNEL.replace("(0,) if FP8 else (0,)", "tl.arange(0, 1)"))


ELIF = HEAD + """def k(x_ptr, y_ptr, n, MODE: tl.constexpr, BLOCK: tl.constexpr):
    if MODE == 0:
        tl.store(y_ptr, 1.0)
    elif MODE == 1:
        b = tl.make_block_ptr(x_ptr, (n,), (1,), (BLOCK,), (BLOCK,), (0,))
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.zeros([BLOCK], tl.float32))
"""


def test_an_emptied_elif_goes_unless_a_comment_would_go_with_it():
    assert "elif" not in migrated(ELIF) and "    if MODE == 0:\n        tl.store(y_ptr, 1.0)\n" in migrated(ELIF)
    commented = ELIF.replace("    elif", "    # the odd mode\n    elif")
    assert "    # the odd mode\n    elif MODE == 1:\n        pass\n" in migrated(commented)


def test_a_shape_the_masked_pointers_no_longer_read_goes_with_what_computed_it():
    """`n_rows = tl.num_programs(0)`, read only as the shape of a dimension no access checks: the masked
    pointers need no bound there, and the assignment left would be ruff's F841 (corpus2-lint-unused-local: two
    course repositories). Its value has no side effect, so it goes as the parts' temporaries do; a parameter
    read the same way stays (the kernel's API)."""
    source = HEAD + """def k(x_ptr, D, n_cols, BLOCK: tl.constexpr):
    n_rows = tl.num_programs(0)
    row = tl.program_id(0)
    p = tl.make_block_ptr(x_ptr, (n_rows, n_cols), (D, 1), (row, 0), (1, BLOCK), (1, 0))
    tl.store(p, tl.load(p, boundary_check=(1,)) + 1, boundary_check=(1,))
"""
    new = migrated(source)
    assert "n_rows" not in new and "row = tl.program_id(0)" in new
    assert "def k(x_ptr, D, n_cols, BLOCK: tl.constexpr):" in new

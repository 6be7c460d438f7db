"""One descriptor per view of a tensor (rewrite/descriptors.py): the rules the fixtures shared_descriptor_* do not
show by themselves. Each kernel is migrated with the fact `aligned` stated, so that every block pointer here
becomes a plain descriptor; what runs bit for bit is in those fixtures."""

from __future__ import annotations

import re

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Layout

HEAD = '''
import triton
import triton.language as tl


@triton.jit
def kernel(X, T, stride_x, FLAG: tl.constexpr, BT: tl.constexpr):  # migrate: assume[aligned]
    i_t = tl.program_id(0)
'''


def tile(row: str) -> str:
    return f"tl.make_block_ptr(X, (T, 16), (stride_x, 1), ({row}, 0), (16, 16), (1, 0))"


def migrated(body: str) -> str:
    return migrate_source(HEAD + body, layout=Layout(line_length=120)).new_source


def descriptors(source: str) -> list[str]:
    """The names the migrated kernel creates descriptors into, in order."""
    return re.findall(r"(\w+) = tl\.make_tensor_descriptor", source)


def test_one_descriptor_named_after_its_tensor():
    source = migrated(f'''
    p_x1 = {tile("i_t * 32")}
    p_x2 = {tile("i_t * 32 + 16")}
    tl.store(p_x1, tl.load(p_x2, boundary_check=(0, 1)), boundary_check=(0, 1))
''')
    assert descriptors(source) == ["X_desc"]
    assert "X_desc.store([i_t * 32, 0], X_desc.load([i_t * 32 + 16, 0]))" in source


def test_a_name_the_author_uses_is_not_taken():
    source = migrated(f'''
    X_desc = 0
    p_x1 = {tile("i_t * 32")}
    p_x2 = {tile("i_t * 32 + 16")}
    tl.store(p_x1, tl.load(p_x2, boundary_check=(0, 1)) + X_desc, boundary_check=(0, 1))
''')
    assert descriptors(source) == ["p_x1_desc"]
    assert "X_desc = 0" in source and "p_x1_desc.load([i_t * 32 + 16, 0]) + X_desc" in source


def test_elif_of_the_same_chain_shares():
    source = migrated(f'''
    if FLAG:
        b = tl.zeros((16, 16), dtype=tl.float32)
    elif BT > 16:
        b = tl.load({tile("i_t * 32")}, boundary_check=(0, 1))
    else:
        b = tl.zeros((16, 16), dtype=tl.float32)
    if FLAG:
        pass
    elif BT > 16:
        b += tl.load({tile("i_t * 32 + 16")}, boundary_check=(0, 1))
    tl.store({tile("i_t * 32")}, b, boundary_check=(0, 1))
''')
    assert len(descriptors(source)) == 2  # the store is under no `if`: it cannot read the elif's


def test_a_local_flag_not_declared_constexpr_may_be_decided_at_run_time():
    """`use = BT > 16` may be a compile-time value, or not: only `USE: tl.constexpr = BT > 16` is surely one."""
    body = '''
    {use}
    if USE:
        b = tl.load({first}, boundary_check=(0, 1))
    else:
        b = tl.zeros((16, 16), dtype=tl.float32)
    if USE:
        b += tl.load({second}, boundary_check=(0, 1))
    tl.store(X + i_t * 16 + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], b)
'''
    tiles = {"first": tile("i_t * 32"), "second": tile("i_t * 32 + 16")}
    assert len(descriptors(migrated(body.format(use="USE: tl.constexpr = BT > 16", **tiles)))) == 1
    assert len(descriptors(migrated(body.format(use="USE = stride_x > 16", **tiles)))) == 2


def test_a_name_of_two_values_stays_in_its_loop():
    """`p` before the loop and in it is one call over two values of X: neither serves the other, and the loop's
    stays in the loop (before it, `p_desc` would hold the loop's value where the first one's is read)."""
    source = migrated(f'''
    p = {tile("i_t * 32")}
    b = tl.load(p, boundary_check=(0, 1))
    X += 16 * stride_x
    for _ in range(2):
        p = {tile("i_t * 32")}
        b += tl.load(p, boundary_check=(0, 1))
    tl.store(p, b, boundary_check=(0, 1))
''')
    assert source.count("p_desc = tl.make_tensor_descriptor") == 2
    assert "    for _ in range(2):\n        p_desc = tl.make_tensor_descriptor" in source


def test_one_value_created_in_two_loops_is_created_once_before_them():
    source = migrated(f'''
    b = tl.zeros((16, 16), dtype=tl.float32)
    for i in range(2):
        p = {tile("i * 16")}
        b += tl.load(p, boundary_check=(0, 1))
    for i in range(2):
        p = {tile("i * 16 + 32")}
        b += tl.load(p, boundary_check=(0, 1))
    tl.store(p, b, boundary_check=(0, 1))
''')
    assert descriptors(source) == ["p_desc"]
    assert source.index("p_desc = tl.make_tensor_descriptor") < source.index("for i in range(2):")

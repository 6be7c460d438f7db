"""A block pointer's tuples taken from a name are spelt out only where the name holds one tuple all along, and the
names in it one value (the fixture tuple_parts_resolved runs the cases that are); otherwise the creation would
read, where it is made, a value the original did not (TTD105)."""

from __future__ import annotations

import pytest

from triton_migrate.engine import migrate_source

SOURCE = """import triton
import triton.language as tl


@triton.jit
def k(x_ptr, M, N, FLAG: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
{body}
    x = tl.make_block_ptr(x_ptr, shape, (N, 1), (0, 0), (BM, BN), (1, 0))
    v = tl.load(x, boundary_check=(0, 1))
"""


@pytest.mark.parametrize("body", [
    "    shape = (M, N)\n    M = M - 1",  # a name the tuple reads changes after it is built
    "    if FLAG:\n        shape = (M, N)\n    else:\n        shape = (N, M)",  # two tuples
    "    shape = (M, N)\n    shape = (N, M)",
])
def test_a_tuple_whose_value_the_creation_cannot_tell_is_refused(body):
    outcome = migrate_source(SOURCE.format(body=body))

    assert [d.code for d in outcome.refused] == ["TTD105"] and outcome.new_source is None


def test_a_tuple_assigned_once_is_spelt_out():
    outcome = migrate_source(SOURCE.format(body="    shape = (M, N)"), verify=True)

    assert not outcome.refused and "shape" not in outcome.new_source

"""Running offsets that always hold the same value share one variable (rewrite/running_offsets.py): a GEMM's
K offset, as its maintainers write it (`off_k`), and separate variables wherever something could tell the two
apart. Every variant runs bit for bit against the original in the interpreter (the fixtures
stated_facts_gemm and stated_facts_grouped_gemm hold the merged form)."""

from __future__ import annotations

import pytest
import test_config as config_tests

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Policy, Statement

FACTS = Policy(assume=tuple(Statement(f, "the test") for f in ("aligned", "aligned-rows", "in-bounds", "allocator")),
               line_length=120)
GEMM = config_tests.GEMM


def kernel(source: str) -> list[str]:
    return [line.strip() for line in migrate_source(source, policy=FACTS).new_source.splitlines()]


def test_the_operands_of_a_k_loop_share_one_offset_named_after_k():
    found = kernel(GEMM)
    assert found.count("off_k = 0") == 1 and found.count("off_k += BK") == 1
    assert "acc += tl.dot(a_desc.load([pid_m * BM, off_k]), b_desc.load([off_k, pid_n * BN]))" in found
    assert not any("_off" in line for line in found)


@pytest.mark.parametrize("old, new", [
    # a read of one between the two advances: there they differ
    ("        acc += tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)))\n"
     "        a = tl.advance(a, (0, BK))\n",
     "        x = tl.load(a, boundary_check=(0, 1))\n        a = tl.advance(a, (0, BK))\n"
     "        acc += tl.dot(x, tl.load(b, boundary_check=(0, 1)))\n"),
    ("b = tl.advance(b, (BK, 0))", "b = tl.advance(b, (2 * BK, 0))"),  # different steps
    ("(0, pid_n * BN), (BK, BN)", "(BK, pid_n * BN), (BK, BN)"),  # different starts
])
def test_offsets_that_something_tells_apart_stay_apart(old, new):
    assert old in GEMM
    found = kernel(GEMM.replace(old, new))
    assert "a_off1 = 0" in found and not any(line.startswith("off_k") for line in found)


def test_a_name_the_module_has_is_not_taken():
    found = kernel(GEMM.replace("acc = tl.zeros((BM, BN), dtype=tl.float32)",
                                "acc = tl.zeros((BM, BN), dtype=tl.float32)\n    off_k = 3"))
    assert "a_off1 = 0" in found and "a_off1 += BK" in found and "b_off0 = 0" not in found


def test_offsets_advanced_in_either_order_share_one():
    """Triton's attention kernels advance K then V before the loop, V then K in it: the same two values."""
    source = GEMM.replace("        a = tl.advance(a, (0, BK))\n        b = tl.advance(b, (BK, 0))\n",
                          "        b = tl.advance(b, (BK, 0))\n        a = tl.advance(a, (0, BK))\n")
    found = kernel(source)
    assert found.count("off_k = 0") == 1 and found.count("off_k += BK") == 1

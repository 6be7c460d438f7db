"""Running offsets that always hold the same value share one variable (rewrite/running_offsets.py): a GEMM's
K offset, as its maintainers write it (`off_k`), and separate variables wherever something could tell the two
apart. Every variant runs bit for bit against the original in the interpreter (the fixtures
stated_facts_gemm and stated_facts_grouped_gemm hold the merged form)."""

from __future__ import annotations

import pytest
import test_config as config_tests

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Layout, Policy, Statement

FACTS = Policy(assume=tuple(Statement(f, "the test") for f in ("aligned", "aligned-rows", "in-bounds", "allocator")))
WIDE = Layout(line_length=120)  # statements read whole, on one line each
GEMM = config_tests.GEMM


def kernel(source: str) -> list[str]:
    return [line.strip() for line in migrate_source(source, layout=WIDE, policy=FACTS).new_source.splitlines()]


def test_the_operands_of_a_k_loop_share_one_offset_named_after_k():
    found = kernel(GEMM)
    assert found.count("off_k = 0") == 1 and found.count("off_k += BK") == 1
    # each load keeps its masked-pointer form for narrow blocks (TTD107), laid out a part a line
    assert "a_desc.load([pid_m * BM, off_k])" in found and "b_desc.load([off_k, pid_n * BN])" in found
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


POLICIES = {"facts stated": FACTS, "default": Policy(), "pointer": Policy(target="pointer")}


def test_masked_operands_of_a_k_loop_share_one_offset_and_one_mask():
    """Where the loads stay masked pointers (by default, the launch check's fallback), one offset and one
    mask serve both operands, as the hand-written masked GEMM has them."""
    for name in ("default", "pointer"):
        found = [line.strip()
                 for line in migrate_source(GEMM, layout=WIDE, policy=POLICIES[name]).new_source.splitlines()]
        assert found.count("off_k = 0") == 1 and found.count("off_k += BK") == 1, name
        assert found.count("m_k = r_k < tl.maximum(K, 0) - off_k") == 1, name
        assert found.count("r_k = tl.arange(0, BK)") == 1, name  # one range for the addresses and the mask
        assert sum("m_k[" in line for line in found) == 2 and not any("_off" in line for line in found), name


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("old, new", [
    # the first operand loaded between the two advances (in the masked form, through its mask): there they differ
    ("        acc += tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)))\n"
     "        a = tl.advance(a, (0, BK))\n",
     "        a = tl.advance(a, (0, BK))\n"
     "        acc += tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)))\n"),
    ("", ""),  # the two always equal
])
def test_merged_offsets_compute_what_the_block_pointers_did(tmp_path, policy, old, new):
    import torch
    from differential import compare_outputs, import_path

    source = GEMM.replace(old, new)
    (tmp_path / "before.py").write_text(source)
    (tmp_path / "after.py").write_text(migrate_source(source, layout=WIDE, policy=POLICIES[policy]).new_source)
    M, N, K = 37, 44, 28  # rows of 16-byte multiples, as the stated facts say; none a multiple of a block
    outputs = {}
    for which in ("before.py", "after.py"):
        module = import_path(tmp_path / which, f"running_{policy}_{bool(old)}_{which[:-3]}")
        gen = torch.Generator().manual_seed(0)
        a, b = torch.randn(M, K, generator=gen), torch.randn(K, N, generator=gen)
        c = torch.full((M, N), -7.0)
        module.matmul[(3, 3)](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=16, BN=16, BK=16)
        outputs[which] = {"c": c}
    assert compare_outputs(outputs["before.py"], outputs["after.py"]) == []


def test_the_comments_of_a_merged_offset_stay():
    """gpt-oss's `# advance the KV block-pointers so they point at lo` stood above the advance that merged into
    the other one's, and went with it: a comment above a dropped line goes to the next statement, a trailing
    one too, and at the end of a block it ends the block."""
    source = GEMM.replace("        a = tl.advance(a, (0, BK))\n        b = tl.advance(b, (BK, 0))\n",
                          "        # both move on\n        a = tl.advance(a, (0, BK))  # along K\n"
                          "        # the last line\n        b = tl.advance(b, (BK, 0))  # B too\n")
    for policy in POLICIES.values():
        found = migrate_source(source, layout=WIDE, policy=policy).new_source
        assert ("        # both move on\n        off_k += BK  # along K\n        # the last line\n        # B too\n"
                in found)

"""The analysis hands the rewrite records, not closures (issue 37): a load or store through a handle is a
HandleAccess whose fields say what the rewrite builds (form, handle, offsets, check, guard), one on masked
pointers a MaskedAccess (where its pointers come from, offsets, axes, bounds), each printable as code, and
the migrated access is built from that record alone."""

import textwrap

import pytest

from triton_migrate import engine
from triton_migrate.analysis.dataflow import FunctionAnalysis
from triton_migrate.policy import Policy

KERNEL = textwrap.dedent('''
    import triton
    import triton.language as tl


    @triton.jit
    def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr,
               BN: tl.constexpr, BK: tl.constexpr):
        pid_m = tl.program_id(0)
        a_block_ptr = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (pid_m * BM, 0), (BM, BK), (1, 0))
        b_block_ptr = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, 0), (BK, BN), (1, 0))
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_block_ptr, boundary_check=(0, 1), padding_option="zero")
            b = tl.load(b_block_ptr, boundary_check=(0, 1), padding_option="zero")
            acc += tl.dot(a, b)
            a_block_ptr = tl.advance(a_block_ptr, (0, BK))
            b_block_ptr = tl.advance(b_block_ptr, (BK, 0))
        c_block_ptr = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (pid_m * BM, 0), (BM, BN), (1, 0))
        tl.store(c_block_ptr, acc, boundary_check=(0, 1))
''')


@pytest.fixture
def accesses(monkeypatch):
    """Migrate KERNEL under a target: the accesses the analysis handed over (a handle's by its name, masked
    pointers' by the name that holds them), and the output."""
    def migrate(target: str):
        found = []
        original = FunctionAnalysis.edits

        def edits(self):
            found.append(original(self))
            return found[-1]

        monkeypatch.setattr(FunctionAnalysis, "edits", edits)
        outcome = engine.migrate_source(KERNEL, policy=Policy(target=target))
        records = {getattr(a, "handle", None) or a.held.value: a for e in found for a in e.accesses.values()}
        return records, outcome.new_source
    return migrate


def test_a_guarded_descriptor_load_is_a_record(accesses):
    records, new_source = accesses("auto")
    assert sorted(records) == ["a_desc", "b_desc", "c_block_ptr"]  # the store does not pay off (TTD009)
    a = records["a_desc"]
    assert (a.form, a.member, a.padding, a.permutation, a.guard) == ("descriptor", "load", "zero", [0, 1],
                                                                      "USE_DESCRIPTORS")
    assert repr(a) == ("HandleAccess(form='descriptor', member='load', stem='a', padding='zero', "
                       "offsets=['pid_m * BM', 'a_off1'], block=['BM', 'BK'], language='tl', permutation=[0, 1], "
                       "stores_tile=False, guard='USE_DESCRIPTORS', widths_tested=False, "
                       "fallback=MaskedAccess(member='load', "
                       "language='tl', variants=[(None, {0, 1})], named=True, held='a_block_ptr', base='a_ptr', "
                       "strides=['stride_am', '1'], offsets=['pid_m * BM', 'a_off1'], axes=[Axis(language='tl', "
                       "offset='pid_m * BM', block='BM', ranged=False, along='M'), Axis(language='tl', "
                       "offset='a_off1', block='BK', ranged=False, along='K')], shape=['M', 'K'], "
                       "lower=[False, False], padding='zero', moving={1}, created_here=False), handle='a_desc')")
    # built from the record, under the flag, where the offset a_off1 that b_off0 always equals is merged
    # into one later (rewrite/running_offsets.py)
    assert "USE_DESCRIPTORS" in new_source and "a = a_desc.load([pid_m * BM, off_k])" in new_source


def test_compat_loads_and_stores_are_records(accesses):
    records, new_source = accesses("compat")
    assert sorted(records) == ["a_tile", "b_tile", "c_tile"]
    c = records["c_tile"]
    assert (c.form, c.member, c.guard, c.fallback) == ("compat", "store", None, None)
    assert repr(c) == ("HandleAccess(form='compat', member='store', stem='c', padding='zero', "
                       "offsets=['pid_m * BM', '0'], block=['BM', 'BN'], language='tl', permutation=[], "
                       "stores_tile=False, shim='compat', checked='(0, 1)', element='c_ptr', widths_tested=False, "
                       "handle='c_tile')")
    assert "compat.store(c_tile, (pid_m * BM, 0), acc, (0, 1))" in new_source


def test_a_masked_store_is_a_record(accesses):
    records, new_source = accesses("auto")
    c = records["c_block_ptr"]
    assert (c.member, c.named, c.moving, c.created_here, c.lower) == ("store", True, set(), False, [False, False])
    assert [checked for _, checked in c.variants] == [{0, 1}]
    assert repr(c).startswith("MaskedAccess(member='store', language='tl', variants=[(None, {0, 1})], named=True, "
                              "held='c_block_ptr', base='c_ptr', strides=['stride_cm', '1'], ")
    assert "tl.store(c_block_ptr, acc, mask=m_m[:, None] & m_n[None, :])" in new_source

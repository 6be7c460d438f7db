"""Host-side guard decisions on real torch tensors, and the decorator choosing the variant."""

import logging

import pytest
import torch

import triton_migrate.compat as C
from triton_migrate.compat import _guard as G


def reasons(t, **kw):
    return C.check_tensor(t, **kw).reasons


@pytest.mark.parametrize("profile", [G.TMA, G.INTERPRETER])
def test_aligned_contiguous_ok(profile):
    for dt in (torch.float32, torch.float16, torch.bfloat16, torch.int8):
        t = torch.empty(64, 128, dtype=dt)
        assert C.check_tensor(t, profile=profile, store=True).ok, dt


def test_misaligned_base_via_slicing():
    t = torch.empty(64, 129, dtype=torch.float32)
    v = t[:, 1:]  # base + 4 B; row stride 129*4 = 516 B
    r = reasons(v, profile=G.TMA)
    assert any("not 16-byte aligned (misaligned by 4)" in s for s in r)
    assert any("stride[0]=129" in s for s in r)
    # a 16-byte-aligned slice of an aligned row pitch is fine
    w = torch.empty(64, 132, dtype=torch.float32)[:, 4:]
    assert C.check_tensor(w, profile=G.TMA).ok


def test_transposed_tensor():
    t = torch.empty(64, 128, dtype=torch.float16).t()
    r = reasons(t, profile=G.TMA)
    assert any("last stride 128 != 1" in s for s in r)


def test_odd_row_width_store_rule_only_for_tma_stores():
    buf = torch.empty(50, 80, dtype=torch.float32)
    out = buf[:, :70]  # row pitch 320 B is fine; rows of 280 B are not 16-byte multiples
    assert C.check_tensor(out, profile=G.TMA).ok  # loads are exact
    r = reasons(out, profile=G.TMA, store=True)
    assert len(r) == 1 and "overruns" in r[0]
    assert C.check_tensor(out, profile=G.INTERPRETER, store=True).ok  # interpreter stores are exact
    assert C.check_tensor(out, profile=G.POINTER, store=True).ok  # pre-Hopper/AMD: pointers
    assert C.check_tensor(buf[:, :72], profile=G.TMA, store=True).ok  # 288 B


def test_row_pitch_not_multiple_of_16_bytes():
    t = torch.empty(50, 70, dtype=torch.float32)  # contiguous, pitch 280 B
    assert any("280 B not a multiple of 16" in s for s in reasons(t, profile=G.TMA))
    assert C.check_tensor(t, profile=G.POINTER).ok  # pointer lowering does not care
    t16 = torch.empty(3, 10, 24, dtype=torch.float16)  # strides 240, 24 elements -> 480 B, 48 B
    assert C.check_tensor(t16, profile=G.TMA).ok
    t16b = torch.empty(3, 10, 20, dtype=torch.float16)  # 400 B, 40 B
    assert len(reasons(t16b, profile=G.TMA)) == 1


def test_int32_ranges_and_rank():
    class Fake:  # a huge tensor without the memory
        def __init__(self, shape, strides, ptr=0, size=2):
            self.shape, self._s, self._p, self._z = shape, strides, ptr, size

        def stride(self):
            return self._s

        def data_ptr(self):
            return self._p

        def element_size(self):
            return self._z

    assert any("int32" in s for s in reasons(Fake((2**31 + 10, 8), (8, 1)), profile=G.TMA))
    assert any("int32" in s for s in reasons(Fake((2**31 - 10, 8), (8, 1)), profile=G.TMA, block=(64, 8)))
    assert C.check_tensor(Fake((2**31 - 100, 8), (8, 1)), profile=G.TMA, block=(64, 8)).ok
    assert any("rank 6" in s for s in reasons(Fake((1, ) * 6, (1, ) * 6), profile=G.TMA))


def test_check_many_and_choose():
    a = torch.empty(32, 64)
    b = torch.empty(32, 65)[:, 1:]
    v = C.check({"a": a, "b": b}, profile=G.TMA)
    assert not v.ok and all(s.startswith("b:") for s in v.reasons)
    assert C.choose_impl(v) == "emu"
    assert C.choose_impl(C.check({"a": a}, profile=G.TMA)) == "desc"


def test_cpu_tensors_use_interpreter_rules(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    assert C.device_profile(torch.empty(4)) == G.INTERPRETER
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert C.device_profile() == G.INTERPRETER


def test_decorator_on_launcher_function_picks_variant(caplog):
    calls = []

    @C.guard(stores=("out", ), diagnose=True)
    def launch(x, out, n, IMPL=None):
        calls.append(IMPL)

    x = torch.empty(64, 64)
    launch(x, torch.empty(64, 64), 3)
    with caplog.at_level(logging.WARNING, logger="triton_migrate.compat"):
        launch(torch.empty(64, 65)[:, 1:], torch.empty(64, 64), 3)
    launch(x, torch.empty(64, 64), 3, IMPL="bp")  # an explicit choice wins
    assert calls == ["desc", "emu", "bp"]
    assert launch.last_impl == "desc"
    assert any("descriptor path unsafe" in r.message and "misaligned by 4" in r.message for r in caplog.records)


def test_diagnostic_only_mode_logs_without_changing(caplog, monkeypatch):
    calls = []

    @C.guard(select=False)
    def launch(x):
        calls.append(x.shape)

    monkeypatch.setenv("TRITON_MIGRATE_COMPAT_LOG", "1")
    with caplog.at_level(logging.WARNING, logger="triton_migrate.compat"):
        launch(torch.empty(8, 64))
        assert not caplog.records
        launch(torch.empty(64, 8).t())
    assert len(calls) == 2 and len(caplog.records) == 1 and "last stride 8 != 1" in caplog.records[0].message


def test_decorated_kernel_requires_impl_param():
    import triton

    @triton.jit
    def k(x, N):
        pass

    with pytest.raises(TypeError, match="no parameter 'IMPL'"):
        C.guard(k)


@pytest.mark.parametrize("profile", [G.TMA, G.INTERPRETER, G.POINTER])
def test_bool_data_and_narrow_innermost_blocks_have_no_descriptor_anywhere(profile):
    assert reasons(torch.zeros(64, 128, dtype=torch.bool), profile=profile) == ["tensor: bool data (descriptors "
                                                                                 "reject it)"]
    wide = torch.empty(64, 128, dtype=torch.float16)
    assert C.check_tensor(wide, profile=profile, block=(16, 8)).ok  # 8 x 2 B = 16 B
    assert reasons(wide, profile=profile, block=(16, 4)) == ["tensor: innermost block of 4 x 2 B under the 16 "
                                                              "bytes a descriptor needs"]
    verdict = C.check({"x": wide, "m": torch.zeros(64, 128, dtype=torch.bool)}, profile=profile)
    assert not verdict.ok and C.choose_impl(verdict) == ("emu" if C.default_impl == "desc" else C.default_impl)


def test_a_view_one_element_into_its_storage_is_refused_on_tma_and_in_the_interpreter():
    view = torch.empty(4097, dtype=torch.float16)[1:].view(64, 64)
    for profile in (G.TMA, G.INTERPRETER):
        assert reasons(view, profile=profile) == [f"tensor: base address {view.data_ptr():#x} not 16-byte aligned "
                                                  "(misaligned by 2)"]
    assert C.check_tensor(view, profile=G.POINTER).ok

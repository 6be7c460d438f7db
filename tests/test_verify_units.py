"""The pieces of `migrate verify` that need no kernel: NaN-aware bit comparison, ULP distances, locating a
difference in a view, device detection, and cases mode in this process (Triton's interpreter)."""

from __future__ import annotations

import types
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from triton_migrate.verify import command, devices
from triton_migrate.verify.tensors import bits_of, capture, difference, locate

DATA = Path(__file__).resolve().parent / "verify_data"


def _bits(values, dtype=torch.float32):
    return bits_of(torch.tensor(values, dtype=dtype))


def test_computed_nans_are_equal_whatever_their_payload_and_digest_alike():
    a = torch.tensor([1.0, float("nan"), 3.0])
    b = a.clone()
    bits_of(b)[1] = 0x7FC00001  # another NaN payload
    assert difference(bits_of(a), bits_of(b), torch.float32) is None
    assert capture(a, 1 << 20).digest == capture(b, 1 << 20).digest


def test_a_nan_against_a_number_and_signed_zeros_are_differences():
    diff = difference(_bits([1.0, float("nan")]), _bits([1.0, 2.0]), torch.float32)
    assert diff["count"] == 1 and diff["max_abs"] == float("inf") and diff["first"] == 1
    zeros = difference(_bits([0.0]), _bits([-0.0]), torch.float32)
    assert zeros["count"] == 1 and zeros["max_ulp"] == 0


def test_ulp_distance_crosses_zero_and_works_for_half_precision():
    one = torch.tensor([1.0], dtype=torch.float16)
    assert difference(bits_of(one), bits_of(torch.nextafter(one, torch.tensor(2.0, dtype=torch.float16))),
                      torch.float16)["max_ulp"] == 1
    tiny = torch.tensor([1e-45, -1e-45])  # the smallest subnormals on either side of zero: 2 ulp apart
    assert difference(bits_of(tiny[:1]), bits_of(tiny[1:]), torch.float32)["max_ulp"] == 2


def test_integer_outputs_compare_exactly():
    diff = difference(_bits([1, 5, 7], torch.int32), _bits([1, 5, 9], torch.int32), torch.int32)
    assert diff["count"] == 1 and diff["max_abs"] == 2 and "max_ulp" not in diff


def test_large_buffers_keep_a_digest_and_spot_values_only():
    state = capture(torch.arange(1000, dtype=torch.float32), keep_limit=100)
    assert state.host_bits is None and len(state.spots) == 32 and state.spots[-1][0] == 999


def test_a_difference_is_located_in_the_view_or_outside_it():
    view = {"offset": 3, "shape": [4, 5], "stride": [8, 1]}  # 4x5 view at offset 3 of a buffer with rows of 8
    assert locate(3 + 2 * 8 + 4, view) == "[2, 4]"
    assert locate(3 + 2 * 8 + 6, view) == "buffer element 25 (outside the view)"


def test_device_detection_names_rocm_and_xpu_from_torch():
    def fake(cuda, hip, xpu):
        return types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: cuda),
                                     version=types.SimpleNamespace(hip=hip),
                                     xpu=types.SimpleNamespace(is_available=lambda: xpu))

    assert [d.kind for d in devices._available(fake(True, "6.2", False))] == ["rocm"]
    assert [d.kind for d in devices._available(fake(True, None, True))] == ["cuda", "xpu"]
    assert devices._available(fake(False, None, True))[0].torch_device == "xpu"
    assert devices.detect("cpu").interpreted


def test_asking_for_a_device_that_is_not_there_is_one_line_and_exit_2(monkeypatch, tmp_path):
    monkeypatch.setattr(devices, "_available", lambda torch: [])  # as torch says on a machine without a GPU
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(command, ["--device", "cuda", "--", "python", "-c", "open('ran', 'w').close()"])
    assert result.exit_code == 2, result.output
    assert result.output == "Error: device 'cuda' is not available here (torch sees: no accelerator)\n"
    assert not (tmp_path / "ran").exists()


def test_cases_mode_identical_then_a_wrong_module_detected(monkeypatch):
    monkeypatch.chdir(DATA)
    result = CliRunner().invoke(command, ["cases", "cases_ops.py", "--device", "cpu", "--repeat", "1",
                                          "--warmup", "0"])
    assert result.exit_code == 0, result.output
    assert result.output.count("identical") == 3  # two rows and the verdict
    result = CliRunner().invoke(command, ["cases", "cases_ops.py", "--device", "cpu",
                                          "--migrated", "project/kernels/ops.py=wrong_ops.py"])
    assert result.exit_code == 1, result.output
    assert "scale_40x72 launch 0: output y: 37 elements differ" in result.output


def test_the_user_command_is_required():
    result = CliRunner().invoke(command, ["--device", "cpu"])
    assert result.exit_code == 2 and "after `--`" in result.output


def test_spot_values_stay_inside_buffers_beyond_float32_precision():
    """A float32 linspace put the last spot of a 2**24 + 4 element buffer one past its end (a device-side
    assert on a GPU, found by the H100 run over the benchmark suite)."""
    import torch

    from triton_migrate.verify.tensors import spot_values

    flat = torch.arange(2**24 + 4, dtype=torch.int32)
    spots = spot_values(flat)
    assert spots[0] == [0, 0] and spots[-1] == [2**24 + 3, 2**24 + 3]
    assert all(index == value for index, value in spots)


def test_recording_into_a_kept_directory_twice_does_not_pile_up_launches(tmp_path, monkeypatch):
    """A second run with the same --keep directory starts its recordings afresh (on a warm GPU machine the
    launches of an earlier run were counted again, and every kernel showed 'launches differ')."""
    import sys

    from triton_migrate.verify.record import DEFAULTS
    from triton_migrate.verify.runner import record_command

    project = Path(__file__).resolve().parent / "verify_data" / "project"
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    config = {**DEFAULTS, "device": "cpu", "warmup": 0, "repeat": 0}
    counts = [len(record_command([sys.executable, "bench.py", "16"], project, tmp_path / "run.tmv", config,
                                 tmp_path / "scratch").index["launches"]) for _ in range(2)]
    assert counts[0] == counts[1] > 0


def test_timing_a_batch_launches_it_back_to_back_and_reports_the_time_per_launch(monkeypatch):
    # one launch alone is timed with its Python launch cost; a batch amortises it. The test keeps the clock:
    # the launches move it by 10, 20, 30 and 40 ms (a real sleep takes what the machine's load makes it take)
    clock, launches = [0.0], []
    monkeypatch.setattr(devices, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))

    def launch():
        launches.append(1)
        clock[0] += 0.01 * len(launches)

    assert devices.from_kind("cpu").time_ms(launch, batch=4) == pytest.approx(25)
    assert len(launches) == 4


def test_a_gpu_sample_flushes_l2_before_each_launch_and_times_only_the_launches(monkeypatch):
    # as do_bench: a warm L2 moves a descriptor form and a pointer form by different amounts, so tune's choice
    # would not be the benchmark's; the launches queue behind one device sleep, so Python's cost is not timed
    log = []

    class Event:
        def __init__(self, enable_timing):
            self.at = None

        def record(self):
            log.append("record")
            self.at = len(log)

        def synchronize(self):
            pass

        def elapsed_time(self, end):
            return end.at - self.at  # what was queued between the two

    class Buffer:
        def zero_(self):
            log.append("flush")

    monkeypatch.setattr(torch.cuda, "Event", Event)
    monkeypatch.setattr(torch.cuda, "_sleep", lambda cycles: log.append("sleep"))
    monkeypatch.setattr(devices, "_flush_buffer", lambda torch_device: Buffer())
    per_launch = devices.from_kind("cuda").time_ms(lambda: log.append("launch"), batch=3)
    assert log == ["sleep"] + ["flush", "record", "launch", "record"] * 3
    assert per_launch == 2  # each span holds its launch and its own closing record, no flush

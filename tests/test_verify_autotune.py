"""`migrate verify` and `migrate tune` on autotuned kernels launched through autograd: the migrated run takes
the original run's autotuner choices, so that a configuration picked differently by another process is not
mistaken for a difference the migration made (`--own-tuning` shows what that looks like)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from triton_migrate.verify.tuning import PinnedChoices, as_pins, merged

DATA = Path(__file__).resolve().parent / "verify_data" / "autotuned"


@pytest.fixture
def project(tmp_path):
    # kernels/rows.py: the autotuners keep the first configuration in a folder named `project`, the second
    # in any copy of it (the migrated run's), as two processes timing the configurations may
    return Path(shutil.copytree(DATA, tmp_path / "project"))


def _migrate(args, cwd):
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    return subprocess.run([sys.executable, "-m", "triton_migrate.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_the_migrated_run_takes_the_original_runs_autotuner_choices(project):
    done = _migrate(["verify", "--device", "cpu", "--", "python", "bench.py"], project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "autotuners: 2 of 2 choices in the migrated run taken from the original run" in done.stdout
    rows = {line.split()[0]: line.split()[2] for line in done.stdout.splitlines() if line.startswith("kernels.rows:")}
    assert rows == {"kernels.rows:row_sums": "identical", "kernels.rows:spread_rows": "identical"}


def test_with_own_tuning_each_run_tunes_and_the_configurations_differ(project):
    done = _migrate(["verify", "--device", "cpu", "--own-tuning", "--", "python", "bench.py"], project)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 tuned by the migrated run itself, 0 of them as the original run chose" in done.stdout
    assert "kernels.rows:row_sums launch 0: constexpr BN: 16 vs 32" in done.stdout
    assert "kernels.rows:spread_rows launch 0: grid: [3, 7] vs [3, 4]" in done.stdout  # the backward's


def test_tune_chooses_a_form_for_autotuned_kernels_launched_through_autograd(project):
    # one candidate: each takes the original run's choices as the one before it did (one more run of bench.py)
    done = _migrate(["tune", "--device", "cpu", "--candidates", "pointer", "--out", "t.toml", "--",
                     "python", "bench.py"], project)
    assert done.returncode == 0, done.stdout + done.stderr
    table = tomllib.loads((project / "t.toml").read_text())["tool"]["triton-migrate"]["kernel-targets"]
    assert table.keys() == {"row_sums", "spread_rows"}


UNPRUNED = """
import torch
import triton
import triton.language as tl


@triton.autotune([triton.Config({"BN": 16}), triton.Config({"BN": 32})], key=["N"])
@triton.jit
def scale(x_ptr, y_ptr, N, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (N,), (1,), (tl.program_id(0) * BN,), (BN,), (0,))
    y = tl.make_block_ptr(y_ptr, (N,), (1,), (tl.program_id(0) * BN,), (BN,), (0,))
    tl.store(y, tl.load(x, boundary_check=(0,)) * 2, boundary_check=(0,))


def run(x):
    y = torch.empty_like(x)
    scale[lambda meta: (triton.cdiv(x.numel(), meta["BN"]),)](x, y, x.numel())
    return y
"""


def test_an_autotuner_that_times_its_configurations_verifies_in_the_interpreter(tmp_path):
    """Issue 43: an autotuner with configurations to time failed in Triton's interpreter (`0 active drivers`: no
    driver times anything there), with a traceback per run and nothing verified. There each configuration now
    runs once, untimed, the first is kept, and the verdict says which."""
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "__init__.py").write_text("")
    (tmp_path / "kernels" / "k.py").write_text(UNPRUNED)
    (tmp_path / "bench.py").write_text("import torch\nfrom kernels.k import run\n"
                                       "print(float(run(torch.arange(100, dtype=torch.float32)).sum()))\n")
    done = _migrate(["verify", "--device", "cpu", "--", "python", "bench.py"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "active drivers" not in done.stdout + done.stderr
    assert "1 chosen untimed in Triton's interpreter, which cannot time them: each configuration run once and the " \
           "first kept, the only one compared (kernels.k:scale BN: 16," in done.stdout
    rows = {line.split()[0]: line.split()[2] for line in done.stdout.splitlines() if line.startswith("kernels.k:")}
    assert rows == {"kernels.k:scale": "identical"}


class Config:
    def __init__(self, block: int):
        self.block = block

    def __str__(self) -> str:
        return f"BN: {self.block}"


def test_a_pinned_cache_answers_the_keys_the_other_run_tuned_and_lets_the_others_be_tuned():
    configs = [Config(16), Config(32)]
    cache = PinnedChoices(configs, {repr((100, "torch.float32")): "BN: 32"}, {})
    assert (100, "torch.float32") in cache and cache[(100, "torch.float32")] is configs[1]
    assert (7, "torch.float32") not in cache  # unknown: Triton tunes it, as without pinning
    assert PinnedChoices(configs, {repr((5,)): "BN: 64"}, {}).__contains__((5,)) is False  # no such config
    assert cache.pinned == {repr((100, "torch.float32"))}


def test_choices_merge_across_processes_the_first_one_kept(tmp_path):
    for name, config in (("p1", "BN: 16"), ("p2", "BN: 32")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "tuning.jsonl").write_text(
            f'{{"tuner": "m:k", "key": "(1,)", "config": "{config}", "pinned": false}}\n'
            f'{{"tuner": "m:{name}", "key": "(2,)", "config": "{config}", "pinned": false}}\n')
    choices = merged([tmp_path / "p1", tmp_path / "p2"])
    assert as_pins(choices) == {"m:k": {"(1,)": "BN: 16"}, "m:p1": {"(2,)": "BN: 16"}, "m:p2": {"(2,)": "BN: 32"}}

"""`migrate verify` end to end in Triton's interpreter: command mode over the example project's own pytest
suite (identical, with compile mode for sm_90 and gfx942), a deliberately wrong migration, record on 3.8 and
compare on 3.9, and injected output differences and slowdowns between two recordings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from triton_migrate.verify import command

DATA = Path(__file__).resolve().parent / "verify_data"
REPO = DATA.parents[1]
TRITON39 = REPO / ".triton39"


def _verify(args, cwd, pythonpath=None):
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return subprocess.run([sys.executable, "-m", "triton_migrate.verify", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _tree_bytes(root: Path) -> dict:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture
def project(tmp_path):
    shutil.copytree(DATA / "project", tmp_path / "project")
    return tmp_path / "project"


def test_command_mode_over_a_pytest_suite_is_identical_and_cross_compiles(project, tmp_path):
    before = _tree_bytes(project)
    done = _verify(["--device", "cpu", "--targets", "sm_90,gfx942", "--ir-diff", "ttgir", "--json",
                    str(tmp_path / "v.json"), "--", "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                   project)
    assert done.returncode == 0, done.stdout + done.stderr
    verdict = json.loads((tmp_path / "v.json").read_text())
    assert {k["kernel"]: (k["status"], k["compared"]) for k in verdict["kernels"]} == {
        "kernels.ops:matmul": ("identical", 1), "kernels.ops:scale_rows": ("identical", 1)}
    assert "migrated by the codemod: kernels/ops.py" in done.stdout
    compiled = verdict["compile"]
    assert all(r["ok"] for side in ("a", "b") for r in compiled[side].values()), compiled
    # descriptors become TMA on sm_90 only in the migrated version; AMD uses buffer ops in both
    assert compiled["b"]["kernels.ops:matmul|sm_90"]["tma"] and not compiled["a"]["kernels.ops:matmul|sm_90"]["tma"]
    assert compiled["b"]["kernels.ops:matmul|gfx942"]["buffer_ops"]
    assert compiled["a"]["kernels.ops:matmul|sm_90"]["registers"] > 0
    assert "+++ kernels.ops:matmul|sm_90 migrated.ttgir" in done.stdout
    assert _tree_bytes(project) == before  # the user's tree is only read


def test_a_wrong_migration_is_reported_with_where_and_how_much(project, monkeypatch):
    monkeypatch.chdir(project)
    result = CliRunner().invoke(command, ["--device", "cpu", "--migrated", f"kernels/ops.py={DATA / 'wrong_ops.py'}",
                                          "--", "python", "bench.py", "40"])
    assert result.exit_code == 1, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines() if line.startswith("kernels.ops:")}
    assert "identical" in rows["kernels.ops:matmul"]
    assert "DIFFERS" in rows["kernels.ops:scale_rows"]
    # the off-by-one mask writes the zero padding over column 0 of the next row of each row tile
    assert "output y_ptr: 37 elements differ" in result.output and ", 0]:" in result.output


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
    work = tmp_path_factory.mktemp("golden")
    shutil.copytree(DATA / "project", work / "project")
    done = _verify(["record", "--device", "cpu", "--out", str(work / "golden.tmv"), "--", "python", "bench.py", "40"],
                   work / "project")
    assert done.returncode == 0, done.stdout + done.stderr
    return work


@pytest.mark.skipif(not (TRITON39 / "triton").is_dir(), reason="Triton 3.9 is not installed in .triton39")
def test_record_on_38_then_compare_the_migrated_code_on_39(golden):
    project, recording = golden / "project", golden / "golden.tmv"
    assert json.loads((recording / "index.json").read_text())["environment"]["triton"] == "3.8.0"
    done = _verify(["compare", str(recording), "--migrate", "kernels", "--device", "cpu", "--json", "v.json",
                    "--", "python", "bench.py", "40"], project, pythonpath=TRITON39)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "current: Triton 3.9.0" in done.stdout
    verdict = json.loads((project / "v.json").read_text())
    assert [k["status"] for k in verdict["kernels"]] == ["identical", "identical"]
    # the unmigrated code cannot run on 3.9: no launches, a failing command, exit status 1
    done = _verify(["compare", str(recording), "--device", "cpu", "--", "python", "bench.py", "40"], project,
                   pythonpath=TRITON39)
    assert done.returncode == 1 and "launches differ" in done.stdout, done.stdout + done.stderr
    # the launch that raised is a row of its own, with its error (issue 35)
    assert "  launch 0: ran in recorded; raised in current: InterpreterError: NotImplementedError('Block pointers " \
           "have been removed" in done.stdout


def _perturbed_copy(golden: Path, name: str, edit) -> Path:
    copy = golden / name
    shutil.copytree(golden / "golden.tmv", copy)
    index = json.loads((copy / "index.json").read_text())
    edit(copy, index)
    (copy / "index.json").write_text(json.dumps(index))
    return copy


def test_a_perturbed_output_in_a_second_recording_is_found_to_the_ulp(golden):
    def flip_one_bit(copy, index):
        launch = next(entry for entry in index["launches"] if entry["kernel"].endswith("matmul"))
        out = launch["args"]["c_ptr"]
        data = bytearray((copy / out["file"]).read_bytes())
        data[4 * 7] ^= 1  # lowest mantissa bit of element 7: one ulp
        (copy / out["file"]).write_bytes(bytes(data))
        out["digest"] = "perturbed"

    other = _perturbed_copy(golden, "flipped.tmv", flip_one_bit)
    result = CliRunner().invoke(command, ["compare", str(golden / "golden.tmv"), str(other)])
    assert result.exit_code == 1, result.output
    assert "output c_ptr: 1 elements differ; largest at [0, 7]" in result.output and "1 ulp" in result.output


def test_a_slowdown_beyond_the_limit_fails_and_within_it_passes(golden):
    def slower(copy, index):
        for launch in index["launches"]:
            launch["times_ms"] = [t * (3 if launch["kernel"].endswith("scale_rows") else 1)
                                  for t in launch["times_ms"]]

    other = _perturbed_copy(golden, "slow.tmv", slower)
    result = CliRunner().invoke(command, ["compare", str(golden / "golden.tmv"), str(other), "--max-slowdown", "2"])
    assert result.exit_code == 1 and "SLOWER" in result.output, result.output
    result = CliRunner().invoke(command, ["compare", str(golden / "golden.tmv"), str(other), "--max-slowdown", "4"])
    assert result.exit_code == 0, result.output


def test_a_recording_of_another_format_version_is_refused(golden):
    other = _perturbed_copy(golden, "v99.tmv", lambda copy, index: index.update(version=99))
    result = CliRunner().invoke(command, ["compare", str(golden / "golden.tmv"), str(other)])
    assert result.exit_code == 2 and "version 99" in result.output


def test_kernels_that_compile_mode_cannot_load_are_not_verified(golden, tmp_path):
    """Issue 43: compile mode run where the kernels' module does not import (here: from an empty tree) failed in
    both versions alike, and the verdict said identical, exit 0. Nothing was compiled: not verified, exit 2."""
    from triton_migrate.verify.compile import compile_recording

    empty = tmp_path / "empty"
    empty.mkdir()

    def compiled_where_nothing_imports(copy, index):
        index["compile"] = compile_recording(copy, empty, ["sm_90"])

    a = _perturbed_copy(golden, "unloaded_a.tmv", compiled_where_nothing_imports)
    b = _perturbed_copy(golden, "unloaded_b.tmv", compiled_where_nothing_imports)
    result = CliRunner().invoke(command, ["compare", str(a), str(b)])
    assert result.exit_code == 2, result.output
    assert "ERROR: compile mode: kernels.ops:matmul for sm_90 could not be loaded in the recorded version" in \
        result.output
    assert result.output.rstrip().endswith("verdict: not verified")


def test_no_launch_recorded_is_an_error(project):
    done = _verify(["--device", "cpu", "--", "python", "-c", "print('no kernels here')"], project)
    assert done.returncode == 2 and "no Triton launch was recorded" in done.stdout, done.stdout + done.stderr
    assert "note: original: no launch recorded; migrated: no launch recorded" in done.stdout
    assert "None on None" not in done.stdout and "verdict: not verified" in done.stdout


def test_importing_the_package_imports_neither_torch_nor_triton():
    code = ("import sys, triton_migrate.verify as v; assert v.command.name == 'verify'; "
            "print(sorted(m for m in ('torch', 'triton') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr

"""The realistic cases (tests/realistic/) in Triton's interpreter: the original and every migrated form on
Triton 3.8 in this process, the migrated forms on Triton 3.9 in one subprocess, each compared bit for bit with
the original on 3.8 and checked for writes outside its outputs. tests/realistic/run.py does the same on a GPU.

The migrated forms are made here, by the tool, from tests/realistic/kernels/ (nothing is a stored snapshot): a
change to the rewrite shows up here as soon as it is made.
"""

import importlib.util
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("realistic_run", REPO / "tests" / "realistic" / "run.py")
realistic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(realistic)

CASES = [case.name for case in realistic.CASES]
FORMS = list(realistic.FORMS)


@pytest.fixture(scope="module")
def kernel_dirs(tmp_path_factory):
    """{form: directory of the kernels in that form}; a form the tool could not make fails its tests."""
    root = tmp_path_factory.mktemp("realistic")
    dirs = {"original": realistic.KERNELS}
    for form in FORMS:
        problem = realistic.migrate_kernels(form, root / form)
        dirs[form] = problem or root / form
    return dirs


@pytest.fixture(scope="module")
def originals(kernel_dirs):
    return {case: realistic.run_job({"case": case, "kernels": kernel_dirs["original"]}, "cpu") for case in CASES}


@pytest.fixture(scope="module")
def on_triton39(kernel_dirs):
    """Every case in every migrated form, run on Triton 3.9 in one subprocess."""
    jobs = [{"case": case, "form": form, "kernels": str(kernel_dirs[form])}
            for case in CASES for form in FORMS if isinstance(kernel_dirs[form], Path)]
    env = dict(os.environ, TRITON_INTERPRET="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / ".triton39"), os.environ.get("PYTHONPATH")])))
    results = realistic.run_jobs(jobs, "cpu", timeout=600, env=env)
    assert results.get("__triton__", "").startswith("3.9"), results
    return results


def _check(result, original):
    problems = realistic.judge(result, original)
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.mark.parametrize("case", CASES)
def test_original(case, originals):
    _check(originals[case], None)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("case", CASES)
def test_migrated_on_triton38(case, form, kernel_dirs, originals):
    assert isinstance(kernel_dirs[form], Path), kernel_dirs[form]
    _check(realistic.run_job({"case": case, "kernels": kernel_dirs[form]}, "cpu"), originals[case])


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("case", CASES)
def test_migrated_on_triton39(case, form, kernel_dirs, originals, on_triton39):
    assert isinstance(kernel_dirs[form], Path), kernel_dirs[form]
    _check(on_triton39[f"{case}/{form}"], originals[case])


def test_a_write_beside_the_output_is_caught(tmp_path, originals):
    """The harness itself: axpy storing one element early (into the margin before `out`) must fail."""
    source = (realistic.KERNELS / "axpy.py").read_text()
    shifted = source.replace("tl.make_block_ptr(out, (n_elements,)", "tl.make_block_ptr(out - 1, (n_elements + 1,)")
    assert shifted != source
    (tmp_path / "axpy.py").write_text(shifted)
    result = realistic.run_job({"case": "axpy_fp16", "kernels": tmp_path}, "cpu")
    problems = realistic.judge(result, originals["axpy_fp16"])
    assert any("margin" in p for p in problems), problems
    assert any(p.startswith("out:") for p in problems), problems

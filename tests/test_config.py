"""[tool.triton-migrate] in pyproject.toml through the real CLI: nearest file wins, CLI overrides, every key."""

import pytest
from test_cli import KERNEL, REFUSED, codes, invoke, put, snapshot, tree  # noqa: F401 (tree is a fixture)

from triton_migrate import engine
from triton_migrate.policy import Policy

# Rank 1 with a run-time stride: masked pointers under `auto`, refused (TTD103) under `descriptor`.
STRIDED = """\
import triton
import triton.language as tl

@triton.jit
def strided(x_ptr, N, stride, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (N,), (stride,), (0,), (BN,), (0,))
    tl.store(x, tl.load(x, boundary_check=(0,)) + 1, boundary_check=(0,))
"""

# A K loop whose loads feed `tl.dot`: guarded descriptors (TTD009) for the loads under `auto`, masked
# pointers (TTD006) for the store and for everything under `strict` or `pointer`.
GEMM = """\
import triton
import triton.language as tl

@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (pid_m * BM, 0), (BM, BK), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)))
        a = tl.advance(a, (0, BK))
        b = tl.advance(b, (BK, 0))
    c = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c, acc, boundary_check=(0, 1))
"""


def pyproject(root, body, name="pyproject.toml"):
    return put(root, name, "[project]\nname = 'x'\n\n[tool.triton-migrate]\n" + body)


def engine_codes(source, **policy):
    return [d.code for d in engine.migrate_source(source, policy=Policy(**policy)).diagnostics]


def test_nearest_pyproject_wins_and_cli_overrides(tree):
    pyproject(tree, 'target = "descriptor"\n')
    pyproject(tree / "sub", 'target = "pointer"\n')
    put(tree, "a.py", STRIDED)
    put(tree, "sub/b.py", STRIDED)
    result = invoke("--output-format", "concise", "-j1")
    assert codes(result.stdout, "a.py") == engine_codes(STRIDED, target="descriptor") != engine_codes(STRIDED)
    assert codes(result.stdout, "sub/b.py") == engine_codes(STRIDED, target="pointer")
    overridden = invoke("--output-format", "concise", "--target", "descriptor", "-j1")
    assert codes(overridden.stdout, "sub/b.py") == engine_codes(STRIDED, target="descriptor")


def test_a_pyproject_without_the_table_does_not_stop_the_search(tree):
    pyproject(tree, 'target = "descriptor"\n')
    put(tree, "sub/pyproject.toml", "[project]\nname = 'inner'\n")
    put(tree, "sub/b.py", STRIDED)
    assert codes(invoke("--output-format", "concise").stdout) == engine_codes(STRIDED, target="descriptor")


@pytest.mark.parametrize("body, policy", [
    ("strict = true\n", {"strict": True}),
    ('min-triton-version = "3.4"\n', {"min_triton": (3, 4)}),
    ('target = "pointer"\n', {"target": "pointer"}),
])
def test_policy_keys_reach_the_engine(tree, body, policy):
    pyproject(tree, body)
    kernel = put(tree, "k.py", GEMM)
    padded = put(tree, "p.py",
                 GEMM.replace("boundary_check=(0, 1))", 'boundary_check=(0, 1), padding_option="nan")', 1))
    result = invoke("--output-format", "concise", "-j1")
    expected = {p.name: engine_codes(p.read_text(), **policy) for p in (kernel, padded)}
    assert {name: codes(result.stdout, name) for name in expected} == expected
    assert expected != {p.name: engine_codes(p.read_text()) for p in (kernel, padded)}  # the key matters


def test_unknown_key_is_an_error_naming_it(tree):
    config = pyproject(tree, 'target = "auto"\nselcet = ["TTD1"]\n')
    put(tree, "k.py", KERNEL)
    result = invoke()
    assert result.exit_code == 2
    assert "unknown key 'selcet'" in result.stderr and str(config.name) in result.stderr


@pytest.mark.parametrize("body, message", [
    ('target = "tma"\n', "target: must be one of auto, descriptor, pointer"),
    ("strict = 1\n", "strict: must be true or false"),
    ('min-triton-version = "3"\n', "min-triton-version: must be a"),
    ('select = ["XYZ1"]\n', "'XYZ1' is not a rule code"),
    ('per-file-ignores = ["a"]\n', "per-file-ignores: must be a table"),
    ("jobs = 0\n", "jobs: must be a whole number"),
    ('output-format = "xml"\n', "output-format: must be one of"),
    ("exclude = [1]\n", "exclude: must be a list of strings"),
    ("target = \n", "invalid TOML"),
])
def test_bad_values_exit_2(tree, body, message):
    pyproject(tree, body)
    result = invoke()
    assert result.exit_code == 2
    assert message in result.stderr


def test_per_file_ignores_all_leaves_vendor_files_alone(tree):
    pyproject(tree,
              '[tool.triton-migrate.per-file-ignores]\n"backends/ascend/**" = ["ALL"]\n"legacy.py" = ["TTD201"]\n')
    vendor = put(tree, "backends/ascend/k.py", KERNEL)
    legacy = put(tree, "legacy.py", REFUSED)
    before = snapshot(tree)
    result = invoke("--write", "-v")
    assert result.exit_code == 0
    assert snapshot(tree)[vendor] == before[vendor]
    assert snapshot(tree)[legacy] == before[legacy]  # TTD201 ignored and nothing migratable in it
    assert "backends/ascend/k.py: skipped: every rule is ignored" in result.stderr
    assert invoke("backends/ascend/k.py").exit_code == 0  # named explicitly: still the same configuration


def test_select_and_ignore(tree):
    put(tree, "k.py", KERNEL)
    put(tree, "r.py", REFUSED)
    only_refusals = invoke("--select", "TTD2", "--output-format", "concise")
    assert set(codes(only_refusals.stdout)) == {"TTD201"}
    ignored = invoke("--ignore", "TTD201,TTD0", "--output-format", "concise")
    assert ignored.exit_code == 0 and codes(ignored.stdout) == []
    pyproject(tree, 'ignore = ["TTD201"]\n')
    assert "TTD201" not in codes(invoke("--output-format", "concise").stdout)


def test_disabling_a_rewrite_code_keeps_the_file(tree):
    pyproject(tree, 'ignore = ["TTD006"]\n')
    kernel = put(tree, "k.py", GEMM)  # the loads get guarded descriptors (TTD009), the store masked pointers
    result = invoke("--write")
    assert kernel.read_text() == GEMM
    assert result.exit_code == 1
    assert "TTD006 is suppressed or disabled here: the whole file is left untouched" in result.stderr


def test_exclude_applies_to_walks_and_with_force_exclude_to_named_files(tree):
    pyproject(tree, 'exclude = ["third_party/"]\nextend-exclude = ["gen_*.py"]\n')
    put(tree, "third_party/k.py", KERNEL)
    put(tree, "gen_k.py", KERNEL)
    put(tree, "mine.py", KERNEL)
    walked = invoke("--output-format", "concise")
    assert {line.split(":")[0] for line in walked.stdout.splitlines()} == {"mine.py"}
    assert codes(invoke("--output-format", "concise", "gen_k.py").stdout, "gen_k.py")
    forced = invoke("--force-exclude", "gen_k.py", "third_party/k.py")
    assert forced.exit_code == 0 and forced.stdout == ""


def test_run_level_keys(tree):
    pyproject(tree, 'output-format = "github"\njobs = 2\nrespect-gitignore = false\n')
    (tree / ".gitignore").write_text("ignored/\n")
    put(tree, "ignored/k.py", KERNEL)
    result = invoke()
    assert result.stdout.startswith("::error title=triton-migrate (")
    assert "file=ignored/k.py" in result.stdout
    assert invoke("--output-format", "concise").stdout.startswith("ignored/k.py:")


def test_config_file_and_isolated(tree):
    pyproject(tree, 'target = "descriptor"\n')
    other = put(tree, "other/settings.toml", '[tool.triton-migrate]\ntarget = "pointer"\n')
    put(tree, "s.py", STRIDED)
    assert codes(invoke("--output-format", "concise", "--isolated").stdout) == engine_codes(STRIDED)
    chosen = invoke("--output-format", "concise", "--config", str(other))
    assert codes(chosen.stdout) == engine_codes(STRIDED, target="pointer")
    assert invoke("--config", "missing.toml").exit_code == 2


def test_report_uses_the_configuration_too(tree):
    pyproject(tree, 'target = "descriptor"\n')
    put(tree, "s.py", STRIDED)
    result = invoke("report", "--output-format", "concise")
    assert result.exit_code == 0
    assert codes(result.stdout) == engine_codes(STRIDED, target="descriptor")

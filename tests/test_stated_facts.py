"""Facts the user states (TTD010): where they are stated (configuration, command line, the source), which
kernels and arguments they cover, the plain descriptors they allow and what they never allow, the report,
and the launch-time hook: the allocator per launching thread, and the debug switch that turns a false fact
into a Python error naming the kernel, the argument and the fact before Triton ever sees the launch."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import differential as D
import pytest
import test_config as config_tests
import torch
from test_cli import invoke, put, snapshot, tree  # noqa: F401 (tree is a fixture)

from triton_migrate.engine import SourceError, migrate_source
from triton_migrate.policy import Layout, Policy, Statement
from triton_migrate.rules import _launch_support as launch_support

GEMM = config_tests.GEMM  # matmul: a K loop feeding `tl.dot`, then a store


WIDE = Layout(line_length=120)  # statements read whole, on one line each


def stating(*facts: str, **policy) -> Policy:
    return Policy(assume=tuple(Statement(fact, "the test") for fact in facts), **policy)


def kernel_of(source: str) -> str:
    """The migrated kernel, from its first decorator on (after the import of its launch support)."""
    return source[source.index("@"):]


def codes(outcome) -> list[str]:
    return [d.code for d in outcome.diagnostics]


# --- what the facts allow --------------------------------------------------------------------------------------

def test_a_gemm_with_its_facts_stated_gets_plain_descriptors_for_loads_and_store():
    """What the maintainers of Triton's GEMM tutorials wrote by hand: descriptors, no flag, no fallback, one
    offset along K for both operands, where the block widths are literals of 16 elements or more (16 bytes
    of any element type)."""
    source = GEMM
    for old, new in [("(BM, BK)", "(BM, 32)"), ("(BK, BN)", "(32, 64)"), ("(BM, BN), (1, 0)", "(BM, 64), (1, 0)"),
                     ("(0, BK)", "(0, 32)"), ("(BK, 0)", "(32, 0)"), ("pid_n * BN", "pid_n * 64")]:
        source = source.replace(old, new)
    outcome = migrate_source(source, layout=WIDE, policy=stating("aligned", "aligned-rows"))
    assert codes(outcome) == ["TTD010"] * 3
    assert kernel_of(outcome.new_source) == '''@with_allocator
@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BM, 32])
    off_k = 0
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [32, 64])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(a_desc.load([pid_m * BM, off_k]), b_desc.load([off_k, pid_n * 64]))
        off_k += 32
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, 1], [BM, 64])
    c_desc.store([pid_m * BM, pid_n * 64], acc)
'''


def test_block_widths_the_launch_chooses_are_tested_when_triton_compiles():
    """Where nothing bounds a block width (widths.py) and no `widths` is stated, a descriptor's block rows need
    16 bytes (TTD107): where the launch chooses the width, the kernel tests it once at its top, a constexpr that
    Triton folds, and each access keeps both forms, as the launch guard's (TTD009) but with no check at launch.
    The fixture stated_facts_narrow_block runs both widths bit for bit."""
    outcome = migrate_source(GEMM, layout=WIDE, policy=stating("aligned", "aligned-rows"))
    assert codes(outcome) == ["TTD010"] * 3
    assert all("fewer than 16 bytes" in d.message for d in outcome.diagnostics)
    kernel = kernel_of(outcome.new_source)
    assert kernel.startswith('''@with_allocator
@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    # a descriptor's block rows hold at least 16 bytes (128 bits)
    USE_DESCRIPTORS: tl.constexpr = (
        BK * a_ptr.dtype.element_ty.primitive_bitwidth >= 128
        and BN * b_ptr.dtype.element_ty.primitive_bitwidth >= 128
        and BN * c_ptr.dtype.element_ty.primitive_bitwidth >= 128
    )
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    if USE_DESCRIPTORS:
        a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BM, BK])
'''), kernel
    assert """    if USE_DESCRIPTORS:
        c_desc.store([pid_m * BM, pid_n * BN], acc)
    else:
        tl.store(c, acc, mask=m_m[:, None] & m_n[None, :])
""" in kernel
    assert "launch_guard" not in outcome.new_source


def test_a_block_width_computed_in_the_kernel_keeps_masked_pointers():
    """A test at the kernel's top cannot read a width the kernel computes: masked pointers, and the reason."""
    source = GEMM.replace("    pid_m = tl.program_id(0)\n", "    pid_m = tl.program_id(0)\n    BK = BK // 2\n")
    outcome = migrate_source(source, layout=WIDE, policy=stating("aligned", "aligned-rows"))
    assert codes(outcome) == ["TTD006", "TTD010", "TTD010"], outcome.diagnostics
    assert "TTD107" in outcome.diagnostics[0].message and "a_desc" not in outcome.new_source
    descriptors_only = migrate_source(source, layout=WIDE,
                                      policy=stating("aligned", "aligned-rows", target="descriptor"))
    assert codes(descriptors_only) == ["TTD107", "TTD010", "TTD010"]  # no fallback there: refused, untouched
    assert "a = tl.make_block_ptr(" in descriptors_only.new_source


def test_a_pointer_that_may_be_none_is_tested_only_where_it_is_not():
    """A block pointer created under `if HAS_BIAS:`, whose launches pass None without it: the width test at the
    kernel's top must not read None's element type."""
    source = """import triton
import triton.language as tl


@triton.jit
def bias_kernel(b_ptr, y_ptr, N, HAS_BIAS: tl.constexpr, BN: tl.constexpr):
    acc = tl.zeros((BN,), dtype=tl.float32)
    if HAS_BIAS:
        b = tl.make_block_ptr(b_ptr, (N,), (1,), (0,), (BN,), (0,))
        acc += tl.load(b, boundary_check=(0,))
    tl.store(y_ptr + tl.arange(0, BN), acc, mask=tl.arange(0, BN) < N)
"""
    outcome = migrate_source(source, layout=WIDE, policy=stating("aligned", "allocator"))
    module = {}
    exec(compile(outcome.new_source, "bias_kernel.py", "exec"), module)
    y = torch.full((4,), 7.0)
    module["bias_kernel"][(1,)](None, y, 4, HAS_BIAS=False, BN=4)
    assert torch.equal(y, torch.zeros(4))
    bias = torch.arange(4.0)
    for width in (2, 4):  # 8 bytes: masked pointers; 16: a descriptor
        y = torch.full((4,), 7.0)
        module["bias_kernel"][(1,)](bias, y, 4, HAS_BIAS=True, BN=width)
        assert torch.equal(y[:width], bias[:width]), width
    assert "USE_DESCRIPTORS: tl.constexpr = b_ptr is None or BN * b_ptr.dtype.element_ty.primitive_bitwidth >= 128" \
        in outcome.new_source


def test_nothing_is_assumed_that_no_one_stated():
    default = migrate_source(GEMM, layout=WIDE)
    assert codes(default) == ["TTD009", "TTD009", "TTD006"] and "stated_facts" not in default.new_source
    aligned_only = migrate_source(GEMM, layout=WIDE, policy=stating("aligned"))
    # the store would overwrite the rows' padding without `aligned-rows`: masked pointers, the loads descriptors
    assert codes(aligned_only) == ["TTD010", "TTD010", "TTD006"]
    assert "TTD111" in aligned_only.diagnostics[2].message and "c_desc" not in aligned_only.new_source
    assert "launch_guard" not in aligned_only.new_source


def test_strict_relies_on_no_stated_fact():
    outcome = migrate_source(GEMM, layout=WIDE, policy=stating("aligned", "aligned-rows", strict=True))
    assert set(codes(outcome)) == {"TTD006"}


@pytest.mark.parametrize("old, new, site, code", [
    ("(pid_m * BM, pid_n * BN), (BM, BN)", "(pid_m * BM - 1, pid_n * BN), (BM, BN)", 2, "TTD110"),  # a negative row
    ("a = tl.advance(a, (0, BK))", "a = tl.advance(a, (0, 1))", 0, "TTD102"),  # an inner offset of 4 bytes
    ("(pid_m * BM, 0), (BM, BK)", "(pid_m.to(tl.int64) * BM, 0), (BM, BK)", 0, "TTD106"),  # int64 offsets
])
def test_facts_do_not_cover_what_the_source_must_prove(old, new, site, code):
    source = GEMM.replace(old, new)
    descriptors = migrate_source(source, layout=WIDE, policy=stating("aligned", "aligned-rows", target="descriptor"))
    assert (descriptors.diagnostics[site].code, descriptors.diagnostics[site].decision) == (code, "untouched")
    default = migrate_source(source, layout=WIDE, policy=stating("aligned", "aligned-rows"))
    assert default.diagnostics[site].decision == "pointer"


def test_a_base_term_without_a_witness_keeps_masked_pointers_where_a_hook_checks_the_facts():
    # `bos` is loaded in the kernel: no launch can check it, so no stated fact covers it, unless nothing checks
    # them: with the allocator stated there is no hook, and `aligned` says what it says of every offset
    source = GEMM.replace("    a = tl.make_block_ptr(a_ptr,",
                          "    bos = tl.load(c_ptr)\n    a = tl.make_block_ptr(a_ptr + bos,")
    outcome = migrate_source(source, layout=WIDE, policy=stating("aligned", "aligned-rows"))
    assert codes(outcome)[0] == "TTD006"
    unchecked = migrate_source(source, layout=WIDE, policy=stating("aligned", "aligned-rows", "allocator"))
    assert codes(unchecked)[0] == "TTD010" and "a_desc = tl.make_tensor_descriptor(a_ptr + bos," in unchecked.new_source
    assert ("its data, and `stride_am`, `bos` × itemsize, multiples of 16 bytes"
            in unchecked.diagnostics[0].requirements[0])


HELPER = GEMM.replace("def matmul(", "def _matmul(") + '''

@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    _matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM, BN, BK)
'''


def test_a_helper_has_no_launch_to_hook_and_states_nothing():
    outcome = migrate_source(HELPER, layout=WIDE, policy=stating("aligned", "aligned-rows"))
    assert "TTD010" not in codes(outcome) and "stated_facts" not in outcome.new_source


def test_a_helper_whose_allocator_is_stated_needs_no_hook_and_relies_on_its_facts():
    """Intel's stream-K GEMM creates its block pointers in `mac_loop`, a helper its kernels call: with the
    allocator stated, nothing needs a launch, and the helper's descriptors are the hand version's."""
    outcome = migrate_source(HELPER, layout=WIDE, policy=stating("aligned", "aligned-rows", "allocator"))
    assert codes(outcome) == ["TTD010"] * 3 and "stated_facts" not in outcome.new_source
    assert "c_desc.store([pid_m * BM, pid_n * BN], acc)" in outcome.new_source


STORE_TILE = """
import triton
import triton.language as tl


@triton.jit
def _store_tile(c_ptr, M, N, stride_cm, row, BM: tl.constexpr, BN: tl.constexpr):
    c = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (row, 0), (BM, BN), (1, 0))
    tl.store(c, tl.zeros((BM, BN), dtype=tl.float32), boundary_check=(0, 1))


@triton.jit
def clear_rows(c_ptr, M, N, stride_cm, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    _store_tile(c_ptr, M, N, stride_cm, pid * BM, BM, BN)
"""


def test_a_helper_that_creates_its_own_block_pointer_proves_offsets_from_its_calls():
    """No block pointer crosses the call, yet whether the helper's store offset is >= 0 hangs on what its
    callers pass: the program's calls decide, in the run of one module as in a tree's. A call passing the row
    above (`pid * BM - BM`, negative for the first program) keeps masked pointers, where a TMA store would trap."""
    facts = stating("aligned", "aligned-rows", "allocator")
    assert codes(migrate_source(STORE_TILE, layout=WIDE, policy=facts)) == ["TTD010"]
    above = STORE_TILE + "    _store_tile(c_ptr, M, N, stride_cm, pid * BM - BM, BM, BN)\n"
    outcome = migrate_source(above, layout=WIDE, policy=facts)
    assert codes(outcome) == ["TTD006"] and "TTD110 store offset in dimension 0" in outcome.diagnostics[0].message


def test_target_descriptor_refuses_what_no_one_stated_and_names_the_fact():
    outcome = migrate_source(GEMM, policy=Policy(target="descriptor"))
    assert codes(outcome) == ["TTD112", "TTD112", "TTD111"] and outcome.new_source is None
    assert outcome.diagnostics[0].message.startswith("the data of `a_ptr` must be 16-byte aligned")
    assert "no one stated `aligned` for it" in outcome.diagnostics[0].message
    rows = migrate_source(GEMM, layout=WIDE, policy=stating("aligned", target="descriptor"))
    assert codes(rows) == ["TTD010", "TTD010", "TTD111"]
    assert "no one stated `aligned-rows`" in rows.diagnostics[2].message


# GEMM with the grouped program ordering of Triton's tutorial, whose column offset divides by a `min` of a
# difference: negative on no launch with one program per tile, provably so on none.
GROUPED = GEMM.replace("    pid_m = tl.program_id(0)\n    pid_n = tl.program_id(1)\n", """\
    pid = tl.program_id(0)
    num_pid_in_group = 8 * tl.cdiv(N, BN)
    first_pid_m = pid // num_pid_in_group * 8
    group_size_m = min(tl.cdiv(M, BM) - first_pid_m, 8)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
""")
ALL_FACTS = ("aligned", "aligned-rows", "in-bounds", "allocator")


def test_in_bounds_covers_store_offsets_and_unchecked_dimensions_that_depend_on_program_ids():
    """What the humans relied on when they wrote a descriptor store at `pid_n * BN` and a descriptor load the
    block pointer did not boundary-check: the tiles lie where the grid puts them."""
    source = GROUPED.replace("tl.load(b, boundary_check=(0, 1))", "tl.load(b, boundary_check=(0,))")
    without = migrate_source(source, layout=WIDE, policy=stating("aligned", "aligned-rows"))
    assert codes(without) == ["TTD010", "TTD006", "TTD006"]
    assert "TTD101 dimension 1 is not boundary-checked" in without.diagnostics[1].message
    assert "TTD110 store offset in dimension 1 may be negative" in without.diagnostics[2].message
    stated = migrate_source(source, layout=WIDE, policy=stating("aligned", "aligned-rows", "in-bounds"))
    assert codes(stated) == ["TTD010"] * 3
    assert "c_desc.store([pid_m * BM, pid_n * BN], acc)" in stated.new_source
    assert "`c_ptr` stated `in-bounds` (the test): no tile starts before it, and each lies inside it where its " \
           "access does not check the bounds (not checked at launch: tiles depend on program ids)" in \
           stated.diagnostics[2].requirements
    assert "@with_allocator\n" in stated.new_source and '"in-bounds"' not in stated.new_source  # no facts listed


def test_in_bounds_serves_plain_descriptors_only():
    """A launch guard's descriptor (TTD009) relies on what the launch checks, and nothing else: with the
    alignment unstated, the store stays masked pointers and says which fact it misses."""
    outcome = migrate_source(GROUPED, layout=WIDE, policy=stating("aligned-rows", "in-bounds"))
    assert outcome.diagnostics[2].decision == "pointer" and "c_desc" not in outcome.new_source
    assert "no one stated `aligned` for it" in outcome.diagnostics[2].message


def test_a_grouped_gemm_with_its_facts_stated_reads_as_the_hand_migration():
    """Plain descriptors for the loads and the store; with `allocator` stated (the launching threads have one,
    or need none), no hook and no launch support: nothing but what a maintainer writes."""
    outcome = migrate_source(GROUPED, layout=WIDE, policy=stating(*ALL_FACTS))
    assert codes(outcome) == ["TTD010"] * 3
    assert outcome.new_source.startswith("import triton\nimport triton.language as tl\n\n@triton.jit\ndef matmul(")
    assert "stated_facts" not in outcome.new_source and "allocator" not in outcome.new_source
    assert "c_desc.store([pid_m * BM, pid_n * BN], acc)" in outcome.new_source


def test_a_package_whose_allocator_is_stated_gets_no_launch_support(tree):
    pyproject(tree, f"assume = {list(ALL_FACTS)!r}\n".replace("'", '"'))
    put(tree, "pkg/__init__.py", "")
    put(tree, "pkg/gemm.py", GROUPED)
    assert invoke("--write", "-j1", "pkg").exit_code == 0
    assert "_triton_launch" not in (tree / "pkg/gemm.py").read_text()
    assert not (tree / "pkg/_triton_launch.py").exists()


# --- where facts are stated ------------------------------------------------------------------------------------

def test_inline_statements_on_the_def_line_a_parameter_line_and_a_creation_line():
    lines = GEMM.replace("def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr,"
                         " BN: tl.constexpr,\n           BK: tl.constexpr):",
                         "def matmul(\n    a_ptr,  # migrate: assume[aligned]\n    b_ptr,\n    c_ptr,\n"
                         "    M, N, K, stride_am, stride_bk, stride_cm, BM: tl.constexpr, BN: tl.constexpr, "
                         "BK: tl.constexpr,\n"
                         "):")
    by_parameter = migrate_source(lines, layout=WIDE)
    assert codes(by_parameter) == ["TTD010", "TTD009", "TTD006"]  # a_ptr only
    assert "`# migrate: assume` on line 6" in by_parameter.diagnostics[0].requirements[0]
    on_c = GEMM.replace("(BM, BN), (1, 0))\n", "(BM, BN), (1, 0))  # migrate: assume[aligned, aligned-rows]\n")
    assert codes(migrate_source(on_c, layout=WIDE)) == ["TTD009", "TTD009", "TTD010"]
    on_def = GEMM.replace("           BK: tl.constexpr):", "           BK: tl.constexpr):  # migrate: assume[aligned]")
    assert codes(migrate_source(on_def)) == ["TTD009", "TTD009", "TTD006"]  # not the def line: the last parameter's
    on_def = GEMM.replace("def matmul(a_ptr,", "def matmul(a_ptr,  # migrate: assume[aligned]\n   ", 1)
    assert codes(migrate_source(on_def)) == ["TTD010", "TTD010", "TTD006"]


def test_a_check_reads_inline_statements_as_a_rewrite_does():
    """A check that prints no code analyses the stdlib ast's tree rebuilt, with positions of its own."""
    source = (D.FIXTURES / "stated_facts_gemm" / "before.py").read_text()
    assert codes(migrate_source(source, verify=False, rewrite=False)) == codes(migrate_source(source)) == ["TTD010"] * 3


def test_an_inline_statement_of_an_unknown_fact_is_an_error_naming_its_line(tree):
    source = GEMM.replace("(BM, BN), (1, 0))\n", "(BM, BN), (1, 0))  # migrate: assume[algned]\n")
    with pytest.raises(SourceError, match=r"line 16: .*'algned'; the facts are contiguous, aligned, aligned-rows"):
        migrate_source(source)
    put(tree, "k.py", source)
    before = snapshot(tree)
    result = invoke("--write", "--isolated", ".")
    assert result.exit_code == 2 and "k.py: error: line 16:" in result.stderr
    assert snapshot(tree) == before


def test_a_statement_in_a_string_is_none():
    source = GEMM.replace("    pid_n = tl.program_id(1)\n",
                          '    pid_n = tl.program_id(1)\n    "# migrate: assume[x]"\n')
    assert migrate_source(source).diagnostics  # no error: it is no comment


def pyproject(root, text: str, where: str = "pyproject.toml") -> None:
    put(root, where, "[tool.triton-migrate]\n" + text)


@pytest.mark.parametrize("table, key", [
    ('assume = ["algned"]\n', "assume: 'algned' is not a fact"),
    ('assume = "aligned"\n', "assume: must be a list of strings"),
    ('per-file-assume = ["aligned"]\n', "per-file-assume: must be a table"),
    ('[tool.triton-migrate.kernel-assume]\n"k.a.b" = ["aligned"]\n', "kernel-assume: 'k.a.b' is not a kernel"),
    ('[tool.triton-migrate.kernel-assume]\nk = ["rows"]\n', "kernel-assume: 'rows' is not a fact"),
    ('[tool.triton-migrate.kernel-assume]\n"k.a" = ["allocator"]\n',
     "kernel-assume: `allocator` is stated of a kernel"),
])
def test_a_bad_key_or_value_names_the_file_and_the_key(tree, table, key):
    pyproject(tree, table)
    put(tree, "k.py", GEMM)
    result = invoke(".")
    assert result.exit_code == 2
    assert f"pyproject.toml: {key}" in result.stderr, result.stderr


def sites(result) -> dict[str, list[str]]:
    """path -> the codes of its sites, from a concise listing."""
    found: dict[str, list[str]] = {}
    for path, code in re.findall(r"^(\S+?):\d+:\d+: (TTD\d+)", result.stdout, re.M):
        found.setdefault(path, []).append(code)
    return found


def test_project_path_kernel_and_argument_resolution(tree):
    pyproject(tree, 'per-file-assume = {"fast/**" = ["aligned"]}\n'
                    '[tool.triton-migrate.kernel-assume]\n'
                    'matmul = {c_ptr = ["aligned", "aligned-rows"]}\n'
                    '"other_kernel.a_ptr" = ["aligned"]\n')
    put(tree, "fast/k.py", GEMM)
    put(tree, "slow/k.py", GEMM)
    put(tree, "slow/o.py", GEMM.replace("matmul", "other_kernel"))
    found = sites(invoke("--output-format", "concise", "-j1", "."))
    assert found == {"fast/k.py": ["TTD010", "TTD010", "TTD010"],  # the glob's `aligned`, the kernel's rows
                     "slow/k.py": ["TTD009", "TTD009", "TTD010"],  # the kernel's argument c_ptr only
                     "slow/o.py": ["TTD010", "TTD009", "TTD006"]}  # the other kernel's a_ptr only
    assert sites(invoke("--output-format", "concise", "-j1", "--assume", "aligned,aligned-rows", "slow/o.py")) == {
        "slow/o.py": ["TTD010"] * 3}  # the command line adds to nothing it replaces here: o.py had no `assume`


def test_the_project_assume_and_its_override(tree):
    pyproject(tree, 'assume = ["aligned", "aligned-rows"]\n')
    put(tree, "k.py", GEMM)
    assert sites(invoke("--output-format", "concise", "-j1", ".")) == {"k.py": ["TTD010"] * 3}
    assert sites(invoke("--output-format", "concise", "-j1", "--assume", "aligned", ".")) == {
        "k.py": ["TTD010", "TTD010", "TTD006"]}  # `--assume` replaces the key


def test_the_report_lists_each_fact_relied_on_and_where_it_was_stated(tree):
    pyproject(tree, 'assume = ["aligned"]\n[tool.triton-migrate.kernel-assume]\n"matmul.c_ptr" = ["aligned-rows"]\n')
    put(tree, "k.py", GEMM)
    report = invoke("report", "-j1", ".").stdout
    assert re.search(r"^  k\.py:16:9 +TTD010  descriptor  block pointer `c` → tensor descriptor `c_desc` "
                     r"on stated facts "
                     r"\(`c_ptr` aligned, `c_ptr` aligned-rows\) \(masked pointers where its innermost block holds "
                     r"fewer than 16 bytes, which Triton tells when it compiles\)$", report, re.M)
    assert "      requires: `c_ptr` stated `aligned` (pyproject.toml: assume): its data, and `stride_cm` × itemsize, " \
           "multiples of 16 bytes\n" in report
    assert '      requires: `c_ptr` stated `aligned-rows` (pyproject.toml: kernel-assume "matmul.c_ptr"): a row, ' \
           "`N` × itemsize, a multiple of 16 bytes\n" in report
    assert "4 stated facts relied on above" in report and "`migrate verify` checks" in report


# --- at launch: the fixture's migration, in the interpreter --------------------------------------------------------

CASE = D.FIXTURES / "stated_facts_gemm"


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    path = tmp_path_factory.mktemp("stated") / "after.py"
    path.write_text(migrate_source((CASE / "before.py").read_text()).new_source)
    path.with_name(f"{launch_support.MODULE}.py").write_text(launch_support.module_source())  # as --write does
    return D.import_path(path, "stated")


def launch(module, a, b, c, M, N, K):
    module.matmul_kernel[(3, 3)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                                 c.stride(1), BLOCK_M=16, BLOCK_N=32, BLOCK_K=16)


def test_the_migrated_kernel_runs_bit_for_bit(migrated):
    harness = D.load_harness(CASE)
    after = {name: {k: D._bit_copy(v) for k, v in harness.run(migrated, inputs).items()}
             for name, inputs in harness.cases()}
    assert not D.compare_runs(D.run_fixture(CASE, "before.py"), after, "stated facts")


def tensors(M=40, N=52, K=36):
    return torch.ones(M, K), torch.ones(K, N), torch.zeros(M, N)


def test_the_emitted_code_checks_no_fact_and_the_interpreter_finds_a_false_one_itself(migrated):
    """No hook lists or checks the facts (`migrate verify` does): a view that starts one element into its
    storage reaches the interpreter's own assertion (a GPU would fault)."""
    source = Path(migrated.__file__).read_text()
    assert "stated_facts" not in source and "stride_am\")" not in source and "CHECK_FACTS" not in source
    a, b, c = tensors()
    with pytest.raises(Exception, match="16-byte aligned|16 bytes") as error:
        launch(migrated, torch.ones(40 * 36 + 1)[1:].view(40, 36), b, c, 40, 52, 36)
    assert "stated" not in str(error.value)


def test_every_launching_thread_gets_an_allocator(migrated):
    from triton.runtime import _allocation

    seen = {}

    def run():
        launch(migrated, *tensors(), 40, 52, 36)
        seen["allocator"] = _allocation._allocator.get()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert not isinstance(seen["allocator"], _allocation.NullAllocator)


MERGED_UNDECIDED = '''import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, S0, S1, sx0, sx1, sy0, sy1, B0: tl.constexpr, B1: tl.constexpr, FLAG: tl.constexpr):
    if FLAG:
        p = tl.make_block_ptr(x_ptr, (S0, S1), (sx0, sx1), (0, 0), (B0, B1), (1, 0))
        acc = tl.load(p, boundary_check=(0, 1))
    else:
        p = tl.make_block_ptr(x_ptr, (S0, S1), (sx0, sx1), (0, 0), (B0, B1), (0, 1))
        acc = tl.load(p)
    acc += tl.load(p)
    tl.store(y_ptr + tl.arange(0, B0)[:, None] * sy0 + tl.arange(0, B1)[None, :] * sy1, acc)
'''


def test_merged_block_pointers_one_of_which_contiguous_leaves_undecided_are_reported():
    """A fuzzer kernel: block pointers merged from two paths, `contiguous` stated, one path's `order` a hint
    that disagrees with its positions (no unit stride decided there). Its report once asked that creation what
    its descriptor relies on and raised (AttributeError); it relies on nothing, as no descriptor access reads it."""
    policy = Policy(assume=tuple(Statement(fact, "test") for fact in ("aligned", "allocator", "contiguous")))
    outcome = migrate_source(MERGED_UNDECIDED, policy=policy)
    assert "TTD103 `contiguous` is stated of the tensor, but `order` names dimension 0" in \
        "".join(d.message for d in outcome.diagnostics)


def test_a_creation_the_dot_loop_moves_gets_no_descriptor_even_on_stated_facts():
    """TTD119: fixtures/pipelined_creation_compat's kernel, the matrix per chunk created in each pass of its dot
    loop: on stated facts masked pointers, under `--target descriptor` a refusal (the other block pointers
    migrate), each saying why."""
    source = (D.FIXTURES / "pipelined_creation_compat" / "before.py").read_text()
    facts = migrate_source(source, layout=WIDE, policy=stating(*ALL_FACTS))
    p_h = next(d for d in facts.diagnostics if "`p_h`" in d.message)
    assert p_h.code == "TTD006" and "TTD119" in p_h.message
    strict = migrate_source(source, layout=WIDE, policy=stating(*ALL_FACTS, target="descriptor"))
    assert [d.code for d in strict.diagnostics if "TTD119" in d.code] == ["TTD119"]
    assert "tl.make_block_ptr(h + i * K * K" in strict.new_source  # left as it was; the others migrate

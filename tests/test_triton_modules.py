"""Triton re-exported by a module outside the run (frontend/triton_modules.py, TTD202): the module's source is
found as Python would find it (the project, the installed packages) and read without being imported; the
configuration can state it instead; where neither says the name is Triton's, the block pointers are reported."""

from __future__ import annotations

import json

import pytest
from test_cli import codes, invoke, put, snapshot

from triton_migrate.frontend.triton_modules import imported

# What vLLM's vllm/triton_utils/__init__.py does: Triton where it is installed, a placeholder elsewhere.
TRITON_UTILS = """from typing import TYPE_CHECKING

from vllm.triton_utils.importing import HAS_TRITON, TritonLanguagePlaceholder, TritonPlaceholder

if TYPE_CHECKING or HAS_TRITON:
    import triton
    import triton.language as tl
else:
    triton = TritonPlaceholder()
    tl = TritonLanguagePlaceholder()
"""
IMPORTING = "HAS_TRITON = True\nTritonPlaceholder = TritonLanguagePlaceholder = object\n"
BODY = """

@triton.jit
def add_one_kernel(a, b, R, C, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    p = tl.make_block_ptr(a, (R, C), (C, 1), (pid * BR, 0), (BR, BC), (1, 0))
    q = tl.make_block_ptr(b, (R, C), (C, 1), (pid * BR, 0), (BR, BC), (1, 0))
    tl.store(q, tl.load(p, boundary_check=(0, 1)) + 1.0, boundary_check=(0, 1))
"""
KERNEL = "from vllm.triton_utils import tl, triton\n" + BODY


def install(site, utils=TRITON_UTILS):
    put(site, "vllm/__init__.py", "")
    put(site, "vllm/triton_utils/__init__.py", utils)
    put(site, "vllm/triton_utils/importing.py", IMPORTING)


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A hardware plugin's kernel file, and vLLM installed in a site directory on sys.path (not in the run)."""
    monkeypatch.chdir(tmp_path)
    put(tmp_path, "plugin/plugin/__init__.py", "")
    put(tmp_path, "plugin/plugin/ops.py", KERNEL)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return tmp_path


def test_an_installed_package_that_binds_tl_under_if_has_triton_is_read(plugin):
    install(plugin / "site")
    done = invoke("-j1", "--no-cache", "--write", "plugin")
    assert done.exit_code == 0, done.stdout + done.stderr
    written = (plugin / "plugin/plugin/ops.py").read_text()
    assert "make_block_ptr" not in written and "mask=" in written


def test_the_package_is_read_not_imported(plugin):
    """Its source raises when executed: reading it must not run it."""
    install(plugin / "site", "raise SystemExit('imported')\n" + TRITON_UTILS)
    done = invoke("-j1", "--no-cache", "plugin")
    assert codes(done.stdout) == ["TTD006", "TTD006"], done.stdout


def test_a_module_of_the_project_outside_the_run_is_read(tmp_path, monkeypatch):
    """vLLM's own kernel, migrated alone: `vllm.triton_utils` is in its project, not in the run."""
    monkeypatch.chdir(tmp_path)
    install(tmp_path)
    put(tmp_path, "vllm/ops/__init__.py", "")
    put(tmp_path, "vllm/ops/k.py", KERNEL)
    assert codes(invoke("-j1", "--no-cache", "vllm/ops/k.py").stdout) == ["TTD006", "TTD006"]


@pytest.mark.parametrize("utils", [
    "import tokenspeed_triton as triton\nimport tokenspeed_triton.language as tl\n",  # another distribution
    "try:\n    import triton.language as tl\nexcept ImportError:\n    import other_triton.language as tl\n",
    "if USE_OTHER:\n    import other_triton.language as tl\nelse:\n    import triton.language as tl\n",
])
def test_a_package_that_binds_tl_to_something_else_leaves_the_file_untouched(plugin, utils):
    install(plugin / "site", utils)
    before = snapshot(plugin)
    done = invoke("-j1", "--no-cache", "--write", "plugin")
    assert done.exit_code == 1 and codes(done.stdout) == ["TTD202", "TTD202"], done.stdout
    assert snapshot(plugin) == before


def test_a_module_found_nowhere_is_reported_with_the_statement_that_would_migrate_it(plugin):
    put(plugin, "plugin/plugin/ops.py", KERNEL.replace("vllm.triton_utils", "acme_hw.triton_utils"))
    done = invoke("-j1", "--no-cache", "plugin")
    assert codes(done.stdout) == ["TTD202", "TTD202"]
    assert "state it (`--triton-module acme_hw.triton_utils.tl=triton.language`)" in done.stdout


def test_a_vllm_plugin_migrates_with_no_flag_and_the_report_names_the_assumed_binding(plugin):
    """vLLM not installed, nothing stated: `vllm.triton_utils` is known to re-export Triton (KNOWN, issue 45
    item 3); each rewrite relies on that, and says so."""
    put(plugin, "plugin/pyproject.toml", '[project]\nname = "vllm-acme"\ndependencies = ["vllm"]\n')
    put(plugin, "plugin/plugin/attention.py", KERNEL.replace("add_one_kernel", "attention_kernel"))
    done = invoke("-j1", "--no-cache", "--output-format", "json", "plugin")
    found = json.loads(done.stdout)
    assert [d["code"] for d in found] == ["TTD006"] * 4, done.stdout
    assumed = ("`tl` imported from `vllm.triton_utils` is `triton.language`: assumed, as vLLM re-exports it (the "
               "module is not installed here; `known-triton-modules = false` turns this off)")
    assert all(assumed in d["requirements"] for d in found), found
    assert all(d["fix"]["applicability"] == "unsafe" for d in found if d["fix"]["edits"])
    written = invoke("-j1", "--no-cache", "--write", "plugin")
    assert written.exit_code == 0 and "make_block_ptr" not in (plugin / "plugin/plugin/ops.py").read_text()


@pytest.mark.parametrize("turned_off", [("--no-known-triton-modules",), ("--isolated", "--no-known-triton-modules")])
def test_the_known_table_can_be_turned_off(plugin, turned_off):
    done = invoke("-j1", "--no-cache", *turned_off, "plugin")
    assert codes(done.stdout) == ["TTD202", "TTD202"]
    assert "state it (`--triton-module vllm.triton_utils.tl=triton.language`)" in done.stdout


def test_the_known_table_is_turned_off_in_the_configuration(plugin):
    put(plugin, "plugin/pyproject.toml", "[tool.triton-migrate]\nknown-triton-modules = false\n")
    assert codes(invoke("-j1", "--no-cache", "plugin").stdout) == ["TTD202", "TTD202"]


def test_a_statement_wins_over_the_known_table(plugin):
    done = invoke("-j1", "--no-cache", "--triton-module",
                  "vllm.triton_utils.tl=triton.language,vllm.triton_utils.triton=triton", "plugin")
    assert "stated (command line: triton-modules" in done.stdout and "vLLM re-exports it" not in done.stdout


def test_a_stated_module_migrates_and_each_rewrite_lists_the_statement(plugin):
    put(plugin, "plugin/pyproject.toml", '[tool.triton-migrate.triton-modules]\n'
                                         '"vllm.triton_utils" = { tl = "triton.language", triton = "triton" }\n')
    done = invoke("-j1", "--no-cache", "--output-format", "json", "plugin")
    found = json.loads(done.stdout)
    assert [d["code"] for d in found] == ["TTD006", "TTD006"]
    stated = 'pyproject.toml: triton-modules "vllm.triton_utils.tl"'
    assert all(f"`tl` imported from `vllm.triton_utils` is `triton.language`: stated (plugin/{stated})" in
               d["requirements"] for d in found), found
    assert found[0]["fix"]["applicability"] == "unsafe"


def test_the_command_line_states_it_too(plugin):
    done = invoke("-j1", "--no-cache", "--triton-module", "vllm.triton_utils.tl=triton.language", "plugin")
    assert codes(done.stdout) == ["TTD006", "TTD006"]
    assert "stated (command line: triton-modules" in done.stdout


@pytest.mark.parametrize("value, wrong", [
    ('"vllm.triton_utils" = ["tl"]', "must be a table of module"),
    ('"vllm.triton_utils" = { tl = "numpy" }', "must be a name = \"triton\" or \"triton.language\""),
    ('"not a module" = { tl = "triton.language" }', "dotted module path"),
])
def test_a_bad_statement_is_a_configuration_error(plugin, value, wrong):
    put(plugin, "plugin/pyproject.toml", f"[tool.triton-migrate.triton-modules]\n{value}\n")
    done = invoke("-j1", "--no-cache", "plugin")
    assert done.exit_code == 2 and "triton-modules" in done.stderr and wrong in done.stderr, done.stderr


def test_a_bad_command_line_statement_is_a_usage_error(plugin):
    done = invoke("--triton-module", "tl=triton.language", "plugin")
    assert done.exit_code == 2 and "expected MODULE.NAME=triton" in done.stderr


def test_the_cache_follows_the_installed_module(plugin):
    """A check served from the cache must see a change to the module outside the run."""
    install(plugin / "site")
    assert codes(invoke("-j1", "plugin").stdout) == ["TTD006", "TTD006"]
    install(plugin / "site", "import other_triton.language as tl\n")
    assert codes(invoke("-j1", "plugin").stdout) == ["TTD202", "TTD202"]


def test_a_relative_import_inside_triton_itself(tmp_path):
    """Triton's old `triton/ops/*.py`: `from .. import language as tl` is `triton.language` by its name."""
    put(tmp_path, "python/triton/__init__.py", "")
    path = put(tmp_path, "python/triton/ops/__init__.py", "")
    path = put(tmp_path, "python/triton/ops/matmul.py", "from .. import jit as triton_jit\n"
                                                        "from .. import language as tl\n" + BODY)
    assert [(b.local, b.full) for b in imported(str(path), path.read_bytes(), search=())] == \
        [("tl", "triton.language")]


def test_a_relative_import_two_levels_up_in_a_package_that_reexports_triton(tmp_path):
    put(tmp_path, "pkg/__init__.py", "import triton\nfrom triton import language\n")
    put(tmp_path, "pkg/ops/__init__.py", "")
    path = put(tmp_path, "pkg/ops/k.py", "from .. import language as tl, triton\n" + BODY)
    assert sorted((b.local, b.full) for b in imported(str(path), path.read_bytes(), search=())) == \
        [("tl", "triton.language"), ("triton", "triton")]


def test_a_chain_of_reexports_is_followed(tmp_path):
    """A plugin's own `_triton.py` takes `tl` from vLLM's module; its kernels take it from there."""
    install(tmp_path / "site")
    put(tmp_path, "plugin/__init__.py", "")
    put(tmp_path, "plugin/_triton.py", "from vllm.triton_utils import tl, triton  # noqa: F401\n")
    path = put(tmp_path, "plugin/k.py", "from ._triton import tl, triton\n" + BODY)
    assert sorted((b.local, b.full) for b in imported(str(path), path.read_bytes(), search=(str(tmp_path / "site"),))) \
        == [("tl", "triton.language"), ("triton", "triton")]


def test_a_file_that_spells_no_site_on_an_imported_name_reads_nothing(tmp_path):
    path = put(tmp_path, "k.py", "from vllm.triton_utils import tl\nx = tl.cdiv(1, 2)\n")
    assert imported(str(path), path.read_bytes(), search=()) == ()


def test_a_module_of_the_run_binding_tl_under_if_has_triton_is_followed():
    """vLLM migrated as a whole: `vllm.triton_utils` is in the run, and binds `tl` in an `if`."""
    from triton_migrate.engine import migrate_sources

    outcomes = migrate_sources({"vllm.triton_utils": TRITON_UTILS, "vllm.triton_utils.importing": IMPORTING,
                                "vllm.ops": KERNEL})
    assert [d.code for d in outcomes["vllm.ops"].diagnostics] == ["TTD006", "TTD006"]
    assert outcomes["vllm.ops"].new_source is not None


def test_a_module_whose_source_is_found_needs_no_statement(plugin):
    """Stated and readable: what the source shows is proven, so no rewrite lists the statement."""
    install(plugin / "site")
    done = invoke("-j1", "--no-cache", "--triton-module", "vllm.triton_utils.tl=triton.language", "plugin")
    assert codes(done.stdout) == ["TTD006", "TTD006"] and "stated (" not in done.stdout


def test_the_names_a_file_spells_a_site_on_are_found_in_one_pass():
    from triton_migrate.frontend.triton_modules import _spelling_sites

    source = "p = tl.make_block_ptr(a)\nq = triton.language .advance(p, (0, 1))\nr = ťl . advance(q)\nit.advance()\n" \
        "x = tl.cdiv(1, 2)\n"
    assert _spelling_sites(source.encode()) == {"tl", "triton", "ťl", "it"}


@pytest.mark.parametrize(("source", "owners"), [
    ("language.advance(p)", {"language"}),  # `from triton import language`: the module is the owner
    ("x.language . \n advance(p)", {"x"}),
    ("xlanguage.advance(p)", {"xlanguage"}),
    ("tl.\\\n    advance(p)", set()),  # a continued line is no whitespace
    ("(tl).advance(p)\n.advance(p)\nadvance(p)", set()),
    ("a" * 100 + ".advance(p)", {"a" * 79}),  # read back no further than _REACH
    ("x" + " " * 72 + ".language.advance(p)", {"language"}),  # the outer owner beyond reach: `language` it is
])
def test_the_owner_of_a_member_is_the_name_just_before_it(source, owners):
    from triton_migrate.frontend.triton_modules import _spelling_sites

    assert _spelling_sites(source.encode()) == owners

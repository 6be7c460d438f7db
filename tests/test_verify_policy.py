"""Issue 27.6, verify what you ship: `migrate verify` (and each `migrate tune` candidate) migrates its copy of the
tree exactly as `migrate --write` writes it, with the same configuration (the nearest pyproject.toml of each
file, per-file-ignores, line length, the command line's options), and its verdict says which policy it used.

The user's command here is `python -c pass`: nothing is launched, so the verdict is "nothing verified" (exit
2), but the migrated copy (kept with --keep) and the verdict's policy are what these tests are about."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from triton_migrate.cli import main
from triton_migrate.engine import migrate_source
from triton_migrate.policy import Layout, Policy
from triton_migrate.verify import command
from triton_migrate.verify.report import policy_lines
from triton_migrate.verify.tree import MigratedTree, Migration, make_migrated_copy
from triton_migrate.verify.tune import candidate_policy

PROJECT = Path(__file__).resolve().parent / "verify_data" / "project"
OPS = "kernels/ops.py"


def project_with(tmp_path: Path, table: str, name: str = "project") -> Path:
    root = tmp_path / name
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text(f"[tool.triton-migrate]\n{table}\n")
    return root


def verify_copy(root: Path, tmp_path: Path, monkeypatch, *options: str) -> tuple[Path, dict, str]:
    """Run command mode with --keep; the migrated copy, the JSON verdict and the text output."""
    monkeypatch.chdir(root)
    keep, verdict = tmp_path / "keep", tmp_path / "verdict.json"
    result = CliRunner().invoke(command, ["--device", "cpu", "--keep", str(keep), "--json", str(verdict), *options,
                                          "--", "python", "-c", "pass"])
    assert result.exit_code == 2 and "no Triton launch was recorded" in result.output, result.output
    return keep / "tree", json.loads(verdict.read_text()), result.output


def written(root: Path, tmp_path: Path, monkeypatch, *options: str) -> Path:
    """What `migrate --write` leaves in a copy of the tree."""
    copy = tmp_path / "written"
    shutil.copytree(root, copy)
    monkeypatch.chdir(copy)
    result = CliRunner().invoke(main, ["--write", "--no-cache", *options, "."])
    assert result.exit_code in (0, 1), result.output
    return copy


def python_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))
            if "__pycache__" not in p.parts}


def test_a_project_that_asks_for_pointers_gets_its_copy_migrated_to_pointers(tmp_path, monkeypatch):
    root = project_with(tmp_path, 'target = "pointer"')
    tree, verdict, output = verify_copy(root, tmp_path, monkeypatch)
    migrated = (tree / OPS).read_text()
    assert "tl.make_block_ptr" not in migrated and "make_tensor_descriptor" not in migrated
    assert verdict["policy"] == [{"policy": {**verdict["policy"][0]["policy"], "target": "pointer"},
                                  # no line length configured: the file's own width, where it is wider
                                  "non_default": {"target": "pointer", "line_length_from_code": True},
                                  "configuration": "pyproject.toml",
                                  "origins": {"target": "pyproject.toml"}, "files": [OPS]}]
    assert f"policy for {OPS}:\n  target: pointer (pyproject.toml)\n" in output


def test_the_verdict_says_the_policy_in_the_users_words_and_where_each_value_came_from(tmp_path, monkeypatch):
    """Issue 35: `assume: aligned, ... (pyproject.toml)`, not a Python repr of the statements; a line length
    that the project's ruff configuration sets is said to come from there, not from "no configuration file"."""
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n")
    facts = "aligned,aligned-rows,in-bounds,allocator"
    _, verdict, output = verify_copy(root, tmp_path, monkeypatch, "--assume", facts)
    assert f"policy for {OPS}:\n  target: auto (default)\n  line-length: 120 (pyproject.toml)\n" \
           "  assume: aligned, aligned-rows, in-bounds, allocator (command line)\n" in output, output
    assert "Statement(" not in output and "no configuration file" not in output
    assert verdict["policy"][0]["origins"] == {"line_length": "pyproject.toml", "assume": "command line"}
    root.joinpath("pyproject.toml").write_text('[tool.triton-migrate]\nassume = ["aligned"]\nstrict = true\n'
                                               '[tool.triton-migrate.kernel-assume]\n'
                                               '"matmul.c_ptr" = ["aligned-rows"]\n')
    _, _, output = verify_copy(root, tmp_path / "again", monkeypatch)
    assert f"policy for {OPS}:\n  target: auto (default)\n  strict: true (pyproject.toml)\n" \
           "  assume: aligned (pyproject.toml)\n  kernel-assume: aligned-rows of matmul.c_ptr (pyproject.toml)\n" \
           in output, output


@pytest.mark.parametrize("table, options", [
    ('target = "compat"', []),
    ('strict = true\nline-length = 60', []),
    ('kernel-targets = { scale_rows = "pointer", matmul = "descriptor" }', []),
    ('per-file-ignores = { "kernels/ops.py" = ["TTD009"] }', []),  # --write then leaves the whole file alone
    ('target = "pointer"', ["--target", "descriptor", "--min-triton-version", "3.6"]),
    ('target = "pointer"', ["--isolated"]),
])
def test_the_copy_holds_what_write_writes(tmp_path, monkeypatch, table, options):
    root = project_with(tmp_path, table)
    tree, _, _ = verify_copy(root, tmp_path, monkeypatch, *options)
    assert python_files(tree) == python_files(written(root, tmp_path, monkeypatch, *options))


def test_each_file_takes_its_nearest_configuration_and_config_overrides_them_all(tmp_path, monkeypatch):
    root = project_with(tmp_path, 'target = "pointer"')
    (root / "kernels" / "pyproject.toml").write_text('[tool.triton-migrate]\ntarget = "descriptor"\n'
                                                    'assume = ["aligned", "contiguous", "aligned-rows"]\n')
    shutil.copy(root / OPS, root / "more_ops.py")
    tree, verdict, _ = verify_copy(root, tmp_path, monkeypatch)
    assert python_files(tree) == python_files(written(root, tmp_path / "a", monkeypatch))
    assert "make_tensor_descriptor" in (tree / OPS).read_text()
    assert "make_tensor_descriptor" not in (tree / "more_ops.py").read_text()
    assert {(g["configuration"], g["non_default"]["target"], tuple(g["files"])) for g in verdict["policy"]} == {
        ("kernels/pyproject.toml", "descriptor", (OPS,)), ("pyproject.toml", "pointer", ("more_ops.py",))}
    (tmp_path / "other.toml").write_text('[tool.triton-migrate]\ntarget = "pointer"\n')
    tree, verdict, _ = verify_copy(root, tmp_path / "b", monkeypatch, "--config", str(tmp_path / "other.toml"))
    assert "make_tensor_descriptor" not in (tree / OPS).read_text()
    assert [g["files"] for g in verdict["policy"]] == [[OPS, "more_ops.py"]]


def test_each_tune_candidate_replaces_only_the_form_on_top_of_the_project_configuration(tmp_path, monkeypatch):
    root = project_with(tmp_path, 'line-length = 60\nkernel-targets = { matmul = "pointer" }\nstrict = true')
    monkeypatch.chdir(root)
    source = (root / OPS).read_text()
    for candidate, policy in (("pointer", Policy(target="pointer")), ("auto", Policy())):
        tree = make_migrated_copy(root, [Path(".")], tmp_path / candidate, {},
                                  Migration({}, candidate_policy(candidate)))
        project = Policy(target=policy.target, strict=True)
        assert (tree.root / OPS).read_text() == migrate_source(source, policy=project, layout=Layout(60)).new_source
        assert tree.policies[OPS][:2] == (project, Layout(60))  # matmul's kernel-targets entry is the candidate's too


def test_the_verdict_flags_the_kernels_that_sum_what_a_descriptor_loads(tmp_path, monkeypatch):
    """Issue 49.5: a sum over a descriptor's tile adds in another order on a GPU (TTD001's note); the verdict
    names such a kernel, and no kernel whose descriptor tiles only reach a `tl.dot`."""
    root = tmp_path / "project"
    root.mkdir()
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    shutil.copy(fixtures / "stated_facts_row_sums" / "before.py", root / "rows.py")
    shutil.copy(fixtures / "stated_facts_gemm" / "before.py", root / "gemm.py")
    tree, verdict, _ = verify_copy(root, tmp_path, monkeypatch)
    assert "make_tensor_descriptor" in (tree / "rows.py").read_text()
    assert "make_tensor_descriptor" in (tree / "gemm.py").read_text()
    flagged = [note for note in verdict["notes"] if "may round otherwise" in note]
    assert flagged and all(note.startswith("rows.py:row_dots_kernel: ") for note in flagged)


def test_the_policy_lines_write_each_setting_as_the_user_writes_it_in_the_order_it_always_had():
    """Issue 44: each setting of the table (frontend/settings.py) spells its value back as the user writes it
    (`written`, the way back from `check`); the layout's line length, no longer the policy's, keeps its place."""
    tree = MigratedTree(Path("."))
    policy = Policy(min_triton=(3, 4), kernel_targets=(("matmul", "pointer"),), unsafe_fixes=True)
    origins = {"min_triton": "pyproject.toml", "line_length": "pyproject.toml"}
    tree.policies[OPS] = (policy, Layout(60), "pyproject.toml", origins)
    assert policy_lines(tree.policy_groups()) == [
        f"policy for {OPS}:", "  target: auto (default)", "  min-triton-version: 3.4 (pyproject.toml)",
        "  kernel-targets: matmul = pointer (default)", "  line-length: 60 (pyproject.toml)",
        "  unsafe-fixes: true (default)"]

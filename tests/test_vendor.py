"""`migrate vendor-compat` + `--target compat` with `compat-module`: a package migrated onto a vendored copy
of the shim runs bit-identical to the original and no longer imports this tool."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from click.testing import CliRunner

from triton_migrate.cli import main

TESTS = Path(__file__).resolve().parent
FIXTURE = TESTS.parent / "fixtures" / "gemm_loop_advance"

CHECK = textwrap.dedent("""\
    import json, sys
    sys.path[:0] = [sys.argv[1], sys.argv[2], sys.argv[3]]
    import differential as D
    before = D.run_fixture(D.FIXTURES / "gemm_loop_advance", "before.py")
    after = D.run_fixture(D.FIXTURES / "gemm_loop_advance", sys.argv[4])
    print(json.dumps({"problems": D.compare_runs(before, after), "tool_imported": "triton_migrate" in sys.modules}))
""")


def test_vendored_shim_runs_the_migrated_package_without_this_tool(tmp_path, monkeypatch):
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(FIXTURE / "before.py", package / "kernels.py")
    (tmp_path / "pyproject.toml").write_text('[tool.triton-migrate]\ntarget = "compat"\n'
                                             'compat-module = "mypkg._triton_compat"\n')
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["vendor-compat", "mypkg/_triton_compat.py"]).exit_code == 0
    written = runner.invoke(main, ["--write", "mypkg"])
    assert written.exit_code == 0, written.output
    migrated = (package / "kernels.py").read_text()
    assert "import mypkg._triton_compat as compat" in migrated and "compat.make_tile(" in migrated
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-c", CHECK, str(tmp_path), str(TESTS), str(TESTS.parent / "fixtures"),
                           str(package / "kernels.py")], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"problems": [], "tool_imported": False}

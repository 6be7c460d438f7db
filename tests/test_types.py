"""Issue 44 item 5: the type checker (mypy, from the test extra) passes on migrate/, configured in
pyproject.toml ([tool.mypy]: the modules not yet typed clean are listed there, and leave the list once they are)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_mypy_passes_on_the_tool():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_sees_a_type_error(tmp_path):
    """The check can fail: a checked module that passes a str where an int goes is reported."""
    (tmp_path / "wrong.py").write_text("def width(columns: int) -> int:\n    return columns\n\nwidth('88')\n")
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
                           str(tmp_path / "wrong.py")], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and "arg-type" in done.stdout

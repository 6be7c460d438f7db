"""Run the user's command with the launch recorder switched on, and turn its logs into a recording."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import recording
from .boot import SITECUSTOMIZE
from .record import ENV_CONFIG, ENV_OUT, ENV_ROOT


@dataclass
class RunResult:
    index: dict  # the recording's index.json
    output: str  # the command's stdout and stderr (empty when passed through)


def record_command(command: list[str], tree: Path, out: Path, config: dict, scratch: Path,
                   pass_output: bool = False, extra_path: Sequence[Path] = ()) -> RunResult:
    """Run `command` in `tree` and record its launches into `out`. The tree is put first on PYTHONPATH so
    that its modules win over an editable install of the same project."""
    boot = scratch / "boot"
    boot.mkdir(parents=True, exist_ok=True)
    (boot / "sitecustomize.py").write_text(SITECUSTOMIZE)
    if out.exists():  # an earlier recording in a --keep directory: launches must not pile up across runs
        shutil.rmtree(out)
    out.mkdir(parents=True)
    env = dict(os.environ)
    paths = [str(boot), str(tree), *map(str, extra_path)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env.update({"PYTHONPATH": os.pathsep.join(paths), ENV_OUT: str(out.resolve()), ENV_ROOT: str(tree.resolve()),
                ENV_CONFIG: json.dumps(config)})
    if config["device"] == "cpu":
        env["TRITON_INTERPRET"] = "1"
    else:
        env.pop("TRITON_INTERPRET", None)
    capture = None if pass_output else subprocess.PIPE
    try:
        done = subprocess.run(command, cwd=tree, env=env, stdout=capture, stderr=subprocess.STDOUT if capture else None,
                              text=True)
        returncode, output = done.returncode, done.stdout or ""
    except OSError as error:  # the command does not exist
        returncode, output = 127, str(error)
    index = recording.finalize(out, command, returncode, tree)
    return RunResult(index, output)


def python_command(args: list[str]) -> list[str]:
    """`python …` runs this interpreter, the one the recorder is installed in."""
    if args and args[0] in ("python", "python3"):
        return [sys.executable, *args[1:]]
    return args

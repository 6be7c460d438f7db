"""Interpreter worker: run the kernels of bp_kernels.py, as written (block pointers, Triton 3.8 only) or migrated
with `--target compat`, on one layout; print one JSON object {case: hex bytes of each written argument}.

``python _worker_migrated.py original|compat aligned|shifted``; TRITON_MIGRATE_COMPAT picks the shim's
implementation, as a guard's verdict would."""

import importlib.util
import json
import sys
import tempfile
import warnings
from pathlib import Path

warnings.filterwarnings("ignore", message="tl.make_block_ptr is deprecated")

import torch  # noqa: E402

from triton_migrate.engine import migrate_source  # noqa: E402
from triton_migrate.policy import Policy  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "fixtures"))  # _triton_launch.py, which the migrated module imports


def load(form: str):
    source = (HERE / "bp_kernels.py").read_text()
    if form == "compat":
        source = migrate_source(source, policy=Policy(target="compat")).new_source
    path = Path(tempfile.mkdtemp()) / f"bp_kernels_{form}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(module, layout: str, device: str = "cpu") -> dict:
    out = {}
    for name, kernel, grid, args, written in module.launches(torch, device, layout):
        getattr(module, kernel)[grid](*args)
        out[name] = [args[i].cpu().contiguous().view(torch.uint8).numpy().tobytes().hex() for i in written]
    return out


if __name__ == "__main__":
    print(json.dumps(run(load(sys.argv[1]), sys.argv[2])))

"""On a CUDA GPU (NVIDIA sm_90+, where descriptors are TMA copies): `migrate verify` checks the stated facts itself.

The example project (tests/verify_data/project) migrated with `assume = ["aligned", "aligned-rows", "in-bounds",
"allocator"]`, then run by `migrate verify --device cuda` three times:

1. `offset`: a view one element into its storage; the verdict names `x_ptr` and `aligned` before the migrated
   kernel runs, where the migrated kernel alone dies with `CUDA error: misaligned address`;
2. `rows`: rows of 61 floats (244 bytes) behind 256-byte row strides; the verdict names `y_ptr` and
   `aligned-rows` (floats, not the interpreter test's halves: compiled Triton refuses the kernel's float32
   store into a float16 block pointer, which the interpreter casts);
3. `holds`: data that keeps every fact (and an allocator set, as `allocator` states): identical, exit 0.

Prints one JSON line; exit status 1 if a check failed.   python tests/gpu_verify_facts.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parent / "verify_data" / "project"
POLICY = '[tool.triton-migrate]\nassume = ["aligned", "aligned-rows", "in-bounds", "allocator"]\n'
PRELUDE = """
import torch
import triton

triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
g = torch.Generator(device="cuda").manual_seed(0)
"""
SCRIPTS = {
    "offset": PRELUDE + """
from kernels.ops import scale
x = torch.randn(32 * 32 + 1, generator=g, device="cuda")[1:].view(32, 32)
print(float(scale(x, 2.0).sum()))
""",
    "rows": PRELUDE + """
from kernels.ops import scale_rows
x = torch.randn(32, 64, generator=g, device="cuda")[:, :61]
y = torch.zeros(32, 64, device="cuda")[:, :61]
scale_rows[(2, )](x, y, 32, 61, x.stride(0), y.stride(0), 2.0, BM=16, BN=32)
print(float(y.float().sum()))
""",
    "holds": PRELUDE + """
from kernels.ops import mm, scale
a, b = torch.randn(64, 64, generator=g, device="cuda"), torch.randn(64, 64, generator=g, device="cuda")
print(float(scale(a, 3.0).sum()), float(mm(a, b).sum()))
""",
}
EXPECTED = {  # exit status, what the verdict must say
    "offset": (1, "`x_ptr` is stated `aligned` (pyproject.toml: assume), but its data starts 4 bytes past"),
    "rows": (1, "`y_ptr` is stated `aligned-rows` (pyproject.toml: assume), but `N` is 61 elements, 244 bytes"),
    "holds": (0, "verdict: identical"),
}


def main() -> int:
    report, ok = {}, True
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        shutil.copytree(PROJECT, root)
        (root / "pyproject.toml").write_text(POLICY)
        for name, script in SCRIPTS.items():
            (root / f"{name}.py").write_text(script)
            done = subprocess.run([sys.executable, "-m", "triton_migrate.verify", "--device", "cuda", "--repeat", "0",
                                   "--", "python", f"{name}.py"], cwd=root, capture_output=True, text=True,
                                  timeout=600, check=False)
            status, said = EXPECTED[name]
            passed = done.returncode == status and said in done.stdout and "misaligned address" not in done.stdout
            report[name] = {"exit": done.returncode, "ok": passed,
                            "verdict": [line for line in done.stdout.splitlines()
                                        if "stated fact" in line or "verdict" in line]}
            if not passed:
                report[name]["output"] = (done.stdout + done.stderr)[-2000:]
            ok &= passed
    print(json.dumps(report))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""bp_kernels.py migrated with `--target compat` computes the original's bits in the interpreter, on Triton 3.8 and
3.9: aligned tensors, views one element into their storage (the guard's verdict picks the implementation) and a
varlen base offset computed in the kernel, `q + (bos * H + i_h) * K` with a head dim of 60 in fp16 (120 B: no
descriptor may start there, and no launch guard can see it, so the codemod pins the emulation)."""

import json
import sys

import pytest
import torch
from conftest import HERE, finish, run_py

import triton_migrate.compat as C

sys.path.insert(0, str(HERE))
import bp_kernels  # noqa: E402


def guard_choices(layout: str) -> dict:
    """What compat.guard would pass as IMPL, per kernel."""
    return {name: C.choose_impl(C.check({str(i): a for i, a in enumerate(args) if isinstance(a, torch.Tensor)},
                                        [str(i) for i in written]))
            for name, _, _, args, written in bp_kernels.launches(torch, "cpu", layout)}


@pytest.mark.parametrize("layout", bp_kernels.LAYOUTS)
def test_migrated_compat_kernels_match_the_block_pointer_originals_on_38_and_39(layout):
    choices = guard_choices(layout)
    # the varlen tensor's head stride is 60 x 2 B = 120 B; shifted views start 2 or 4 bytes into their storage
    assert choices == {"tiles2d": "desc" if layout == "aligned" else "emu", "rows1d": choices["tiles2d"],
                       "batched3d": choices["tiles2d"], "varlen_heads": "emu"}
    worker = str(HERE / "_worker_migrated.py")
    procs = {("original", ""): run_py([worker, "original", layout])}
    for impl in set(choices.values()):  # every kernel runs with each: the codemod's "emu" pins must hold alone
        procs[("3.8", impl)] = run_py([worker, "compat", layout], extra_env={"TRITON_MIGRATE_COMPAT": impl})
        procs[("3.9", impl)] = run_py([worker, "compat", layout], triton39=True,
                                      extra_env={"TRITON_MIGRATE_COMPAT": impl})
    results = {key: json.loads(finish(p).strip().splitlines()[-1]) for key, p in procs.items()}
    original = results.pop(("original", ""))
    assert set(original) == {"tiles2d", "rows1d", "batched3d", "varlen_heads"}
    assert any(int(h, 16) for h in original["varlen_heads"])  # the kernel wrote something
    for key, got in results.items():
        assert got == original, key

"""The guard decorator on a real @triton.jit kernel, in the interpreter on Triton 3.8 and 3.9 (subprocesses)."""

import json

from conftest import HERE, finish, run_py


def test_guarded_kernel_both_versions():
    procs = [run_py([str(HERE / "_worker_guard.py")]), run_py([str(HERE / "_worker_guard.py")], triton39=True)]
    for p in procs:
        r = json.loads(finish(p).strip().splitlines()[-1])
        assert r["aligned"] == ["desc", True, 1.0]  # impl_of: 1 = desc
        impl, correct, marker, reasons = r["misaligned"]
        assert (impl, correct, marker) == ("emu", True, 4.0)
        assert any("misaligned by 4" in s for s in reasons) and any("260 B" in s for s in reasons)
        # the same launch forced onto descriptors is what the guard prevents
        assert "16-byte aligned" in r["forced_desc"] or "aligned" in r["forced_desc"], r["forced_desc"]
        assert r["thread"] == ["desc"]

"""Compile-only checks on the CPU (the interpreter misses compiler-only failures: constexprs lost through returns,
tuples, casts).  Triton 3.8 and 3.9; sm_80, sm_90, gfx942."""

import json

from conftest import HERE, finish, run_py


def test_compiles_everywhere_and_uses_tma_only_for_desc_on_sm90():
    procs = {v: run_py([str(HERE / "_worker_compile.py")], interpret=False, triton39=(v == "3.9"))
             for v in ("3.8", "3.9")}
    for v, p in procs.items():
        r = json.loads(finish(p).strip().splitlines()[-1])
        impls = ["desc", "bp", "emu"] if v == "3.8" else ["desc", "emu"]
        assert sorted(r) == sorted(f"{a}|{i}" for a in (80, 90, "gfx942") for i in impls), r
        for key, val in r.items():
            arch, impl = key.split("|")
            assert not val.startswith("FAIL"), (v, key, val)
            assert val == ("tma" if (arch == "90" and impl == "desc") else "no-tma"), (v, key, val)

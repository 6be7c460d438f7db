"""Import-time selection, the environment override, and the import footprint (subprocesses)."""

import json

from conftest import finish, run_py

SNIPPET = ("import sys, json; import triton_migrate.compat as C; "
           "print(json.dumps([C.default_impl, list(C.available()), C.DEFAULT_IMPL.value, "
           "sorted(m for m in ('torch', 'libcst', 'click') if m in sys.modules)]))")


def _run(env=None, triton39=False):
    return json.loads(finish(run_py(["-c", SNIPPET], triton39=triton39, extra_env=env)).strip().splitlines()[-1])


def test_selection_and_footprint():
    procs = {
        "38": run_py(["-c", SNIPPET]),
        "39": run_py(["-c", SNIPPET], triton39=True),
        "38emu": run_py(["-c", SNIPPET], extra_env={"TRITON_MIGRATE_COMPAT": "emu"}),
        "38bp": run_py(["-c", SNIPPET], extra_env={"TRITON_MIGRATE_COMPAT": "BP"}),
        "39bp": run_py(["-c", SNIPPET], triton39=True, extra_env={"TRITON_MIGRATE_COMPAT": "bp"}),
        "bad": run_py(["-c", SNIPPET], extra_env={"TRITON_MIGRATE_COMPAT": "tma"}),
    }
    out = {}
    for k, p in procs.items():
        o, e = p.communicate(timeout=600)
        out[k] = (p.returncode, o, e)
    r = {k: json.loads(v[1].strip().splitlines()[-1]) for k, v in out.items() if v[0] == 0}
    assert r["38"] == ["desc", ["desc", "bp", "emu"], "desc", []]
    assert r["39"] == ["desc", ["desc", "emu"], "desc", []]
    assert r["38emu"][:3] == ["emu", ["desc", "bp", "emu"], "emu"]
    assert r["38bp"][0] == "bp"
    assert out["39bp"][0] != 0 and "does not provide it" in out["39bp"][2]
    assert out["bad"][0] != 0 and "expected one of auto, desc, bp, emu" in out["bad"][2]

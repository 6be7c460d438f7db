"""Version / backend matrix of the compat shim (a script; pytest does not collect it).

    .venv/bin/python tests/compat/version_matrix.py                     # all six releases
    .venv/bin/python tests/compat/version_matrix.py --versions 3.4.0,3.8.0 --json /tmp/matrix.json

For each Triton release it

1. installs the wheel with ``pip install --no-deps --target <cache>/triton-<v> triton==<v>`` (``<cache>``:
   ``--cache-dir``, else ``$TRITON_MIGRATE_MATRIX_CACHE``, else ``~/.cache/triton-migrate-matrix``; an existing
   install is reused).  The interpreters of 3.6 and older fail on NumPy 2.4 (``range(0, tl.cdiv(...))``: the
   ``__index__`` fix is in 3.7), which a tiny probe kernel detects; then ``numpy<2.4`` goes into the same directory,
   after checking that torch still imports and converts with it.
2. runs the interpreter equivalence cases of ``_worker.py`` (``TRITON_INTERPRET=1``, ``PYTHONPATH=<that dir>``, the
   repository's ``.venv`` torch) for every implementation the version offers, case by case, in two layouts:
   ``std`` (the test suite's: fp32 row pitches 24 and 72 elements, i.e. 16-byte but not 16-element multiples) and
   ``e16`` (pitches 32 and 80), because the 3.3-3.5 interpreters check descriptor strides in *elements*;
3. compares the raw output buffers: the implementations with each other, each with Triton 3.8 in the same layout,
   and (``std``) with the NumPy block-pointer model of ``test_interp_equivalence.py``.  ``bits`` = identical bytes,
   ``nan-eq`` = identical except NaN payloads (the padding contract), ``DIFF`` = different values;
4. compiles the ``_worker_compile.py`` kernel for sm_80, sm_90, gfx942 and gfx1250 (no GPU needed).  AMD targets
   on wheels that want ROCm's ``ld.lld`` (3.4 and older) are "not testable here".

Prints the matrix; ``--json`` also writes every detail.  Exit status 1 on an unexplained failure or disagreement.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
VENV_PY = REPO / ".venv" / "bin" / "python"

VERSIONS = ("3.4.0", "3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0")
REF_VERSION = "3.8.0"
LAYOUTS = {"std": ((6, 16, 24), 72), "e16": ((6, 16, 32), 80)}
TARGETS = ("sm_80", "sm_90", "gfx942", "gfx1250")
ARCH_KEY = {"sm_80": "80", "sm_90": "90", "gfx942": "gfx942", "gfx1250": "gfx1250"}

NUMPY_PIN = "numpy<2.4"
NUMPY_INDEX_ERR = "only 0-dimensional arrays can be converted to Python scalars"
ELEMENT_STRIDE_ERR = "stride must be 16-byte aligned"
#: compile failures that are limitations of that Triton, not of the shim (marked FAIL*, not counted as unexplained)
KNOWN_COMPILE_FAILURES = (
    ("unsupported target: 'gfx1250'", "this Triton's LLVM has no gfx1250"),
    ("Padding with non-zero in TDM is not supported",
     "the kernel's desc handle uses nan padding, which gfx1250 TDM rejects from 3.9 (README: use emu there)"),
)


# ================================================================================================================
# children (run under the venv python with PYTHONPATH=<triton dir>)
# ================================================================================================================


def _root_message(e: BaseException) -> str:
    """The innermost cause of a (nested InterpreterError) exception, as one line."""
    seen = set()
    while (e.__cause__ is not None or e.__context__ is not None) and id(e) not in seen:
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    lines = [s for s in str(e).strip().splitlines() if s.strip()]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:240]


def child_probe() -> None:
    """Does this Triton's interpreter run ``range(0, tl.cdiv(N, B))`` with the NumPy on the path?"""
    import numpy as np
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def k(x, N, B: tl.constexpr):
        acc = tl.zeros((B, ), tl.float32)
        for i in range(0, tl.cdiv(N, B)):
            acc += tl.load(x + i * B + tl.arange(0, B))
        tl.store(x + tl.arange(0, B), acc)

    res = {"triton": triton.__version__, "triton_file": triton.__file__, "numpy": np.__version__,
           "torch": torch.__version__}
    try:
        x = torch.ones(64)
        k[(1, )](x, 64, 16)
        res["ok"] = bool(x[:16].eq(4).all())
        res["error"] = None if res["ok"] else "wrong result"
    except Exception as e:  # noqa: BLE001
        res["ok"], res["error"] = False, _root_message(e)
    print(json.dumps(res))


def child_interp(out: str, layout: str) -> None:
    import warnings

    import numpy as np
    import torch

    warnings.filterwarnings("ignore", message="tl.make_block_ptr is deprecated")
    sys.path.insert(0, str(HERE))
    import _worker as W  # noqa: E402  (asserts TRITON_INTERPRET=1)
    import triton

    import triton_migrate.compat as C
    from triton_migrate.compat import _features as F

    W.PHYS3D, W.ROWSUM_PITCH = LAYOUTS[layout]
    meta = {"version": triton.__version__, "triton_file": triton.__file__, "numpy": np.__version__,
            "torch": torch.__version__, "layout": layout, "available": list(C.available()),
            "default": C.default_impl, "has_desc_padding": bool(F.HAS_DESC_PADDING),
            "cases": [W.case_id(c) for c in W.cases()], "errors": {}, "which": None, "which_error": None}
    try:
        meta["which"] = W.run_which()
    except Exception as e:  # noqa: BLE001
        meta["which_error"] = _root_message(e)
    arrays = {}
    for impl in C.available():
        errs = []
        for c in W.cases():
            cid = W.case_id(c)
            try:
                for k, v in W.run_case(c, impl).items():
                    arrays[f"{cid}#{impl}#{k}"] = v
            except Exception as e:  # noqa: BLE001
                errs.append([cid, _root_message(e)])
        meta["errors"][impl] = errs
    np.savez(out, **arrays)
    with open(out + ".json", "w") as f:
        json.dump(meta, f)


# ================================================================================================================
# parent
# ================================================================================================================


def child_env(tdir: Path, interpret: bool) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tdir)
    env["TRITON_INTERPRET"] = "1" if interpret else "0"
    env.pop("TRITON_MIGRATE_COMPAT", None)
    return env


def run(cmd, env=None, timeout=1800):
    t0 = time.time()
    p = subprocess.run([str(c) for c in cmd], env=env, cwd=str(REPO), capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def last_json(stdout: str):
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return None


def pip(*args):
    rc, out, err, _ = run([VENV_PY, "-m", "pip", "install", "--disable-pip-version-check", "-q", *args])
    if rc != 0:
        raise RuntimeError(f"pip install {' '.join(args)} failed:\n{out[-2000:]}\n{err[-2000:]}")


def ensure_triton(v: str, cache: Path, log) -> Path:
    tdir = cache / f"triton-{v}"
    if (tdir / "triton" / "__init__.py").is_file() and (tdir / f"triton-{v}.dist-info").is_dir():
        log(f"[{v}] reusing {tdir}")
        return tdir
    tmp = cache / f".triton-{v}.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(tdir, ignore_errors=True)
    log(f"[{v}] pip install --no-deps --target {tdir} triton=={v}")
    t0 = time.time()
    pip("--no-deps", "--target", str(tmp), f"triton=={v}")
    tmp.rename(tdir)
    log(f"[{v}]   installed in {time.time() - t0:.0f}s")
    return tdir


def ensure_numpy(v: str, tdir: Path, log) -> dict:
    """Probe the interpreter with the NumPy on the path; on the NumPy 2.4 __index__ failure pin numpy<2.4 there."""
    rc, out, err, _ = run([VENV_PY, __file__, "--child-probe"], env=child_env(tdir, True), timeout=300)
    probe = last_json(out) or {"ok": False, "error": f"probe crashed (rc {rc}): {err.strip()[-300:]}"}
    probe["numpy_pinned"] = False
    if probe.get("triton_file") and not str(probe["triton_file"]).startswith(str(tdir)):
        raise RuntimeError(f"[{v}] PYTHONPATH did not win: triton imported from {probe['triton_file']}")
    if not probe["ok"] and NUMPY_INDEX_ERR in (probe.get("error") or ""):
        log(f"[{v}] interpreter fails with NumPy {probe.get('numpy')} ({probe['error']}): "
            f"pip install --no-deps --target {tdir} '{NUMPY_PIN}'")
        pip("--no-deps", "--target", str(tdir), NUMPY_PIN)
        chk = ("import numpy, torch; t = torch.from_numpy(numpy.arange(4.0)); "
               "assert float(t.sum()) == 6.0 and torch.ones(2).numpy().sum() == 2.0; print(numpy.__file__)")
        rc2, out2, err2, _ = run([VENV_PY, "-c", chk], env=child_env(tdir, True), timeout=300)
        if rc2 != 0 or not out2.strip().startswith(str(tdir)):
            raise RuntimeError(f"[{v}] torch does not work with the pinned NumPy:\n{out2}\n{err2[-2000:]}")
        rc, out, err, _ = run([VENV_PY, __file__, "--child-probe"], env=child_env(tdir, True), timeout=300)
        probe = last_json(out) or {"ok": False, "error": f"probe crashed (rc {rc}): {err.strip()[-300:]}"}
        probe["numpy_pinned"] = True
    elif (tdir / "numpy").is_dir():
        probe["numpy_pinned"] = True  # pinned by an earlier run (the probe passed with it)
    log(f"[{v}] interpreter probe: {'ok' if probe['ok'] else 'FAIL ' + str(probe.get('error'))} "
        f"(numpy {probe.get('numpy')}{', pinned in the target dir' if probe['numpy_pinned'] else ''})")
    return probe


def task_interp(v, tdir, layout, workdir):
    out = str(workdir / f"interp-{v}-{layout}.npz")
    rc, o, e, dt = run([VENV_PY, __file__, "--child-interp", out, "--layout", layout], env=child_env(tdir, True))
    if rc != 0 or not os.path.exists(out + ".json"):
        return {"crash": f"rc {rc}: " + (e.strip().splitlines() or ["?"])[-1][:300], "seconds": dt}
    with open(out + ".json") as f:
        meta = json.load(f)
    meta["npz"], meta["seconds"] = out, dt
    return meta


def _first_error_line(stderr: str):
    for line in stderr.splitlines():
        if " error: " in line and "Failures have been detected" not in line:
            return line.split(" error: ", 1)[1].strip()[:200]
    return None


def task_compile(v, tdir, target):
    rc, o, e, dt = run([VENV_PY, HERE / "_worker_compile.py", target], env=child_env(tdir, False), timeout=900)
    r = last_json(o)
    if r is None:
        return {"crash": f"rc {rc}: " + (e.strip().splitlines() or ["?"])[-1][:300]}
    detail = _first_error_line(e)
    res = {}
    for key, val in r.items():
        impl = key.split("|")[1]
        if val.startswith("FAIL"):
            # the worker keeps the message's tail: for a frontend error that ends in the source and a caret line
            lines = [s.strip() for s in val[len("FAIL: "):].splitlines() if s.strip().strip("^")]
            msg = lines[-1] if lines else ""
            if "ld.lld" in msg:
                res[impl] = {"status": "n/t", "why": msg}
                continue
            if detail and ("PassManager::run failed" in msg or not msg):
                msg = f"{msg} [{detail}]"
            known = [why for pat, why in KNOWN_COMPILE_FAILURES if pat in msg]
            res[impl] = {"status": "FAIL*" if known else "FAIL",
                         "why": msg[:300] + (f" -- {known[0]}" if known else "")}
        else:
            res[impl] = {"status": "ok", "lowering": val}
    return res


# --- comparisons ------------------------------------------------------------------------------------------------


def load_results(meta):
    import numpy as np
    return dict(np.load(meta["npz"]))


def compare(a, b, floating):
    """'bits', 'nan-eq' or 'DIFF' for two raw integer views."""
    import numpy as np
    if a.shape == b.shape and np.array_equal(a, b):
        return "bits"
    if floating and _same(a, b):
        return "nan-eq"
    return "DIFF"


def _same(a, b):
    from test_interp_equivalence import same  # NaN-aware equality of the test suite
    return same(a, b, True)


WORST = {"bits": 0, "nan-eq": 1, "DIFF": 2}


def summarize_pairs(results):
    """results: list of (case, verdict) -> 'bits 72/72' / 'nan-eq 72/72' / 'DIFF 3/72 (first: case)'."""
    if not results:
        return "n/a (no common passing cases)"
    worst = max(results, key=lambda r: WORST[r[1]])[1]
    n = len(results)
    if worst == "DIFF":
        bad = [c for c, r in results if r == "DIFF"]
        return f"DIFF in {len(bad)}/{n} (first: {bad[0]})"
    return f"{worst} {n}/{n}"


def analyse(interp, versions):
    sys.path.insert(0, str(HERE))
    os.environ.setdefault("TRITON_INTERPRET", "1")
    import _worker as W
    from test_interp_equivalence import _sentinel_like, reference

    floating = {W.case_id(c): c["dtype"].is_floating_point for c in W.cases()}
    cases = {W.case_id(c): c for c in W.cases()}
    data = {key: load_results(m) for key, m in interp.items() if "crash" not in m}
    report = {}
    for (v, layout), m in interp.items():
        if "crash" in m:
            report[(v, layout)] = {"crash": m["crash"]}
            continue
        arr = data[(v, layout)]
        impls = m["available"]
        ok = {i: {cid for cid in m["cases"] if f"{cid}#{i}#y" in arr} for i in impls}
        rep = {"impl": {}, "numpy": m["numpy"], "available": impls}
        for i in impls:
            errs = m["errors"][i]
            rep["impl"][i] = {"pass": len(ok[i]), "total": len(m["cases"]), "errors": errs}
        # the implementations with each other (every pair against the first one that ran the case)
        pairs = []
        for cid in m["cases"]:
            have = [i for i in impls if cid in ok[i]]
            for i in have[1:]:
                pairs.append((cid, compare(arr[f"{cid}#{have[0]}#y"], arr[f"{cid}#{i}#y"], floating[cid])))
        rep["agree"] = summarize_pairs(pairs)
        # each implementation against 3.8 (every 3.8 implementation agrees; use its emu)
        ref = data.get((REF_VERSION, layout))
        rep["vs38"] = {}
        for i in impls:
            if ref is None:
                rep["vs38"][i] = "n/a (no 3.8 run)"
                continue
            rs = [(cid, compare(arr[f"{cid}#{i}#y"], ref[f"{cid}#emu#y"], floating[cid])) for cid in m["cases"]
                  if cid in ok[i] and f"{cid}#emu#y" in ref]
            rep["vs38"][i] = summarize_pairs(rs)
        # against the independent NumPy block-pointer model (its layouts are the std ones)
        if layout == "std":
            rep["model"] = {}
            for i in impls:
                rs = []
                for cid in m["cases"]:
                    c = cases[cid]
                    if cid not in ok[i] or c["kind"] == "rowsum":
                        continue
                    y = arr[f"{cid}#{i}#y"]
                    model = reference(c, arr[f"{cid}#{i}#x"], _sentinel_like(y, c))
                    rs.append((cid, compare(y, model, floating[cid])))
                rep["model"][i] = summarize_pairs(rs)
        # static fallbacks (trace-time choice of emu where a descriptor is not exact)
        w = m.get("which")
        if w is None:
            rep["which"] = f"FAIL: {m.get('which_error')}"
        else:
            exp = {"f32_b32": 1, "f32_b2": 4, "bool_b32": 4, "i8_b16": 1, "i8_b8": 4,
                   "f32_nan": 1 if m["has_desc_padding"] else 4}
            bad = [f"{n}|{i}={w.get(f'{n}|{i}')}" for n, e in exp.items() for i in ("desc", "bp", "emu")
                   if i in impls and w.get(f"{n}|{i}") != {"desc": e, "bp": 2, "emu": 4}[i]]
            rep["which"] = "as expected" if not bad else "UNEXPECTED: " + ", ".join(bad)
            rep["which_nan_desc"] = w.get("f32_nan|desc")
        report[(v, layout)] = rep
    return report


def classify(err: str, layout: str) -> str:
    if layout == "std" and ELEMENT_STRIDE_ERR in err:
        return "known"  # 3.3-3.5 interpreter checks strides in elements (the e16 layout covers these cases)
    return "unexplained"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--versions", default=",".join(VERSIONS))
    ap.add_argument("--cache-dir", default=os.environ.get("TRITON_MIGRATE_MATRIX_CACHE",
                                                          str(Path.home() / ".cache" / "triton-migrate-matrix")))
    ap.add_argument("--jobs", type=int, default=2, help="subprocesses at once (installs are always sequential)")
    ap.add_argument("--layouts", default="std,e16")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--no-interp", action="store_true")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--json", help="write every detail here")
    ap.add_argument("--keep-raw", action="store_true", help="keep the raw .npz outputs (in a temp dir)")
    ap.add_argument("--child-probe", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child-interp", help=argparse.SUPPRESS)
    ap.add_argument("--layout", default="std", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child_probe:
        return child_probe()
    if a.child_interp:
        return child_interp(a.child_interp, a.layout)

    if not VENV_PY.exists():
        sys.exit(f"{VENV_PY} not found: the matrix runs every version with the repository's .venv torch")
    if Path(sys.executable).absolute() != VENV_PY.absolute():
        os.execv(str(VENV_PY), [str(VENV_PY), __file__, *(argv if argv is not None else sys.argv[1:])])

    versions = [v.strip() for v in a.versions.split(",") if v.strip()]
    layouts = [s.strip() for s in a.layouts.split(",") if s.strip()]
    targets = [t.strip() for t in a.targets.split(",") if t.strip()]
    cache = Path(a.cache_dir).expanduser().resolve()
    if cache == REPO or REPO in cache.parents:
        sys.exit("--cache-dir must be outside the repository")
    cache.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="triton-migrate-matrix-"))
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731

    # 1. installs, one at a time, and the NumPy probe
    dirs, probes = {}, {}
    for v in versions:
        dirs[v] = ensure_triton(v, cache, log)
        if not a.no_interp:
            probes[v] = ensure_numpy(v, dirs[v], log)

    # 2./4. interpreter and compile runs in parallel subprocesses
    interp, comp = {}, {}
    with cf.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        futs = {}
        if not a.no_interp:
            for v in versions:
                for layout in layouts:
                    futs[ex.submit(task_interp, v, dirs[v], layout, workdir)] = ("interp", v, layout)
        if not a.no_compile:
            for v in versions:
                for t in targets:
                    futs[ex.submit(task_compile, v, dirs[v], t)] = ("compile", v, t)
        for f in cf.as_completed(futs):
            kind, v, x = futs[f]
            try:
                r = f.result()
            except Exception as e:  # noqa: BLE001
                r = {"crash": _root_message(e)}
            (interp if kind == "interp" else comp)[(v, x)] = r
            log(f"[{v}] {kind} {x} done" + (f" ({r['seconds']:.0f}s)" if "seconds" in r else ""))

    bad = False
    out = {"versions": versions, "cache_dir": str(cache), "probes": probes, "interp": {}, "compile": {}}
    # 3. comparisons and the printed matrix
    if interp:
        report = analyse(interp, versions)
        print("\n## Interpreter (TRITON_INTERPRET=1, torch from .venv, CPU)")
        print("layouts: std = fp32 row pitches 24/72 elements (16-byte multiples); "
              "e16 = 32/80 (16-element multiples, for the 3.3-3.5 interpreters)")
        for v in versions:
            for layout in layouts:
                rep = report.get((v, layout))
                if rep is None:
                    continue
                if "crash" in rep:
                    bad = True
                    print(f"{v:6s} {layout:4s} CRASH {rep['crash']}")
                    continue
                parts = []
                for i in ("desc", "bp", "emu"):
                    if i not in rep["impl"]:
                        parts.append(f"{i}: -")
                        continue
                    r = rep["impl"][i]
                    if not r["errors"]:
                        parts.append(f"{i}: pass {r['pass']}/{r['total']}")
                    else:
                        kinds = {classify(e, layout) for _, e in r["errors"]}
                        bad |= "unexplained" in kinds
                        tag = "FAIL" if "unexplained" in kinds else "fail (known interpreter bug)"
                        parts.append(f"{i}: {tag} {r['pass']}/{r['total']} [{r['errors'][0][1]}]")
                print(f"{v:6s} {layout:4s} numpy {rep['numpy']:7s} " + " | ".join(parts))
                print(f"{'':11s} impls agree: {rep['agree']}")
                print(f"{'':11s} = 3.8: " + ", ".join(f"{i} {s}" for i, s in rep["vs38"].items()))
                if "model" in rep:
                    print(f"{'':11s} = NumPy bp model: " + ", ".join(f"{i} {s}" for i, s in rep["model"].items()))
                print(f"{'':11s} static fallbacks: {rep['which']} (nan-padding desc handle -> "
                      f"{ {1: 'desc', 4: 'emu'}.get(rep.get('which_nan_desc'), rep.get('which_nan_desc')) })")
                texts = [rep["agree"], *rep["vs38"].values(), *rep.get("model", {}).values()]
                bad |= any(t.startswith("DIFF") for t in texts) or rep["which"] != "as expected"
                out["interp"][f"{v}|{layout}"] = rep
    if comp:
        print("\n## Compile only (triton.compile(ASTSource), no GPU)")
        print(f"{'':7s}" + "".join(f"{t:34s}" for t in targets))
        for v in versions:
            cells = []
            for t in targets:
                r = comp.get((v, t), {"crash": "not run"})
                if "crash" in r:
                    bad = True
                    cells.append("CRASH")
                    continue
                st = []
                for i, x in r.items():
                    if x["status"] == "ok":
                        st.append(f"{i}:{ {'tma': 'ok+TMA', 'tdm': 'ok+TDM'}.get(x['lowering'], 'ok') }")
                    else:
                        st.append(f"{i}:{x['status']}")
                        bad |= x["status"] == "FAIL"
                cells.append(" ".join(st))
            print(f"{v:7s}" + "".join(f"{c:34s}" for c in cells))
        notes = sorted({(v, t, i, x["why"]) for (v, t), r in comp.items() if "crash" not in r
                        for i, x in r.items() if x["status"] != "ok"})
        for v, t, i, why in notes:
            print(f"  {v} {t} {i}: {why}")
        for (v, t), r in sorted(comp.items()):
            out["compile"][f"{v}|{t}"] = r
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, default=str)
    if a.keep_raw:
        print(f"\n(raw outputs: {workdir})")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main() or 0)

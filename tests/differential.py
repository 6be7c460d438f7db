"""Interpreter differential runner for the fixture corpus.

Each fixture ``fixtures/<case>/`` has ``before.py`` (block pointers), ``harness.py``
(``cases()``, ``run(mod, inputs)``, optional ``reference(inputs)``), ``fixture.toml``
(``runs_on_39``, ``expect``) and, once the migrator has produced it, ``after.py``.

* :func:`run_fixture` imports one of the kernel modules by file path under a unique
  module name and runs it on every case in the Triton interpreter of *this* process
  (``TRITON_INTERPRET=1`` must be set before triton is imported; ``tests/conftest.py``
  does that).
* :func:`compare_outputs` compares two ``{name: tensor}`` dicts **bit for bit**
  (raw bits, so NaN payloads count and NaN == NaN by construction) and describes the
  first difference.
* :func:`run_after_on_39` runs ``after.py`` of many fixtures on Triton 3.9 in ONE
  subprocess (``PYTHONPATH=<repo>/.triton39``), returning their outputs.  The same
  file is the subprocess's entry point (``python differential.py run39 JOBS_PT OUT_PT``).

Nothing here imports triton at module level: the subprocess must import it only
after its environment is set up, and the parent only through conftest.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import tomllib
import torch

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
TRITON39 = REPO / ".triton39"

_counter = itertools.count()

_INT_OF_SIZE = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


# --------------------------------------------------------------------------- discovery
def fixture_dirs() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir()
                  if p.is_dir() and (p / "before.py").is_file() and (p / "harness.py").is_file())


def fixture_config(case_dir: Path) -> dict:
    cfg_path = case_dir / "fixture.toml"
    cfg = tomllib.loads(cfg_path.read_text()) if cfg_path.is_file() else {}
    cfg.setdefault("runs_on_39", False)
    cfg.setdefault("expect", "migrate")
    return cfg


def default_policy_fixture_dirs() -> list[Path]:
    """The fixtures that migrate under the default policy and run afterwards: the ones to migrate again with
    another policy (a fixture with its own `policy` or an expected loud error is about that one)."""
    return [d for d in fixture_dirs() if fixture_config(d)["expect"] == "migrate"
            and "policy" not in fixture_config(d) and "loud_error" not in fixture_config(d)]


# --------------------------------------------------------------------------- importing
def import_path(path: Path, tag: str, case_dir: Path | None = None):
    """Import ``path`` as a fresh module with a unique name (registered in sys.modules,
    which Triton's JIT uses to find globals and source). Its directory, and its fixture's
    (``case_dir``, where a migrated copy lives elsewhere), are on sys.path while it runs, as a
    script's is: a kernel imports its fixture's other ``modules`` and packages by name. A
    fixture directory with an ``__init__.py`` is a package (fixtures/ is on sys.path): its
    kernels are imported as its modules, where relative imports resolve."""
    path = Path(path)
    case_dir = Path(case_dir) if case_dir is not None else path.parent
    name = f"_tmfx_{case_dir.name}_{tag}_{next(_counter)}"
    _ensure_fixtures_on_path()  # fixtures/_triton_launch.py: the launch support a module outside a package imports
    if (case_dir / "__init__.py").is_file() and case_dir.parent == FIXTURES:
        name = f"{case_dir.name}.{name}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    directories = list(dict.fromkeys((str(path.parent), str(case_dir))))
    sys.path[:0] = directories
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        for directory in directories:
            sys.path.remove(directory)
    return mod


def _ensure_fixtures_on_path():
    p = str(FIXTURES)
    if p not in sys.path:
        sys.path.insert(0, p)


def load_harness(case_dir: Path):
    _ensure_fixtures_on_path()
    return import_path(case_dir / "harness.py", "harness")


def run_fixture(case_dir: Path, which: str = "before.py", harness=None) -> dict[str, dict[str, torch.Tensor]]:
    """Run ``case_dir/which`` on every case; returns ``{case_name: {output: whole buffer}}``.

    ``which`` may also be an absolute path to a kernel module (used by the self-tests)."""
    case_dir = Path(case_dir)
    harness = harness or load_harness(case_dir)
    kernel_path = Path(which) if os.path.isabs(str(which)) else case_dir / which
    mod = import_path(kernel_path, Path(kernel_path).stem, case_dir)
    results: dict[str, dict[str, torch.Tensor]] = {}
    for name, inputs in harness.cases():  # fresh inputs per run: cases() is deterministic
        if name in results:
            raise ValueError(f"{case_dir.name}: duplicate case name {name!r}")
        out = harness.run(mod, inputs)
        results[name] = {k: _bit_copy(v) for k, v in out.items()}
    return results


def _bit_copy(t: torch.Tensor) -> torch.Tensor:
    # copy through an integer view: torch's bool copy kernel canonicalises bytes (0x7F -> 0x01)
    t = t.detach()
    if t.dtype == torch.bool:
        return raw_bits(t).clone().view(torch.bool)
    return t.clone()


def reference_outputs(case_dir: Path, harness=None):
    harness = harness or load_harness(case_dir)
    if not hasattr(harness, "reference"):
        return None
    return {name: harness.reference(inputs) for name, inputs in harness.cases()}


# --------------------------------------------------------------------------- comparison
def raw_bits(t: torch.Tensor) -> torch.Tensor:
    if t.dtype == torch.bool:  # never copy as bool: torch canonicalises bool bytes
        return t.detach().view(torch.uint8).contiguous()
    t = t.detach().contiguous()
    return t.view(_INT_OF_SIZE[t.element_size()])


def _fmt(t: torch.Tensor, idx) -> str:
    v = t[idx]
    b = raw_bits(t)[idx]
    return f"{v.item()!r} (bits 0x{int(b.item()) & ((1 << (8 * t.element_size())) - 1):0{2 * t.element_size()}x})"


def compare_tensor(a: torch.Tensor, b: torch.Tensor, label: str = "") -> str | None:
    """None if ``a`` and ``b`` are bit-identical (same dtype and shape), else a message
    naming the first differing index, both values and the number of differing cells."""
    if a.dtype != b.dtype:
        return f"{label}: dtype {a.dtype} != {b.dtype}"
    if tuple(a.shape) != tuple(b.shape):
        return f"{label}: shape {tuple(a.shape)} != {tuple(b.shape)}"
    diff = (raw_bits(a) != raw_bits(b)) & ~_same_computed_nan(a, b)
    n = int(diff.sum())
    if n == 0:
        return None
    first = tuple(int(i) for i in diff.nonzero()[0])
    return (f"{label}: {n} of {diff.numel()} cells differ; first at index {first}: "
            f"{_fmt(a, first)} vs {_fmt(b, first)}")


def _same_computed_nan(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """NaN-aware: two NaNs a kernel computed are equal whatever their payload (NVIDIA's TMA fills
    padding="nan" with 0x7FF77FF7, a masked load with 0x7FC00000); a sentinel NaN never equals one."""
    if not a.dtype.is_floating_point:
        return torch.zeros(a.shape, dtype=torch.bool, device=a.device)
    _ensure_fixtures_on_path()
    from _harness_util import sentinel_bits

    sentinel = sentinel_bits(a.dtype)
    bits_a, bits_b = raw_bits(a), raw_bits(b)
    return a.isnan() & b.isnan() & (bits_a != sentinel) & (bits_b != sentinel)


def compare_outputs(a: dict, b: dict, label: str = "") -> list[str]:
    """Bit-exact comparison of two ``{output_name: tensor}`` dicts; returns the differences."""
    msgs = []
    if set(a) != set(b):
        msgs.append(f"{label}: output names differ: {sorted(a)} vs {sorted(b)}")
    for k in sorted(set(a) & set(b)):
        m = compare_tensor(a[k], b[k], f"{label}[{k}]")
        if m:
            msgs.append(m)
    return msgs


def compare_runs(a: dict, b: dict, label: str = "") -> list[str]:
    """Compare ``{case: {output: tensor}}`` results of two runs."""
    msgs = []
    if set(a) != set(b):
        msgs.append(f"{label}: case names differ: {sorted(a)} vs {sorted(b)}")
    for c in sorted(set(a) & set(b)):
        msgs += compare_outputs(a[c], b[c], f"{label}:{c}")
    return msgs


def compare_reference(out: dict, ref: dict, label: str = "", rtol=1e-5, atol=1e-5) -> list[str]:
    """Looser check of a kernel against a plain-torch reference: NaN positions equal,
    finite floats close (dot products may round differently), everything else exact.
    Sentinel cells are NaN/0x7F in both, so writes outside the view still show."""
    msgs = []
    if set(out) != set(ref):
        msgs.append(f"{label}: output names differ: {sorted(out)} vs {sorted(ref)}")
    for k in sorted(set(out) & set(ref)):
        a, b = out[k], ref[k]
        lab = f"{label}[{k}]"
        if a.dtype != b.dtype or a.shape != b.shape:
            msgs.append(f"{lab}: {a.dtype}{tuple(a.shape)} vs reference {b.dtype}{tuple(b.shape)}")
            continue
        if a.dtype.is_floating_point:
            af, bf = a.double(), b.double()
            nan_a, nan_b = torch.isnan(af), torch.isnan(bf)
            bad = (nan_a != nan_b) | (~nan_a & ~nan_b & ~torch.isclose(af, bf, rtol=rtol, atol=atol))
            # sentinel cells must keep their exact bits
            bad |= nan_a & nan_b & (raw_bits(a) != raw_bits(b))
        else:
            bad = raw_bits(a) != raw_bits(b)
        if bool(bad.any()):
            first = tuple(int(i) for i in bad.nonzero()[0])
            msgs.append(f"{lab}: {int(bad.sum())} cells differ from the reference; first at {first}: "
                        f"{_fmt(a, first)} vs reference {_fmt(b, first)}")
    return msgs


# --------------------------------------------------------------------------- Triton 3.9
def run_after_on_39(case_dirs, kernel_file: str = "after.py", timeout: float = 600, extra_jobs=()) -> dict:
    """Run ``kernel_file`` of every fixture in ``case_dirs`` on Triton 3.9, in one subprocess.

    ``extra_jobs``: more ``(key, case_dir, kernel_path)`` runs for the same subprocess (used by
    the self-test that feeds a deliberately wrong kernel through the 3.9 path too).
    Returns ``{key: {case: {output: tensor}}}`` (key = fixture name for ``case_dirs``), or for a
    run that raised, ``{key: "traceback text"}``, plus ``"__triton_version__"``.  Raises
    RuntimeError if the subprocess fails as a whole (e.g. Triton 3.9 missing or not 3.9)."""
    jobs = [(Path(d).name, Path(d), kernel_file) for d in case_dirs]
    jobs += [(k, Path(d), str(f)) for k, d, f in extra_jobs]
    if not (TRITON39 / "triton").is_dir():
        raise FileNotFoundError(f"Triton 3.9 target directory not found: {TRITON39}")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TRITON39)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["TRITON_INTERPRET"] = "1"
    with tempfile.TemporaryDirectory(prefix="tm39_") as tmp:
        out_path = os.path.join(tmp, "out.pt")
        job_path = os.path.join(tmp, "jobs.pt")
        torch.save([(k, str(d), f) for k, d, f in jobs], job_path)
        cmd = [sys.executable, str(Path(__file__).resolve()), "run39", job_path, out_path]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=tmp)
        if proc.returncode != 0 or not os.path.exists(out_path):
            raise RuntimeError(f"Triton 3.9 subprocess failed (rc={proc.returncode}):\n"
                               f"{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}")
        return torch.load(out_path, weights_only=False)


def _main_run39(job_path: str, out_path: str) -> int:
    import triton  # noqa: E402  (imported only here, after PYTHONPATH/TRITON_INTERPRET are set)

    if not triton.__version__.startswith("3.9"):
        print(f"expected Triton 3.9, got {triton.__version__} from {triton.__file__}", file=sys.stderr)
        return 3
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("TRITON_INTERPRET is not 1", file=sys.stderr)
        return 3
    results: dict = {"__triton_version__": triton.__version__}
    for key, d, kernel_file in torch.load(job_path):
        try:
            results[key] = run_fixture(Path(d), kernel_file)
        except BaseException:  # noqa: BLE001  (report per fixture, keep going)
            results[key] = traceback.format_exc()
    torch.save(results, out_path)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "run39":
        sys.exit(_main_run39(sys.argv[2], sys.argv[3]))
    print("usage: differential.py run39 JOBS_PT OUT_PT", file=sys.stderr)
    sys.exit(2)

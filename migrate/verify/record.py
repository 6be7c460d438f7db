"""The in-process recorder: wraps Triton's launch path so that every kernel launch of the user's command is
written down (kernel, launch order, grid, constexprs, scalar arguments, every tensor argument's buffer after
the launch, and timings).

It is switched on by the environment (set by the runner for the command it starts; `_boot/sitecustomize.py`
calls `activate()` in every Python process of that command):

  TRITON_MIGRATE_VERIFY_OUT     recording directory; each process writes `p<start ns>-<pid>/` inside it
  TRITON_MIGRATE_VERIFY_ROOT    the tree the command runs in (kernel source paths are stored relative to it)
  TRITON_MIGRATE_VERIFY_CONFIG  JSON: device kind, size limits, warm-up and repeat counts, allocator, the
                                autotuner choices to pin (tuning.py)

Which tensors are outputs: every tensor argument's whole buffer is digested before and after the launch;
one whose bits changed is *written* and kept in full (below the size limit, else digest + spot values); one
that did not change is kept as its digest only, which still shows inputs that diverged between two runs.

A launch that raises is written down with its error; a launch of a migrated kernel is first checked against the
facts it relies on (facts.py), and one that breaks a fact is not run. Memory the program allocates without
initialising it (`torch.empty` and its kin) is filled with a sentinel, the same in both runs.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import inspect
import json
import os
import sys
import threading
import time
from pathlib import Path

from .tuning import LOG as TUNING_LOG
from .tuning import Tuning

ENV_OUT, ENV_ROOT = "TRITON_MIGRATE_VERIFY_OUT", "TRITON_MIGRATE_VERIFY_ROOT"
ENV_CONFIG = "TRITON_MIGRATE_VERIFY_CONFIG"
DEFAULTS = {"device": "cpu", "keep_bytes": 16 << 20, "total_bytes": 1 << 30, "warmup": 0, "repeat": 0,
            "allocator": True, "pinned": None, "facts": {}}
# pinned: another run's autotuner choices to take (tuning.py); facts: "source:function" -> the stated facts its
# migrated descriptors rely on (facts.py), checked before each of its launches
_PATCHED_MODULES = {"triton.runtime.jit", "triton.runtime.interpreter", "triton.runtime.autotuner", "torch"}
_state = threading.local()  # .busy: inside a recorded launch or an autotuner benchmark (not recorded)


def activate() -> None:
    """Patch Triton's launch path now if it is imported, else as soon as it is."""
    if not os.environ.get(ENV_OUT):
        return
    for name in _PATCHED_MODULES & set(sys.modules):
        _patch(sys.modules[name])
    sys.meta_path.insert(0, _PatchOnImport())


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Lets the Triton modules load normally, then patches them: importing triton eagerly in every Python
    process of the user's command would cost seconds each."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in _PATCHED_MODULES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader)
        return spec


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, inner) -> None:
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        module.__loader__ = module.__spec__.loader = self.inner  # what else asks the loader (resources) finds it
        _patch(module)


def _patch(module) -> None:
    if module.__name__ == "torch":
        _sentinel_fill(module)
        return
    for cls_name in ("JITFunction", "InterpretedFunction"):
        cls = getattr(module, cls_name, None)
        if cls is not None and not getattr(cls.run, "_tm_recorded", False):
            cls.run = _recording_run(cls.run)
    tuner = getattr(module, "Autotuner", None)
    if tuner is not None and not getattr(tuner._bench, "_tm_recorded", False):
        tuner._bench = _unrecorded(tuner._bench)
        tuner.run = _tuning_run(tuner.run)


def _sentinel_fill(torch) -> None:
    """Memory the program allocates without initialising (`torch.empty` and its kin) holds the same sentinel
    bytes in both runs: what no launch writes then compares equal, instead of as whatever garbage each run's
    allocator left there, and a difference can say that one run never wrote an element (tensors.py)."""
    from .tensors import SENTINEL_BYTE

    compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)

    def filled(make):
        def wrapper(*args, **kwargs):
            made = make(*args, **kwargs)
            if made.device.type != "meta" and not compiling():  # a graph being traced keeps its own semantics
                made.untyped_storage().fill_(SENTINEL_BYTE)
            return made
        wrapper._tm_recorded = True
        return wrapper

    for name in ("empty", "empty_like", "empty_strided"):
        if not getattr(getattr(torch, name), "_tm_recorded", False):
            setattr(torch, name, filled(getattr(torch, name)))
    if not getattr(torch.Tensor.new_empty, "_tm_recorded", False):
        torch.Tensor.new_empty = filled(torch.Tensor.new_empty)


def _unrecorded(bench):
    """The autotuner's benchmark launches are not the program's launches: they are not recorded. Triton's
    interpreter has no driver to time them with (`0 active drivers`): there each configuration runs once,
    untimed, and the autotuner keeps the first; the tuning log says so (tuning.py), and the verdict."""
    def wrapper(tuner, *args, **kwargs):
        outer, _state.busy = getattr(_state, "busy", False), True
        try:
            recorder = _recorder()
            if recorder.device.interpreted:
                tuner.__dict__["do_bench"] = _run_once  # Autotuner.do_bench is a cached_property: its value
                recorder.tuning.untimed.add(id(tuner))
            return bench(tuner, *args, **kwargs)
        finally:
            _state.busy = outer
    wrapper._tm_recorded = True
    return wrapper


def _run_once(kernel_call, quantiles) -> list[float]:
    """A configuration run once, untimed: every one takes the same time, and the autotuner keeps the first."""
    kernel_call()
    return [0.0] * len(quantiles)


def _tuning_run(run):
    """An autotuner takes the pinned choices before its first run, and its choices are logged after each."""
    def wrapper(self, *args, **kwargs):
        if getattr(_state, "busy", False):
            return run(self, *args, **kwargs)
        tuning = _recorder().tuning
        tuning.adopt(self)
        try:
            return run(self, *args, **kwargs)
        finally:
            tuning.note(self)
    wrapper._tm_recorded = True
    return wrapper


def _recording_run(run):
    def wrapper(self, *args, grid, warmup, **kwargs):
        if warmup or getattr(_state, "busy", False):
            return run(self, *args, grid=grid, warmup=warmup, **kwargs)
        _state.busy = True
        try:
            return _recorder().launch(run, self, args, kwargs, grid)
        finally:
            _state.busy = False
    wrapper._tm_recorded = True
    return wrapper


_RECORDER = None


def _recorder() -> Recorder:
    global _RECORDER
    if _RECORDER is None:
        _RECORDER = Recorder(Path(os.environ[ENV_OUT]), Path(os.environ.get(ENV_ROOT, os.getcwd())),
                             {**DEFAULTS, **json.loads(os.environ.get(ENV_CONFIG, "{}"))})
    return _RECORDER


class Recorder:
    def __init__(self, out: Path, root: Path, config: dict) -> None:
        from .devices import from_kind

        self.dir = out / f"p{time.time_ns():020d}-{os.getpid()}"
        (self.dir / "tensors").mkdir(parents=True, exist_ok=True)
        self.root = root.resolve()
        self.config = config
        self.device = from_kind(config["device"])
        self.seq = 0
        self.kept_bytes = 0
        self.lock = threading.Lock()
        self.tuning = Tuning(self.dir / TUNING_LOG, config["pinned"])
        (self.dir / "meta.json").write_text(json.dumps(_environment(self.device)))

    def launch(self, run, fn, args, kwargs, grid):
        """Run one launch and write it down; a launch that raises (or breaks a stated fact, checked before
        the kernel runs) is written down with its error, and the error goes on to the program."""
        from .facts import StatedFactBroken
        from .tensors import capture

        bound = _bind(fn, args, kwargs)
        broken = self._broken_fact(fn, bound)
        if self.config["allocator"]:
            self.device.ensure_allocator()
        tensors = dict(_tensor_args(bound))
        before = {name: capture(t, 0).digest for name, t in tensors.items()}
        if broken is not None:
            self._log(fn, bound, kwargs, grid, tensors, before, error=broken.message(), broken=broken.as_json())
            raise StatedFactBroken(broken.message())
        self.device.synchronize()
        try:
            first_ms = self.device.time_ms(lambda: run(fn, *args, grid=grid, warmup=False, **kwargs))
        except Exception as error:
            self._log(fn, bound, kwargs, grid, tensors, before, error=f"{type(error).__name__}: {error}")
            raise
        after = {name: capture(t, self.config["keep_bytes"]) for name, t in tensors.items()}
        times = self._repeat_times(run, fn, args, kwargs, grid, tensors) or [first_ms]
        self._log(fn, bound, kwargs, grid, tensors, before, after, times)

    def _broken_fact(self, fn, bound: dict):
        """The first stated fact this launch of a migrated kernel breaks (facts.py), or None."""
        from .facts import first_broken

        facts = self.config["facts"].get(f"{self._source(fn)}:{_python_fn(fn).__name__}")  # a method's own name
        return first_broken(f"{_module_of(fn)}:{_qualname(fn)}", facts, bound, self.device) if facts else None

    def _log(self, fn, bound, kwargs, grid, tensors, before, after=None, times=(), **failure) -> None:
        with self.lock:
            self.seq += 1
            entry = {**self._entry(fn, bound, kwargs, grid, tensors, before, after, list(times)), **failure}
            with open(self.dir / "launches.jsonl", "a") as out:
                out.write(json.dumps(entry) + "\n")

    def _repeat_times(self, run, fn, args, kwargs, grid, tensors) -> list[float]:
        """Time the launch again on copies of its buffers: the first launch paid for compilation, and the
        program's own buffers must keep the state the program left them in."""
        if not self.config["repeat"]:
            return []
        swap = {id(t): _clone_in_place(t) for t in tensors.values()}
        args2 = [_swap(a, swap) for a in args]
        kwargs2 = {k: _swap(v, swap) for k, v in kwargs.items()}
        return self.device.samples_ms(lambda: run(fn, *args2, grid=grid, warmup=False, **kwargs2),
                                      self.config["warmup"], self.config["repeat"])

    def _entry(self, fn, bound, launch_kwargs, grid, tensors, before, after, times) -> dict:
        from .tensors import spot_values

        name = f"{_module_of(fn)}:{_qualname(fn)}"
        args = {}
        for arg, t in tensors.items():
            state = after[arg] if after is not None else None  # None: the launch raised
            record = {"kind": "tensor", "dtype": str(t.dtype).removeprefix("torch."), "shape": list(t.shape),
                      "stride": list(t.stride()), "offset": t.storage_offset(), "align": t.data_ptr() % 128,
                      "buffer_bytes": t.untyped_storage().nbytes(), "digest_before": before[arg],
                      "written": state is not None and state.digest != before[arg],
                      "digest": state.digest if state else before[arg], "spots": state.spots if state else [],
                      "file": None}
            if state is not None and record["written"] and state.host_bits is not None and \
                    self._budget(state.host_bits):  # (only a launch that returned wrote)
                record["file"] = f"{self.dir.name}/tensors/{self.seq:06d}-{_safe(arg)}.bin"
                (self.dir.parent / record["file"]).write_bytes(state.host_bits.numpy().tobytes())
            elif state is not None and record["written"] and not record["spots"]:  # over the budget: digest + spots
                record["spots"] = spot_values(state.host_bits)
            args[arg] = record
        for arg, value in bound.items():
            if arg not in args and not _holds_tensor(value):
                kind = "constexpr" if arg in _constexpr_names(fn) else "scalar"
                args[arg] = {"kind": kind, "value": _jsonable(value)}
        options = {k: _jsonable(v) for k, v in launch_kwargs.items() if k not in bound}
        return {"kernel": name, "seq": self.seq, "source": self._source(fn), "grid": _grid(grid, bound),
                "args": args, "options": options, "times_ms": times, "pid": os.getpid()}

    def _budget(self, host_bits) -> bool:
        size = host_bits.numel() * host_bits.element_size()
        if self.kept_bytes + size > self.config["total_bytes"]:
            return False
        self.kept_bytes += size
        return True

    def _source(self, fn) -> str | None:
        try:
            source = inspect.getsourcefile(_python_fn(fn))
            if source is None:
                return None
            path = Path(source).resolve()
        except (TypeError, OSError):
            return None
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)


def _environment(device) -> dict:
    import torch
    import triton

    name = "CPU (Triton interpreter)"
    if device.kind in ("cuda", "rocm"):
        name = torch.cuda.get_device_name()
    elif device.kind == "xpu":
        name = torch.xpu.get_device_name()
    return {"triton": triton.__version__, "torch": torch.__version__, "python": sys.version.split()[0],
            "device": device.kind, "device_name": name}


def _python_fn(fn):
    return getattr(fn, "fn", fn)


def _module_of(fn) -> str:
    return _python_fn(fn).__module__


def _qualname(fn) -> str:
    return _python_fn(fn).__qualname__


def _constexpr_names(fn) -> set[str]:
    params = inspect.signature(_python_fn(fn)).parameters.values()
    return {p.name for p in params if "constexpr" in str(p.annotation)}


def _bind(fn, args, kwargs) -> dict:
    """Argument name → value for the kernel's own parameters (launch options such as num_warps dropped)."""
    signature = inspect.signature(_python_fn(fn))
    own = {k: v for k, v in kwargs.items() if k in signature.parameters}
    bound = signature.bind_partial(*args, **own)
    bound.apply_defaults()
    return dict(bound.arguments)


def _tensor_args(bound: dict):
    """(name, tensor) for every tensor argument, inside tuples and host-side descriptors too."""
    for name, value in bound.items():
        yield from _tensors_in(name, value)


def _tensors_in(name, value):
    if hasattr(value, "data_ptr") and hasattr(value, "untyped_storage"):
        yield name, value
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            yield from _tensors_in(f"{name}[{i}]", item)
    elif hasattr(value, "base") and hasattr(value, "block_shape"):  # a host-side TensorDescriptor
        yield from _tensors_in(f"{name}.base", value.base)


def _holds_tensor(value) -> bool:
    return any(True for _ in _tensors_in("", value))


def _clone_in_place(t):
    """A copy of `t`'s whole buffer, viewed like `t` (a kernel may touch the buffer beyond the view)."""
    storage = t.untyped_storage().clone()
    return t.new_empty(0).set_(storage, t.storage_offset(), t.size(), t.stride())


def _swap(value, swap: dict):
    if id(value) in swap:
        return swap[id(value)]
    if type(value) is tuple:  # tensors inside tuple arguments (named tuples are left alone)
        return tuple(_swap(v, swap) for v in value)
    return value


def _grid(grid, bound: dict) -> list:
    if callable(grid):
        grid = grid(bound)
    return [int(g) for g in grid]


def _jsonable(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value if not (isinstance(value, float) and value != value) else "nan"
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "value") and type(value).__name__ == "constexpr":
        return _jsonable(value.value)
    if type(value).__module__.startswith("triton.language") and type(value).__name__ == "dtype":
        return {"tl_dtype": value.name}
    return {"repr": repr(value)}


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)

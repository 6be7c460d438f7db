"""ensure_allocator(): decisions, idempotence, and per-thread (ContextVar) installation."""

import contextvars
import threading

import triton

import triton_migrate.compat as C
from triton_migrate.compat import allocator as A


def test_decision_matrix():
    d = dict(has_set_allocator=True, already_set=False)
    assert A.decide(interpreting=True, backend="cuda", capability=(9, 0), **d) == "not-needed: interpreter"
    assert A.decide(interpreting=False, backend="hip", capability=None, **d) == "not-needed: AMD"
    assert A.decide(interpreting=False, backend="xpu", capability=None, **d) == "not-needed: Intel XPU"
    assert A.decide(interpreting=False, backend="cuda", capability=(8, 0), **d).startswith("not-needed: capability")
    assert A.decide(interpreting=False, backend=None, capability=None, **d) == "not-needed: no GPU"
    assert A.decide(interpreting=False, backend="cuda", capability=(9, 0), **d) == A.INSTALLED
    assert A.decide(interpreting=False, backend="cuda", capability=(10, 0), **d) == A.INSTALLED
    assert A.decide(interpreting=False, backend="cuda", capability=(9, 0), has_set_allocator=True,
                    already_set=True) == A.ALREADY_SET
    assert A.decide(interpreting=False, backend="cuda", capability=(9, 0), has_set_allocator=False,
                    already_set=False).startswith("not-needed")


def test_noop_in_interpreter_and_on_cpu(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert C.ensure_allocator() == "not-needed: interpreter"
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    assert C.ensure_allocator() == "not-needed: no GPU"  # this CPU torch has no CUDA
    assert A._current_allocator()[1] is False  # nothing was installed


def test_installs_once_per_context_and_per_thread(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    monkeypatch.setattr(A, "_probe_device", lambda: ("cuda", (9, 0)))

    def body():
        first = C.ensure_allocator()
        second = C.ensure_allocator()
        return first, second, isinstance(A._current_allocator()[0], A.TorchAllocator)

    # run in a copied context so the session's allocator stays untouched
    assert contextvars.copy_context().run(body) == (A.INSTALLED, A.ALREADY_SET, True)
    seen = []
    th = threading.Thread(target=lambda: seen.append(body()))
    th.start()
    th.join()
    # a new thread starts without the allocator (ContextVar since Triton 3.5) and gets its own
    assert seen == [(A.INSTALLED, A.ALREADY_SET, True)]
    assert A._current_allocator()[1] is False


def test_respects_user_allocator(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    monkeypatch.setattr(A, "_probe_device", lambda: ("cuda", (9, 0)))

    def body():
        mine = lambda size, align, stream: None  # noqa: E731
        triton.set_allocator(mine)
        return C.ensure_allocator(), A._current_allocator()[0] is mine

    assert contextvars.copy_context().run(body) == (A.ALREADY_SET, True)

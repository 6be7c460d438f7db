"""Issue 48 item 2 and issue 43 item 4: the ways real code binds Triton, each followed (TritonNames): a re-export in
one branch of a `try:` and triton in the other (triton's, by an assumption each rewrite names), optional-Triton
guards (`HAS_TRITON`, `triton = None` fallbacks), imports in functions and kernel factories."""

from __future__ import annotations

import pytest
from test_cli import codes, invoke, put

from triton_migrate.engine import migrate_source

KERNEL = """
@triton.jit
def k(X, N, B: tl.constexpr):
    p = tl.make_block_ptr(X, (N,), (1,), (0,), (B,), (0,))
    tl.store(p, tl.load(p, boundary_check=(0,)) + 1, boundary_check=(0,))
"""
NESTED = KERNEL.replace("\n", "\n    ").rstrip() + "\n"


def indented(text: str) -> str:
    return "".join(f"    {line}\n" if line else "\n" for line in text.splitlines())


BINDINGS = {
    "reexport-in-try": "try:\n    from vllm.triton_utils import tl, triton\nexcept ModuleNotFoundError:\n"
                       "    import triton\n    import triton.language as tl\n" + KERNEL,
    "relative-reexport-in-try": "try:\n    from .triton_utils import tl, triton\nexcept ImportError:\n"
                                "    import triton\n    import triton.language as tl\n" + KERNEL,
    "none-fallback-has-triton": "try:\n    import triton\n    import triton.language as tl\n    HAS_TRITON = True\n"
                                "except ImportError:\n    triton = None\n    tl = None\n    HAS_TRITON = False\n\n"
                                "if HAS_TRITON:\n" + indented(KERNEL),
    "has-triton-guard": "from torch.utils._triton import has_triton\n\nif has_triton():\n    import triton\n"
                        "    from triton import language as tl\n" + KERNEL,
    "import-in-factory": "def build():\n    import triton\n    import triton.language as tl\n" + indented(KERNEL)
                         + "    return k\n",
    "try-in-factory": "def build():\n    try:\n        import triton\n        import triton.language as tl\n"
                      "    except ImportError:\n        return None\n" + indented(KERNEL) + "    return k\n",
    "from-import-in-factory": "def build():\n    from triton import jit, language as tl\n"
                              + indented(KERNEL.replace("@triton.jit", "@jit")) + "    return k\n",
}


@pytest.mark.parametrize("source", BINDINGS.values(), ids=BINDINGS)
def test_each_binding_real_code_uses_is_followed(source):
    outcome = migrate_source(source)
    assert [(d.code, d.fixed) for d in outcome.diagnostics] == [("TTD006", True)]
    assert "make_block_ptr" not in outcome.new_source


def test_the_assumed_reexport_is_named_by_each_rewrite():
    [diagnostic] = migrate_source(BINDINGS["reexport-in-try"]).diagnostics
    assert diagnostic.requirements == (
        "`tl` imported from `vllm.triton_utils` is `triton.language`: assumed, as another import of it in the module "
        "is triton's",
        "`triton` imported from `vllm.triton_utils` is `triton`: assumed, as another import of it in the module is "
        "triton's")


def test_no_assumption_where_the_bindings_need_none():
    for name in ("none-fallback-has-triton", "has-triton-guard", "import-in-factory"):
        assert migrate_source(BINDINGS[name]).diagnostics[0].requirements == ()


def test_a_reexport_whose_source_shows_it_is_no_assumption(tmp_path, monkeypatch):
    """vLLM installed: its `triton_utils` is read (frontend/triton_modules.py), so the binding is shown."""
    monkeypatch.chdir(tmp_path)
    put(tmp_path, "site/vllm/__init__.py", "")
    put(tmp_path, "site/vllm/triton_utils/__init__.py", "import triton\nimport triton.language as tl\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    put(tmp_path, "k.py", BINDINGS["reexport-in-try"])
    result = invoke("--no-cache", "report", "k.py")
    assert "assumed" not in result.stdout, result.stdout
    put(tmp_path, "site/vllm/triton_utils/__init__.py", "tl = triton = None\n")  # shows nothing of triton's
    assert "assumed, as another import" in invoke("--no-cache", "report", "k.py").stdout


def test_the_report_names_the_assumption_on_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    put(tmp_path, "k.py", BINDINGS["reexport-in-try"])
    result = invoke("--no-cache", "k.py")
    assert result.exit_code == 1 and codes(result.stdout) == ["TTD006"]
    assert "requires: `tl` imported from `vllm.triton_utils` is `triton.language`: assumed" in result.stdout


def test_another_package_in_the_other_branch_is_not_assumed():
    """`import triton_fork.language as tl` is another package's module, not a re-export: not triton's (TTD202)."""
    source = "try:\n    import triton_fork.language as tl\n    import triton\nexcept ImportError:\n" \
             "    import triton\n    import triton.language as tl\n" + KERNEL
    outcome = migrate_source(source)
    assert [(d.code, d.fixed) for d in outcome.diagnostics] == [("TTD202", False)] and outcome.new_source is None

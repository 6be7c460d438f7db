"""Every reason a block pointer passed to a helper is left alone (TTD201, with the helper's reason), each
shown on a small program; the file stays as it was, so no caller is ever broken."""

from __future__ import annotations

import pytest

from triton_migrate.engine import migrate_source

HEAD = "import triton\nimport triton.language as tl\n\n"
HELPER = "@triton.jit\ndef load(p):\n    return tl.load(p, boundary_check=(0,))\n\n"
KERNEL = ("@triton.jit\ndef k(x_ptr, N, BN: tl.constexpr):\n"
          "    x = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))\n{}\n")
MOVE = "@triton.jit\ndef mv(p, BN: tl.constexpr):\n    p = tl.advance(p, (BN,))\n    return p\n\n"

CASES = {
    "mixed callers": (HEAD + HELPER + KERNEL.format("    y = load(x)")
                      + "@triton.jit\ndef raw(x_ptr):\n    y = load(x_ptr)\n",
                      "a block pointer at some call sites and another value at others"),
    "used as a value": (HEAD + HELPER + KERNEL.format("    y = load(x)") + "LOADERS = (load,)\n",
                        "used as a value"),
    "star arguments": (HEAD + HELPER + KERNEL.format("    y = load(*(x,))"), "passed to another function"),
    "public": (HEAD + '__all__ = ["load"]\n\n' + HELPER + KERNEL.format("    y = load(x)"), "public API"),
    "returns differ": (HEAD + "@triton.jit\ndef mv(p, a, BN: tl.constexpr):\n    q = tl.advance(p, (BN,))\n"
                              "    if a > 0:\n        return q, a\n    return a, q\n\n"
                       + KERNEL.format("    x, n = mv(x, N, BN)\n    tl.load(x, boundary_check=(0,))"),
                       "return statements hand back block pointers differently"),
    "result not unpacked": (HEAD + MOVE + KERNEL.format("    r = (mv(x, BN),)"), "not unpacked into names"),
    "caller cannot be migrated": (HEAD + HELPER + KERNEL.format("    y = load(x)\n    w = (x,)"),
                                  "callers' block pointers cannot be migrated"),
    "helper cannot migrate its use": (HEAD + "@triton.jit\ndef load(p):\n    return tl.load(p, boundary_check=(0,), "
                                      "padding_option=PADDINGS[0])\n\n" + KERNEL.format("    y = load(x)"),
                                      "in the helper, `padding_option` must be a literal or a name"),
}


@pytest.mark.parametrize("case", CASES)
def test_the_callers_block_pointer_is_refused_with_the_helpers_reason(case):
    source, reason = CASES[case]
    outcome = migrate_source(source)
    line = source[:source.index("x = tl.make_block_ptr")].count("\n") + 1
    creation = next(d for d in outcome.diagnostics if d.line == line)
    assert (creation.code, creation.fixed) == ("TTD201", False) and reason in creation.message, creation
    assert outcome.new_source is None  # the helper and every caller keep their block pointers


def test_a_helper_named_like_a_triton_member_is_no_reference_to_it():
    """`tl.load` inside the helper is not a use of a helper called `load` as a value."""
    outcome = migrate_source(HEAD + HELPER + KERNEL.format("    y = load(x)"))
    # (the helper, which has no launch of its own to check, reads its parts through masked pointers: TTD009)
    assert {d.code for d in outcome.diagnostics} == {"TTD006", "TTD008"}


def test_a_site_met_again_on_a_loops_next_pass_is_reported_once():
    """A parameter's block pointer no caller passes as parts, advanced in a loop: the loop's fixed point
    visits the advance twice, the report names it once."""
    source = HEAD + ("@triton.jit\ndef walk(p, N, BN: tl.constexpr):\n    for i in range(0, N, BN):\n"
                     "        p = tl.advance(p, (BN,))\n    return tl.load(p)\n")
    outcome = migrate_source(source)
    assert [(d.line, d.code) for d in outcome.diagnostics] == [(7, "TTD201")]


@pytest.mark.parametrize("callers, reason", [
    (KERNEL.format("    y = walk(x, N, 4)") + "@triton.jit\ndef raw(x_ptr):\n    y = walk(x_ptr, 1, 4)\n",
     "the block-pointer parameter `p`, which its callers cannot pass as parts: it receives a block pointer at some "
     "call sites and another value at others"),
    ("", "the parameter `p` of `walk`, which nothing in the files migrated calls: its callers, if any, are "
     "elsewhere and give its rank and parts (migrate them together); if none, it is dead code, which "
     "`--unsafe-fixes` removes where nothing in the project names it (TTD011)"),
    ("@triton.jit\ndef raw(x_ptr):\n    y = walk(x_ptr, 1, 4)\n", "the parameter `p`, to which no call site passes a "
     "block pointer"),
    ("def launch(x):\n    walk[(1,)](x, 1, 4)\n", "the parameter `p` of `walk`, a kernel this module launches "
     "(`walk[...](...)`) and no `@triton.jit` function of the files migrated calls: a launch passes tensors and "
     "scalars, never a block pointer (Triton rejects this use at compile time)"),
])
def test_a_helpers_own_use_of_a_parameter_it_cannot_take_as_parts_says_why(callers, reason):
    source = HEAD + ("@triton.jit\ndef walk(p, N, BN: tl.constexpr):\n    p = tl.advance(p, (BN,))\n"
                     "    return tl.load(p, boundary_check=(0,))\n\n") + callers
    outcome = migrate_source(source)
    helper = [d.message for d in outcome.diagnostics if d.line in (6, 7)]
    assert helper == [f"`tl.advance` on {reason}", f"`tl.load` with `boundary_check`/`padding_option` on {reason}"]


def test_a_none_test_on_a_name_that_may_be_zero_is_refused():
    """`p = 0` on the paths without a block pointer gives `None` parts (no handle, no part is made there), so a
    `p is None` there cannot ask the base: `0 is None` is False, `None is None` is not."""
    source = HEAD + HELPER + ("@triton.jit\ndef k(x_ptr, N, FLAG: tl.constexpr, BN: tl.constexpr):\n    if FLAG:\n"
                              "        x = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))\n    else:\n"
                              "        x = 0\n    if x is not None:\n        y = load(x)\n")
    outcome = migrate_source(source)
    creation = next(d for d in outcome.diagnostics if d.line == 11)
    assert outcome.new_source is None and creation.code == "TTD118" and "`x` is `0` instead of" in creation.message

"""Block widths the code states (migrate/analysis/widths.py): with a width proven to hold 16 bytes of any
element type, a descriptor on stated facts is plain, with no compile-time test of its width (TTD107) and no
masked pointers to fall back on; anything the proof cannot read keeps both. The fixtures
stated_facts_*_widths run both ways in the interpreter."""

from __future__ import annotations

import pytest

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Layout, Policy, Statement

KERNEL = '''import triton
import triton.language as tl

{decorators}@triton.jit
def double_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BM: tl.constexpr, BN: tl.constexpr):
{prologue}    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_xm, 1), (pid * BM, 0), (BM, {width}), (1, 0))
    v = tl.load(x, boundary_check=(0, 1), padding_option="zero")
    tl.store(y_ptr + tl.arange(0, BM)[:, None] * stride_ym + tl.arange(0, {width})[None, :], v)
'''
FACTS = Policy(assume=(Statement("aligned", "the test"), Statement("allocator", "the test")))
WIDE = Layout(line_length=120)  # statements read whole, on one line each


def migrated(decorators: str = "", prologue: str = "", width: str = "BN", policy: Policy = FACTS) -> str:
    source = KERNEL.format(decorators=decorators, prologue=prologue, width=width)
    outcome = migrate_source(source, layout=WIDE, policy=policy)
    assert outcome.new_source is not None and "make_tensor_descriptor" in outcome.new_source
    return outcome.new_source


def plain(decorators: str = "", prologue: str = "", width: str = "BN") -> bool:
    """Whether the descriptor is plain: no compile-time test of its width and no masked-pointer load."""
    new = migrated(decorators, prologue, width)
    return "USE_DESCRIPTORS" not in new and "tl.load" not in new


def autotune(configs: str, more: str = "") -> str:
    return f'@triton.autotune(configs={configs}, key=["N"]{more})\n'


def asserting(test: str) -> str:
    return f"    tl.static_assert({test})\n"


@pytest.mark.parametrize("configs", [
    '[triton.Config({"BN": 16}), triton.Config({"BN": 64}, num_warps=8)]',
    '[triton.Config(kwargs={"BN": 32})]',
    '[triton.Config({"BN": bn}, num_warps=w) for bn in [16, 32] for w in (4, 8) if bn * w < 256]',
    '[triton.Config({"BN": 16})] + [triton.Config({"BN": 32, "BM": m}) for (m, w) in [(8, 4)]]',
    '[triton.Config({"BN": 8, "BN": 16})]',
])
def test_every_configuration_of_the_autotuner_at_16_or_more_proves_the_width(configs):
    assert plain(autotune(configs))


@pytest.mark.parametrize("configs", [
    '[triton.Config({"BN": 8}), triton.Config({"BN": 64})]',  # one too narrow for int8
    '[triton.Config({"BN": 64}), triton.Config({"BM": 64})]',  # one leaves BN to the launch
    'CONFIGS',  # not written out in the decorator
    '[triton.Config({"BN": bn}) for bn in WIDTHS]',
    '[triton.Config({"BN": bn}) for bn, w in [(16, 4)]]',
    '[triton.Config({"BN": 64, **more})]',
    '[*more, triton.Config({"BN": 64})]',
])
def test_a_configuration_list_that_does_not_prove_the_width_keeps_the_test(configs):
    assert not plain(autotune(configs))


def test_configurations_a_function_may_replace_prove_nothing():
    prune = ', prune_configs_by={"early_config_prune": lambda configs, named_args, **kwargs: configs}'
    assert not plain(autotune('[triton.Config({"BN": 64})]', prune))
    assert plain(autotune('[triton.Config({"BN": 64})]', ", reset_to_zero=['y_ptr']"))


def test_heuristics_that_compute_the_width_override_the_configurations():
    heuristics = '@triton.heuristics({"BN": lambda args: 8})\n'
    assert not plain(autotune('[triton.Config({"BN": 64})]') + heuristics)
    assert plain(autotune('[triton.Config({"BN": 64})]') + '@triton.heuristics({"EVEN": lambda args: True})\n')


@pytest.mark.parametrize("test", ["BN >= 16", "BN > 15", "16 <= BN", "15 < BN", "16 <= BN <= 128",
                                  "BM >= 1 and BN >= 32", "BN % 16 == 0", 'BN >= 16, "rows of 16 bytes"',
                                  'msg="rows", cond=BN >= 16'])
def test_a_static_assertion_proves_the_width(test):
    assert plain(prologue=asserting(test))


@pytest.mark.parametrize("test", ["BN >= 8", "BN <= 16", "BN >= 16 or BM >= 16", "BN % 8 == 0", "BM >= 16",
                                  "BN != 0"])
def test_a_static_assertion_that_does_not_bound_the_width_keeps_the_test(test):
    assert not plain(prologue=asserting(test))


def test_a_static_assertion_after_a_return_or_under_a_condition_proves_nothing():
    early = "    if M == 0:\n        return\n" + asserting("BN >= 16")
    assert not plain(prologue=early)
    assert not plain(prologue="    if BM > 1:\n" + asserting("BN >= 16").replace("    ", "        ", 1))


def test_a_width_at_least_another_bounded_one_is_proven():
    assert plain(autotune('[triton.Config({"BM": 16}), triton.Config({"BM": 32})]'), asserting("BM <= BN"))
    assert plain(prologue=asserting("BM >= 32") + asserting("BN >= BM"))
    assert not plain(prologue=asserting("BN >= BM") + asserting("BM >= BN"))  # no bound, and no endless search


def test_configurations_a_function_of_the_module_returns_prove_the_width():
    source = KERNEL.format(decorators=autotune("configs()"), prologue="", width="BN")
    built = "def configs():\n    found = [triton.Config({'BN': bn}) for bn in [16, 32]]\n    return found\n\n\n"
    appended = built.replace("    return found", "    found.append(triton.Config({'BN': 8}))\n    return found")
    for function, proven in [(built, True), ("def configs():\n    return [triton.Config({'BN': 64})]\n\n\n", True),
                             (appended, False), (built.replace("configs():", "configs(n=1):"), False),
                             (built + built, False)]:
        new = migrate_source(source.replace("@triton.autotune", function + "@triton.autotune"), layout=WIDE,
                             policy=FACTS)
        assert ("USE_DESCRIPTORS" not in new.new_source) is proven, function


def test_a_product_of_proven_widths_is_proven():
    assert plain(prologue=asserting("BN >= 8"), width="BN * 2")
    assert not plain(prologue=asserting("BN >= 4"), width="BN * 2")


def test_the_widths_fact_vouches_for_a_width_and_is_reported():
    policy = Policy(assume=tuple(Statement(f, "the test") for f in ("aligned", "allocator", "widths")))
    outcome = migrate_source(KERNEL.format(decorators="", prologue="", width="BN"), layout=WIDE, policy=policy)
    assert "USE_DESCRIPTORS" not in outcome.new_source and "tl.load" not in outcome.new_source
    assert "`x_ptr` widths" in outcome.diagnostics[0].message


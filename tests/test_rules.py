"""The rule registry against what the tool reports: every registered code is reported by a fixture (a code no
run reports is no rule, issue 37), and the rules are the analysis's meaning, over plain values."""

from __future__ import annotations

from pathlib import Path

import pytest

from triton_migrate.frontend.config import ALL, enabled
from triton_migrate.frontend.suppressions import find, unused
from triton_migrate.outcome import Diagnostic
from triton_migrate.rules import ALIASES, CODES, RULES

ROOT = Path(__file__).resolve().parent.parent
REPORTS = sorted((ROOT / "fixtures").glob("*/expected_report.txt"))
# A code whose case a fixture (one module) cannot hold, or that no fixture holds yet, and the test that runs the
# tool on its case instead and asserts the code in what it reports.
REPORTED_ELSEWHERE = {
    "TTD202": "tests/test_triton_modules.py",  # `tl` imported from another module: a run over several files
    "TTD114": "tests/test_hostile_engine.py",  # a call Triton rejects: a kernel that never compiled, no harness
    # TTD108's split (issue 44): refused sites that the fixtures of TTD108 did not hold either
    "TTD116": "tests/test_idioms.py",
    "TTD118": "tests/test_idioms.py",
}


def _reported(code: str) -> list[str]:
    return [report.parent.name for report in REPORTS if f" {code} " in report.read_text()]


@pytest.mark.parametrize("code", CODES)
def test_every_code_is_reported_by_a_fixture(code):
    if code in ALIASES:  # reported as the codes it selects, each a rule of its own
        assert set(ALIASES[code]) <= set(CODES) - set(ALIASES)
        return
    if code in REPORTED_ELSEWHERE:
        test = ROOT / REPORTED_ELSEWHERE[code]
        assert f'"{code}"' in test.read_text(), f"{test.name} asserts no report of {code}"
        return
    assert _reported(code), f"no fixture's expected_report.txt reports {code}: report it or retire it"


def test_reported_elsewhere_is_only_what_no_fixture_reports():
    assert all(not _reported(code) for code in REPORTED_ELSEWHERE)
    assert set(REPORTED_ELSEWHERE) <= set(CODES)


def test_a_fixture_report_names_codes_as_the_check_would_find_them():
    """The search above finds a code as a report spells it: a line's own code (`9:9: TTD006 ...`) or the reason a
    line gives (`...: TTD104 `volatile` access ...`), never a longer code that starts with it."""
    sample = next(report for report in REPORTS if report.parent.name == "volatile_refused").read_text()
    assert " TTD104 " in sample and " TTD999 " not in sample


def test_the_refusal_conditions_read_plain_values():
    """What the analysis asks a rule is a question over numbers and names; the rules hold no syntax tree."""
    unchecked, no_unit_stride = RULES["TTD101"], RULES["TTD103"]
    assert unchecked.in_bounds(0, 64, 32, same_extent=False)
    assert not unchecked.in_bounds(0, 16, 32, same_extent=False)
    assert not unchecked.in_bounds(None, 64, 32, same_extent=True)  # paths disagree on the offset
    assert unchecked.in_bounds(0, None, None, same_extent=True)  # `(N, ...)` and `(N, ...)` alike
    assert no_unit_stride.unit_stride_dimension(["stride_m", 1], [1, 0], set()) == 1
    assert no_unit_stride.unit_stride_dimension(["stride_m", "stride_n"], [1, 0], {"stride_m", "stride_n"}) == 1
    assert no_unit_stride.unit_stride_dimension(["s0", "s1"], [1, 0], {"s0", "s1"}) is None  # not named a stride
    assert no_unit_stride.unit_stride_dimension([True, None], [1, 0], set()) is None  # a bool is no literal 1


SECTIONS = ("What it does:", "Why:", "Example:", "Fix safety:", "Fixtures:")


def sections(doc: str) -> list[str]:
    """The section leads of a rule's documentation, in order: the paragraphs that open with one."""
    leads = [lead for paragraph in doc.split("\n\n") for lead in SECTIONS + ("Fixture:",)
             if paragraph.startswith(lead)]
    return ["Fixtures:" if lead == "Fixture:" else lead for lead in leads]


@pytest.mark.parametrize("code", CODES)
def test_every_rule_documents_the_same_sections_in_the_same_order(code):
    """What `--explain` prints and the rule's page shows: what it does, why, an example before and after, how
    safe its fix is, and the fixtures that show it."""
    assert sections(RULES[code].__doc__.strip()) == list(SECTIONS)


def test_the_section_check_finds_a_missing_or_misplaced_section():
    assert sections("T\n\nWhy: w\n\nWhat it does: d\n\nExample: e\n\nFix safety: s\n\nFixtures: f") != list(SECTIONS)
    assert sections("T\n\nWhat it does: d\n\nWhy: w\n\nFix safety: s\n\nFixtures: f") != list(SECTIONS)


def test_ttd108_selects_the_codes_it_was_split_into_and_each_is_its_own():
    """Issue 44: TTD108's cases are codes a user selects or ignores one by one; TTD108 still names them all."""
    assert ALIASES["TTD108"] == ("TTD114", "TTD115", "TTD116", "TTD117", "TTD118")
    for code in ALIASES["TTD108"]:
        assert not enabled(code, (ALL,), ("TTD108",)) and enabled(code, ("TTD108",), ())
        others = tuple(other for other in ALIASES["TTD108"] if other != code)
        assert enabled(code, (ALL,), others) and not enabled(code, (ALL,), (code,))
    assert enabled("TTD109", (ALL,), ("TTD108",))  # the alias names its codes, not its prefix's


def test_a_suppression_of_ttd108_suppresses_the_codes_it_was_split_into():
    diagnostic = Diagnostic(1, 5, "TTD115", "`tl.store` with `mask=` on a block pointer", False)
    suppression = find("x = 1  # noqa: TTD108\n")[0]
    assert suppression.covers(diagnostic) and unused([suppression], (diagnostic,)) == []
    assert not find("x = 1  # noqa: TTD116\n")[0].covers(diagnostic)

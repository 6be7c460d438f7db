"""The rule registry against what the tool reports: every registered code is reported by a fixture (a code no
run reports is no rule, issue 37), and the rules are the analysis's meaning, over plain values."""

from __future__ import annotations

from pathlib import Path

import pytest

from triton_migrate.rules import CODES, RULES

ROOT = Path(__file__).resolve().parent.parent
REPORTS = sorted((ROOT / "fixtures").glob("*/expected_report.txt"))
# A code whose case a fixture (one module) cannot hold, and the test that runs the tool on its case instead and
# asserts the code in what it reports.
REPORTED_ELSEWHERE = {
    "TTD202": "tests/test_triton_modules.py",  # `tl` imported from another module: a run over several files
}


def _reported(code: str) -> list[str]:
    return [report.parent.name for report in REPORTS if f" {code} " in report.read_text()]


@pytest.mark.parametrize("code", CODES)
def test_every_code_is_reported_by_a_fixture(code):
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

"""The engine skips the ast walk for sites where the source cannot spell one (`may_spell_a_site`): that
search must never say no where the walk would find a site."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from triton_migrate.engine.scanning import has_site, may_spell_a_site

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(ROOT / "fixtures").glob("*/*.py"), *(ROOT / "tests" / "realistic").rglob("*.py")])
WIDE_M = "\uff4d"  # FULLWIDTH LATIN SMALL LETTER M: the parser reads `ｍake_block_ptr` as `make_block_ptr`


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_search_says_yes_wherever_the_walk_finds_a_site(path):
    source = path.read_text()
    assert may_spell_a_site(source) or not has_site(ast.parse(source))


def test_a_site_spelt_in_normalised_letters_is_still_looked_for():
    call = f"tl.{WIDE_M}ake_block_ptr(x, (1,), (1,), (0,), (1,), (0,))"
    source = f"import triton.language as tl\n\n\ndef k(x):\n    p = {call}\n"
    assert has_site(ast.parse(source)) and may_spell_a_site(source)
    assert not may_spell_a_site("import triton.language as tl\nx = tl.load(p, mask=m)\n")

"""The byte prefilter: its substring tests only make it faster, never change what it lets through."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from triton_migrate.analysis.prefilter import might_need_migration

# What the prefilter was before its substring tests: the definition they must agree with.
MARKER = re.compile(rb"\b(?:make_block_ptr|advance)\s*\(|\b(?:boundary_check|padding_option)\s*=")
PIECES = [b"triton", b"tl.", b"make_block_ptr", b"advance", b"boundary_check", b"padding_option", b"(", b"=",
          b" ", b"\n", b"_", b"x", b"advanced", b"#"]


@given(st.lists(st.sampled_from(PIECES), max_size=12))
def test_agrees_with_the_regex_alone(pieces):
    data = b"".join(pieces)
    concerns_us = b"triton" in data or b"make_block_ptr" in data
    assert might_need_migration(data) == (concerns_us and MARKER.search(data) is not None)


def test_what_it_lets_through():
    assert might_need_migration(b"import triton\np = tl.advance (p, (0, 1))")
    assert might_need_migration(b"import triton\nx = tl.load(p, boundary_check =(0,))")
    assert not might_need_migration(b"import triton\nx = p.advanced(1)")
    assert not might_need_migration(b"p = x.advance(p, (0, 1))")  # no triton
    # no triton, but a creation: the census reports it however `tl` is bound (TTD203)
    assert might_need_migration(b"p = tl.make_block_ptr(x)")

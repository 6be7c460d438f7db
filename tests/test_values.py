"""The abstract values' comparisons: `same_state`, which a loop asks on every pass, must answer as comparing
each state's sorted (name, key) pairs would."""

from __future__ import annotations

import itertools

import libcst as cst
import pytest

from triton_migrate.analysis.values import OTHER, BlockPtr, Dim, Opaque, Placeholder, same_state


def _pointer(code: str, stale: bool = False) -> BlockPtr:
    dim = Dim(cst.Name(code), code, frozenset({code}), frozenset({1}), stale=stale)
    return BlockPtr(frozenset({1}), "p", (dim,))


def _key(state):
    return None if state is None else tuple(sorted((name, value.key()) for name, value in state.items()))


P = _pointer("i")
STATES = [None, {}, {"p": P}, {"p": _pointer("i")}, {"p": _pointer("i", stale=True)}, {"p": _pointer("j")},
          {"p": P, "x": OTHER}, {"x": OTHER, "p": P}, {"p": Opaque(frozenset({1}))}, {"p": Placeholder(frozenset({2}))},
          {"q": P}]


@pytest.mark.parametrize("a, b", list(itertools.product(STATES, repeat=2)))
def test_same_state_answers_as_the_sorted_keys_do(a, b):
    assert same_state(a, b) == (_key(a) == _key(b))

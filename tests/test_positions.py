"""Diagnostic positions come from the stdlib ast (cheap) instead of libcst's PositionProvider (which generates
the whole module again): both must agree on every call and parameter, whatever the line endings and
characters."""

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from triton_migrate.analysis.positions import Positions
from triton_migrate.analysis.triton_names import TritonNames
from triton_migrate.engine import scanning

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "fixtures").glob("*/before.py"))

VARIANTS = {
    "as is": lambda s: s,
    "crlf": lambda s: s.replace("\n", "\r\n"),
    "cr": lambda s: s.replace("\n", "\r"),
    # Non-ASCII before a site on the same line: ast columns count UTF-8 bytes, libcst's characters.
    "non-ascii": lambda s: s.replace("= tl.make_block_ptr(", "= 'é€' and tl.make_block_ptr(  # ü\n    "),
}


def scanned(source: str):
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    scan = scanning.ModuleScan(TritonNames.of_cst(wrapper.module))
    wrapper.module.visit(scan)
    return wrapper, scan


def positions_of(source: str):
    wrapper, scan = scanned(source)
    syntax = scanning.AstScan.of(scanning.ast_parse(source))
    pairs = [(scan.calls, syntax.calls), (scan.parameters, syntax.parameters)]
    return wrapper, scan, Positions.paired(wrapper, source, pairs)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.parent.name)
def test_call_and_parameter_positions_match_libcst(path, variant):
    source = VARIANTS[variant](path.read_text())
    wrapper, scan, positions = positions_of(source)
    nodes = [*scan.calls, *scan.parameters]
    assert scan.calls and scan.parameters and all(id(n) in positions._known for n in nodes)
    provider = wrapper.resolve(PositionProvider)
    assert [positions.start(n) for n in nodes] == [(provider[n].start.line, provider[n].start.column) for n in nodes]


def test_other_nodes_fall_back_to_the_provider():
    source = "import triton.language as tl\ndef f(p):\n    x = tl.advance(p, (1,))\n    return x\n"
    wrapper, scan, positions = positions_of(source)
    returned = wrapper.module.body[1].body.body[1].body[0].value
    assert positions.start(scan.calls[0]) == (3, 8)
    assert positions._provider is None
    assert positions.start(returned) == (4, 11)


def test_pairs_whose_names_disagree_fall_back_to_the_provider():
    source = "import triton.language as tl\ndef f(p):\n    return tl.advance(p, (1,))\n"
    wrapper, scan = scanned(source)
    other = scanning.AstScan.of(scanning.ast_parse("def g(q):\n    return tl.advance(q, (1,))\n"))
    positions = Positions.paired(wrapper, source, [(scan.calls, other.calls), (scan.parameters, other.parameters)])
    assert positions._known.keys() == {id(scan.calls[0])}  # same call name, same count: paired
    assert positions.start(scan.calls[0]) == (2, 11)  # where the other source has it
    assert positions.start(scan.parameters[0]) == (2, 6)  # `q` is not `p`: the provider says

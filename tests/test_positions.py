"""Diagnostic positions come from the stdlib ast (cheap) instead of libcst's PositionProvider (which generates
the whole module again): both must agree on every site call, whatever the line endings and characters."""

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from triton_migrate import engine
from triton_migrate.positions import Positions, site_starts
from triton_migrate.triton_names import TritonNames

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
    scan = engine._ModuleScan(TritonNames.of_cst(wrapper.module))
    wrapper.module.visit(scan)
    return wrapper, scan


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.parent.name)
def test_site_positions_match_libcst(path, variant):
    source = VARIANTS[variant](path.read_text())
    wrapper, scan = scanned(source)
    calls = engine._site_calls(source)
    assert len(calls) == len(scan.site_calls) > 0
    provider = wrapper.resolve(PositionProvider)
    expected = [(provider[c].start.line, provider[c].start.column) for c in scan.site_calls]
    assert site_starts(calls, source) == expected


def test_other_nodes_fall_back_to_the_provider():
    source = "import triton.language as tl\ndef f(p):\n    x = tl.advance(p, (1,))\n    return x\n"
    wrapper, scan = scanned(source)
    positions = Positions(wrapper, scan.site_calls, site_starts(engine._site_calls(source), source))
    returned = wrapper.module.body[1].body.body[1].body[0].value
    assert positions.start(scan.site_calls[0]) == (3, 8)
    assert positions.start(returned) == (4, 11)


def test_disagreeing_counts_fall_back_to_the_provider():
    source = "import triton.language as tl\ndef f(p):\n    return tl.advance(p, (1,))\n"
    wrapper, scan = scanned(source)
    positions = Positions(wrapper, scan.site_calls, [(99, 99), (98, 98)])
    assert positions.start(scan.site_calls[0]) == (3, 11)

"""A check analyses libcst nodes rebuilt from the stdlib ast (ast_tree.py) instead of libcst's own parse:
the two trees must have the same shape on real code, and a check must report exactly what a rewrite of
the same file reports, whatever the syntax, line endings and characters."""

import ast
import sysconfig
from pathlib import Path

import libcst as cst
import pytest

from triton_migrate import engine
from triton_migrate.analysis import ast_tree
from triton_migrate.engine import scanning
from triton_migrate.policy import Policy, Statement
from triton_migrate.syntax.nodes import canonical_code
from triton_migrate.syntax.walk import children

ROOT = Path(__file__).resolve().parent.parent
KERNELS = sorted([*ROOT.glob("fixtures/*/*.py"), *ROOT.glob("benchmarks/kernels/*.py")])
PACKAGE = sorted([*ROOT.glob("migrate/**/*.py"), *ROOT.glob("rules/*.py"), *ROOT.glob("compat/*.py")])
STDLIB = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))

# Every construct the rebuild knows, in the spellings where libcst's tree differs from the ast's.
SYNTAX = '''\
"""doc""" ; import os.path as p, sys
from .. import a
from .m import (b as c, d)
from x import *
x = 1_000 + 0x1F - 2.5e3 * 3j ; y = -x ** ~x
if a: b; c
elif d: \\
    c = 1
elif d:
    pass
else:
    if e: f()
s = ("a" "b"  # it's
     r'c' f"{x!r:>{w}}" u"é", b'' B"\\x00")
t = f"{x}" "{x}" f'{y:{z}}'
g = (1, *a), [2], {3}, {**k, 4: 5}, (), a[1:2, ::3], a[(1, 2)], a[(b), c], a[:, None]
h = [i for i in j if i if not i for k in i], {i: j async for i in k}, (i for i in j), {i for i in j}
@dec
@dec.attr(1, *a, k=2, **kw)
async def f(a, /, b: int = 1, *args, c, d=2, **kw) -> "T":
    global g
    nonlocal h
    async with a as (b, c), d:
        await e
    async for i in j:
        yield i
    else:
        yield from k
    del a, b[0]
    assert a, "m"
    raise E from e
    return lambda a, *b, c=1, **d: (a if b else c)
class C(B, metaclass=M):
    x: int = (1)
    y: list
    def m(self): return (self.x + 1) * 2
try:
    a, *b = c = d
    a += 1; a //= 2; a @= b; a <<= 1
except (A, B) as e:
    pass
except C:
    pass
else:
    pass
finally:
    pass
while not a and b or c < d <= e is not f not in g:
    break
else:
    continue
with (yield):
    (x := 1)
z = a.b.c(d)[e].f if g else (h)
'''


def shape(node: cst.CSTNode) -> list:
    """The tree without its text: node kinds, names, literals and operators, in source order."""
    found = []
    stack = [node]
    while stack:
        node = stack.pop()
        if node is None:
            found.append(")")
            continue
        kind = type(node)
        text = node.value if kind in (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString) else None
        found.append((kind.__name__, text, type(getattr(node, "operator", None)).__name__))
        stack.append(None)
        stack.extend(reversed(children(node)))
    return found


def rebuilt(source: str) -> cst.Module:
    return ast_tree.build(source, ast.parse(source))[0]


@pytest.mark.parametrize("path", [*KERNELS, *PACKAGE, *STDLIB[::6]], ids=lambda p: str(p.relative_to(p.parents[1])))
def test_same_shape_as_libcst(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    try:
        ours = rebuilt(source)
    except ast_tree.Unsupported:  # a check falls back to libcst's parse (how often: test_unsupported_is_rare)
        checked = engine.migrate_source(source, verify=False, rewrite=False)
        assert checked.diagnostics == engine.migrate_source(source, verify=False, rewrite=True).diagnostics
        return
    assert shape(ours) == shape(cst.parse_module(source))


def test_unsupported_is_rare() -> None:
    unsupported = []
    for path in STDLIB:
        try:
            rebuilt(path.read_text(encoding="utf-8"))
        except ast_tree.Unsupported:
            unsupported.append(path.name)
        except (SyntaxError, UnicodeDecodeError, RecursionError):
            pass
    # `match` statements and f"{x=}" fall back (4 of 168 files of Python 3.11's): each such file costs a
    # check the libcst parse again. Kernel files rarely have either.
    assert len(unsupported) <= len(STDLIB) // 25, unsupported


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_construct(newline: str) -> None:
    source = SYNTAX.replace("\n", newline)
    assert shape(rebuilt(source)) == shape(cst.parse_module(source))


@pytest.mark.parametrize("source", ["match x:\n    case 1:\n        pass\n", "f'{x=}'\n", "f'{x = !r}'\n"])
def test_unsupported_syntax_is_refused(source: str) -> None:
    with pytest.raises(ast_tree.Unsupported):
        rebuilt(source)


def test_printed_code_keeps_its_meaning() -> None:
    # The ast drops parentheses; printing `(a + b) * c` without them would read as `a + b * c`.
    for text in ["(a + b) * c", "-(a + b)", "(a if b else c).d", "(a or b) and c", "(lambda: 1)()", "a - (b - c)"]:
        ours = rebuilt(f"x = {text}\n").body[0].body[0].value
        theirs = cst.parse_module(f"x = {text}\n").body[0].body[0].value
        assert canonical_code(ours) == canonical_code(theirs) == ast.unparse(ast.parse(text))
    assert canonical_code(cst.parse_expression("(a+b)")) == canonical_code(cst.parse_expression("a + b"))


CHECK_VARIANTS = {
    "as is": lambda s: s,
    "crlf": lambda s: s.replace("\n", "\r\n"),
    # Non-ASCII before a site on the same line: ast columns count UTF-8 bytes, libcst's characters.
    "non-ascii": lambda s: s.replace("= tl.make_block_ptr(", "= 'é€' and tl.make_block_ptr(  # ü\n    "),
    # A construct the rebuild refuses: the check falls back to libcst and still agrees.
    "fallback": lambda s: s + "\nmatch x:\n    case 1:\n        pass\n",
}


@pytest.mark.parametrize("variant", CHECK_VARIANTS)
@pytest.mark.parametrize("path", KERNELS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_check_reports_what_a_rewrite_reports(path: Path, variant: str) -> None:
    source = CHECK_VARIANTS[variant](path.read_text(encoding="utf-8"))
    checked = engine.migrate_source(source, verify=False, rewrite=False)  # the rebuilt tree
    rewritten = engine.migrate_source(source, verify=False, rewrite=True)  # libcst's
    assert checked.diagnostics == rewritten.diagnostics


PARENTHESISED_BASE = '''\
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, off, stride, M, N, BM: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(BASE, (M, N), (stride, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(p, tl.load(p, boundary_check=(0, 1)) + 1, boundary_check=(0, 1))
'''


@pytest.mark.parametrize("rewrite", [False, True])
def test_parentheses_do_not_hide_a_base_offset(rewrite: bool) -> None:
    # Which offsets a descriptor needs aligned read the sum's structure, never its parentheses (which the
    # rebuilt tree does not have): `(x_ptr + off) + M` needs `off` aligned as much as `x_ptr + off + M`.
    # A descriptor on stated facts lists them (the default checks them at launch instead, TTD009).
    def requirements(base: str) -> tuple:
        source = PARENTHESISED_BASE.replace("BASE", base)
        policy = Policy(target="descriptor", assume=(Statement("aligned", "test"), Statement("aligned-rows", "test")))
        return engine.migrate_source(source, verify=False, rewrite=rewrite, policy=policy).diagnostics[0].requirements

    assert requirements("(x_ptr + off) + M") == requirements("x_ptr + off + M") == requirements("x_ptr + (off) + M")
    assert any("`off`" in r for r in requirements("(x_ptr + off) + M"))


def test_strict_keeps_masked_pointers_for_an_unproven_offset_in_a_parenthesised_base() -> None:
    # Every other part is provably aligned (a literal stride of 64 elements): the offset is the one
    # requirement, and `--strict` accepts no run-time requirement, so the site keeps masked pointers (TTD112).
    source = PARENTHESISED_BASE.replace("BASE", "(x_ptr + off)").replace("(stride, 1)", "(64, 1)")
    (site,) = engine.migrate_source(source, policy=Policy(strict=True)).diagnostics
    assert site.decision == "pointer" and "TTD112 `off` × itemsize" in site.message, site


# `p` holds block pointers of two ranks, read after the join: TTD109 names the function, whose name is on the line
# after `def \`.
TWO_RANKS = '''\
import triton
import triton.language as tl


@triton.jit
def \\
        k(x_ptr, y_ptr, M, N, stride, flag, BM: tl.constexpr, BN: tl.constexpr):
    if flag:
        p = tl.make_block_ptr(x_ptr, (M, N), (stride, 1), (0, 0), (BM, BN), (1, 0))
    else:
        p = tl.make_block_ptr(y_ptr, (M,), (1,), (0,), (BM,), (0,))
    tl.store(p, tl.load(p, boundary_check=(0, 1)) + 1, boundary_check=(0, 1))
'''


def _function_names(node: cst.CSTNode) -> list[cst.Name]:
    stack, found = [node], []
    while stack:
        node = stack.pop()
        found += [node.name] if isinstance(node, cst.FunctionDef) else []
        stack.extend(children(node))
    return found


@pytest.mark.parametrize("source", ["def f(): pass\n", "async  def \\\n  f(): pass\n", "\tdef f(): pass\n",
                                    "class C:\n    @staticmethod\n    def f(): pass\n"])
def test_a_function_name_knows_its_place(source: str) -> None:
    source = "if x:\n" + source if source.startswith("\t") else source
    rebuilt_tree, positions = ast_tree.build(source, ast.parse(source))
    (ours,) = _function_names(rebuilt_tree)
    module = cst.MetadataWrapper(cst.parse_module(source))
    (theirs,) = _function_names(module.module)
    start = module.resolve(cst.metadata.PositionProvider)[theirs].start
    assert positions[id(ours)] == (start.line, start.column)


def test_a_check_needs_no_libcst_and_a_rewrite_places_diagnostics_alike() -> None:
    # A check of the rebuilt tree used to fall back to libcst's parse for positions (on kernel-heavy files,
    # most of a check). The TTD109 points at the read after the join, on the line below `def \`'s name.
    expected = [(9, 13, "TTD109", 12), (11, 13, "TTD109", 12)]

    def found(rewrite: bool) -> list:
        diagnostics = engine.migrate_source(TWO_RANKS, verify=False, rewrite=rewrite).diagnostics
        return [(d.line, d.column, d.code, int(d.message.rpartition("line ")[2].rstrip(")"))) for d in diagnostics]

    assert found(rewrite=True) == expected
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scanning, "parse", lambda *a: pytest.fail("libcst parse"))
        patch.setattr(cst.MetadataWrapper, "resolve", lambda *a: pytest.fail("libcst positions computed"))
        assert found(rewrite=False) == expected
